// What happens on SIGINT/SIGTERM, for every command that creates files
// (docs/formats.md "Output files"). Files a command creates are registered
// here with their identity (device and inode); the signal handler removes
// each registered name that still is that file (fstatat and unlink are
// async-signal-safe; a name another program put a file under since is left
// alone) and exits with 128 + the signal: 130 after SIGINT, 143 after
// SIGTERM, as a shell reports a process killed by that signal.
//
// A command that polls cancel_flag() and stops by itself (measure, record,
// replay --target: they remove their files in the normal way and then exit
// with exit_status()) calls set_cooperative(): then the first signal only
// sets the flag, and a second one removes the registered files and exits.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <string>

namespace sd::cleanup {

void install();                          // installs the handlers; idempotent
void set_cooperative();                  // install(), and the first signal only sets the flag
const std::atomic<bool>* cancel_flag();  // set by the first signal
int signal_received();                   // 0, or the signal that set the flag
int exit_status();                       // 128 + signal_received() (130 if none was)
// Files (and directories) the handler removes: `path`, while it is the file `dev`/`ino` (an
// fstat of the descriptor that made it; a rename keeps them). Any number;
// registration and removal take a lock (never taken in the handler) and are
// O(1).
void register_path(const std::string& path, dev_t dev, ino_t ino);
void unregister_path(const std::string& path);
// Creates `path` with O_CREAT | O_EXCL | `flags` (so never an existing file:
// EEXIST then) and registers it, as one step a signal cannot split. Returns
// the descriptor, or -1 with errno set.
int create_registered(const std::string& path, int flags, unsigned mode = 0666);
// mkdir(`path`) and registers it the same way: the handler removes a
// registered directory (after the files, rmdir: only while empty, so
// nothing put in it by anyone else goes). Returns 0, or -1 with errno set.
int mkdir_registered(const std::string& path, unsigned mode = 0777);

}  // namespace sd::cleanup
