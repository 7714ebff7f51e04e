// The simplest workload: one file, the same block written back to back, as
// `dd bs=B count=N` or NI's "write the same block for T seconds" benchmark
// (document 000). Runs against any Device on any Clock.
#pragma once
#include <cstdint>
#include <vector>

#include "models/device.h"

namespace sd {

struct SequentialWrite {
  uint64_t block_bytes = 1 << 20;
  uint64_t count = 0;          // writes to issue (0: until `seconds`)
  double seconds = 0;          // stop issuing once this much time has passed (0: use count)
  bool direct = false;         // O_DIRECT
  bool fsync_at_end = false;   // dd conv=fsync
  FileId file = 1;
};

struct SequentialResult {
  uint64_t writes = 0;
  double bytes = 0;
  double start = 0, end = 0;       // clock times of the first issue and the last completion
  int error = 0;                   // errno that stopped the run, or 0
  std::vector<double> done_times;  // completion time of each write
  double rate() const { return end > start ? bytes / (end - start) : 0; }
};

SequentialResult run_sequential_write(Device& dev, Clock& clock, const SequentialWrite& w);

}  // namespace sd
