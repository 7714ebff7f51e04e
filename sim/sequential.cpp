#include "sim/sequential.h"

namespace sd {

SequentialResult run_sequential_write(Device& dev, Clock& clock, const SequentialWrite& w) {
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
