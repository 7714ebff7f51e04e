// Ctrl-C for commands that write test files on real storage (measure,
// record). The first SIGINT/SIGTERM sets a flag the workloads poll
// (SweepEnv::cancel): they stop at the next operation and the normal cleanup
// removes the files. A second signal removes every registered file at once
// (unlink is async-signal-safe) and exits with 128 + the signal.
#pragma once
#include <atomic>
#include <string>

namespace sd::cleanup {

void install();                          // installs the handlers; idempotent
const std::atomic<bool>* cancel_flag();  // set by the first signal
int signal_received();                   // 0, or the signal that set the flag
// Files to remove on a second signal. Up to 1024 paths of < 1024 bytes each;
// beyond that a path is only removed by normal cleanup.
void register_path(const std::string& path);
void unregister_path(const std::string& path);

}  // namespace sd::cleanup
