// Test helper: the simplest workload, one file with the same block written
// back to back, as `dd bs=B count=N` or NI's "write the same block for T
// seconds" benchmark (document 000), keeping every write's completion time.
// The tests that compare the model with the documents' dd figures use it; the
// sweeps' own writer (sim/sweeps.cpp) stays the one users run. Runs against
// any Device on any Clock.
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

inline SequentialResult run_sequential_write(Device& dev, Clock& clock, const SequentialWrite& w) {
  SequentialResult r;
  r.start = clock.now();
  auto c = dev.submit({OpKind::Create, w.file, 0, 0, w.direct}, clock.now());
  clock.sleep_until(c.done);
  if (c.error) {
    r.error = c.error;
    r.end = clock.now();
    return r;
  }
  uint64_t offset = 0;
  while ((w.count == 0 || r.writes < w.count) && (w.seconds <= 0 || clock.now() - r.start < w.seconds)) {
    c = dev.submit({OpKind::Write, w.file, offset, w.block_bytes, w.direct}, clock.now());
    clock.sleep_until(c.done);
    offset += c.bytes;
    r.bytes += static_cast<double>(c.bytes);
    ++r.writes;
    r.done_times.push_back(c.done);
    if (c.error || c.bytes < w.block_bytes) {
      r.error = c.error;
      break;
    }
    if (w.count == 0 && w.seconds <= 0) break;  // neither bound given: one write
  }
  if (w.fsync_at_end) {
    c = dev.submit({OpKind::Fsync, w.file, 0, 0, w.direct}, clock.now());
    clock.sleep_until(c.done);
  }
  c = dev.submit({OpKind::Close, w.file, 0, 0, w.direct}, clock.now());
  clock.sleep_until(c.done);
  r.end = clock.now();
  return r;
}

}  // namespace sd
