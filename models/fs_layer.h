// The filesystem layer: the driver's per-byte and per-request CPU work,
// request splitting, metadata writes as the file grows (they land away from the
// data), per-file create cost, and driver stalls. It forwards data and
// metadata writes to the device layer.
//
// Where the driver's CPU work happens depends on the driver: a kernel
// filesystem does it in the writeback path, after the page cache; a userspace
// (FUSE) driver does it inside the application's write() call, before the
// page cache, so its stalls block the writer. `driver_cost()` is that
// synchronous part (zero for a kernel driver); `write()` is the rest. Space accounting (clusters, limits)
// is in FileTable (file_table.h), checked when the application writes.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "models/device_layer.h"
#include "models/durability.h"
#include "models/params.h"
#include "models/stalls.h"

namespace sd {

class FsLayer {
 public:
  FsLayer(const LayerParams& p, DeviceLayer& device, uint64_t seed);
  // Not copyable: the high-water lookup cache points into its own map.
  FsLayer(const FsLayer& o) = delete;
  FsLayer& operator=(const FsLayer&) = delete;

  // Writes [offset, offset+bytes) of `file` through the driver, starting no
  // earlier than `start`. Returns the end time.
  double write(FileId file, uint64_t offset, uint64_t bytes, double start, double used_bytes);
  // Seconds the application's write() call spends in a userspace driver for
  // `bytes` issued at `now` (0 for a kernel driver), stalls included.
  double driver_cost(uint64_t bytes, double now);
  // The same without stalls (the steady part; analytic helpers).
  double driver_cpu(uint64_t bytes) const;
  bool userspace() const { return userspace_; }
  // Whether the driver marks its page-cache writeback as background I/O
  // (Linux REQ_BACKGROUND), which the block layer's writeback throttling
  // holds to a smaller depth than unmarked writes.
  bool tags_background_writeback() const { return background_tag_; }
  // Seconds between journal commits that buffered writers wait for (0: none,
  // or a userspace driver, whose own stalls model its waits).
  double journal_commit_s() const { return userspace_ ? 0 : journal_s_; }
  // The same from a filesystem layer's parameters (no layer built).
  static double journal_commit_s(const LayerParams& p) {
    return p.get("userspace") != 0 ? 0 : p.get("journal_commit_ms") * 1e-3;
  }
  // A journal commit's own writes (descriptor, the changed inode, bitmap and
  // group descriptor blocks, commit block: 5 x 4 KiB, contiguous in the
  // journal), queued at `start`; returns when they are on the device.
  double journal_write(double start, double used_bytes);
  double read(uint64_t bytes, double start);
  // Cost of creating a file, starting at `start` (serialised with writes).
  double create(double start);
  void forget(FileId file) {
    high_water_.erase(file);
    hw_ = nullptr;
  }
  // Tells `log` (not owned; null = none) of every data request the device
  // acknowledges and every journal commit (models/durability.h).
  void set_durability(DurabilityLog* log) { log_ = log; }

  // Steady stretches (ModelDevice::steady_writes). Bytes of `file` already on the device.
  uint64_t high_water(FileId file) const {
    auto it = high_water_.find(file);
    return it == high_water_.end() ? 0 : it->second;
  }
  // An upper bound on write()'s time for `bytes` appended at the high-water
  // mark in calls of at most `call_bytes`, on an idle device at multiplier 1
  // (infinity where a stretch cannot be stepped: stalls in write(), a
  // durability log, a metadata period that is not whole bytes).
  struct AppendBound {
    double seconds, device_bytes;  // metadata writes included
  };
  AppendBound append_bound(double bytes, double call_bytes) const;
  // The state after write() calls that appended [high_water(file), to) in
  // order, the last request `last_request` bytes long; each extent's calls
  // began on an idle device and went on back to back (the burst cache, if it
  // recovers, recovered to empty before each extent: DeviceLayer::skip_requests),
  // the last extent `last_extent` bytes.
  void skip_appends(FileId file, uint64_t to, uint64_t last_request, uint64_t last_extent, double used_bytes);
  // The driver's own stalls as a writer's call meets them (userspace drivers).
  StallProcess& driver_stalls() { return stalls_; }
  // The size of the requests write() splits `bytes` into (all of it if the driver does not split).
  uint64_t request_piece(uint64_t bytes) const {
    return request_bytes_ > 0 ? static_cast<uint64_t>(request_bytes_) : bytes;
  }

  const StallProcess& stalls() const { return stalls_; }
  // Seconds of pause met so far, the driver's and the device's.
  double stalled_seconds() const;
  void disable_stalls() { stalls_.disable(); }

 private:
  double cpu_seconds(uint64_t bytes) const;  // request_us and driver_mbps work

  DeviceLayer& dev_;
  bool userspace_;
  double request_bytes_, request_s_, driver_rate_, meta_every_, meta_bytes_, create_s_, journal_s_;
  bool background_tag_;
  double meta_acc_ = 0;  // bytes appended since the last metadata write
  uint64_t meta_offset_ = 0, journal_offset_ = 0;
  std::unordered_map<FileId, uint64_t> high_water_;  // bytes already on the device per file
  // The last file's entry in high_water_ (writeback sends one file's data
  // over and over); references into an unordered_map stay valid until that
  // element is erased, so forget() drops it.
  FileId hw_file_ = 0;
  uint64_t* hw_ = nullptr;
  StallProcess stalls_;
  DurabilityLog* log_ = nullptr;
};

}  // namespace sd
