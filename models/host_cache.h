// The host layer: the OS page cache. A buffered write is copied at memory
// speed while the dirty data stays under dirty_limit_bytes; writeback sends
// dirty data down in chunks (contiguous data merges) as soon as the device is
// free; a writer that finds the cache full waits until enough of it has
// reached the device. fsync waits until everything dirty is on the device.
// With dirty_limit_bytes = 0 (or O_DIRECT) writes go straight down.
#pragma once
#include <cstdint>
#include <deque>

#include "models/file_table.h"
#include "models/fs_layer.h"
#include "models/params.h"

namespace sd {

class HostCache {
 public:
  HostCache(const LayerParams& p, FsLayer& fs, const FileTable& files);

  bool enabled() const { return limit_ > 0; }
  // A buffered write of `bytes` issued at `now` (after the syscall cost);
  // returns when the call returns to the application.
  double write(FileId file, uint64_t offset, uint64_t bytes, double now);
  // Returns when every dirty byte issued before `now` is on the device.
  double drain(double now);
  // Dirty bytes not yet on the device at time `now`.
  double dirty_at(double now);
  double memory_rate() const { return memory_; }
  double chunk_bytes() const { return chunk_; }

 private:
  struct Extent {
    FileId file;
    uint64_t offset, bytes;
    double ready;  // when it became dirty
  };
  struct InFlight {
    double end;
    uint64_t bytes;
  };
  // Starts writeback chunks whose start time is <= until.
  void pump(double until);
  void retire(double until);
  double next_event() const;  // earliest time the dirty amount can change

  FsLayer& fs_;
  const FileTable& files_;
  double limit_, memory_, chunk_;
  std::deque<Extent> queued_;
  std::deque<InFlight> inflight_;
  double queued_bytes_ = 0, inflight_bytes_ = 0;
  double last_end_ = 0;  // end of the latest writeback chunk issued
};

}  // namespace sd
