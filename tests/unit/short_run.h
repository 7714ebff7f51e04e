// The unit tests under an emulator (CI's ARM leg: tests/cross.sh armhf unit,
// qemu-user, 30-60 times slower than native). With SD_TEST_SHORT=1 in the
// environment, the few Monte-Carlo cases that repeat one check over many
// independent random sets (drives, seeds, document rows, profiles, thread counts) run
// the first `short_n` of them instead of all `full_n`. Every set is checked
// with the same tolerance, so a short run checks a subset of the same
// assertions, never a looser one; the full count runs natively in every CI
// run (and under qemu in tests/cross.sh ARCH without a mode).
#pragma once
#include <cstdlib>
#include <cstring>

namespace sd_test {

inline bool short_run() {
  const char* v = std::getenv("SD_TEST_SHORT");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// How many of `full_n` independent sets to run: all, or the first `short_n`.
inline int sets(int full_n, int short_n) { return short_run() ? short_n : full_n; }

}  // namespace sd_test
