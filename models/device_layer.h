// The device layer: write cache (burst region), per-request overhead, the
// non-sequential penalty, fill-level degradation, device stalls, and reads.
// One write channel (requests are served in order) and up to
// read_queue_depth read channels sharing an interface ceiling.
#pragma once
#include <cstdint>
#include <vector>

#include "models/device.h"
#include "models/params.h"
#include "models/stalls.h"

namespace sd {

// Metadata writes of the filesystem use this file id at the device level.
inline constexpr FileId kMetadataFile = ~FileId{0};
// The filesystem journal's area (a kernel filesystem's commits: FsLayer::journal_write).
inline constexpr FileId kJournalFile = ~FileId{0} - 2;

class DeviceLayer {
 public:
  DeviceLayer(const LayerParams& p, uint64_t seed);

  // Serves a write request of `bytes` at `offset` of `file`, starting no
  // earlier than `start` and after earlier requests. Returns its end time.
  // `used_bytes` is the space in use now (for the fill level).
  double write(FileId file, uint64_t offset, uint64_t bytes, double start, double used_bytes);
  // Serves a read; returns its end time.
  double read(uint64_t bytes, double start);

  double free_at() const { return free_at_; }
  double capacity() const { return capacity_; }
  double burst_bytes() const { return burst_bytes_; }
  double fill_multiplier(double used_bytes) const;
  // Burst cache bytes still free at time t (recovery while idle included).
  double burst_left(double t) const;
  const StallProcess& stalls() const { return stalls_; }
  void disable_stalls() { stalls_.disable(); }
  // Puts the burst cache in a given state (analytic helpers, tests).
  void set_burst_level(double level) { level_ = level; }

  // Steady stretches (ModelDevice::steady_writes). An upper bound on the
  // service of `requests` requests carrying `bytes` in all, at fill level
  // multiplier 1, without stalls (infinity if the layer has stalls on).
  double service_bound(double requests, double bytes) const;
  bool flat_at(double used_bytes) const { return fill_multiplier(used_bytes) == 1.0; }
  double burst_level() const { return level_; }
  double recover_rate() const { return recover_; }
  double recover_idle() const { return recover_idle_s_; }  // seconds of quiet before it recovers
  // The state after requests that each found the channel idle and the burst
  // cache recovered to empty (recover_rate() > 0) or not recovering
  // (recover_rate() == 0), at multiplier 1, whose `bytes` in all (`last_bytes`
  // after the last recovery) ended with one at `last_end` of `last_file`;
  // `used_bytes` as the last of them saw it. free_at() keeps its value (an
  // earlier end): the next request starts after both, and with the burst
  // cache empty by then either value gives the same recovery.
  void skip_requests(FileId last_file, uint64_t last_end, double bytes, double last_bytes, double used_bytes);

 private:
  double capacity_, sustained_, burst_bytes_, burst_rate_, recover_, recover_idle_s_;
  double bucket_;          // catchup_ms x sustained rate: the most bytes passed at once after a pause or idle spell
  double overhead_s_, seek_s_, knee_, floor_;
  double read_rate_, read_lat_s_, read_max_;
  double level_ = 0;      // bytes in the burst cache
  double tokens_ = 0;     // bytes the device may pass at once now (catchup_ms; filled at the sustained rate while idle or paused)
  double free_at_ = 0;    // the write channel is busy until then
  double flat_until_ = -1;  // the highest used bytes seen at which fill_multiplier is 1
  FileId last_file_ = kMetadataFile - 1;
  uint64_t last_end_ = UINT64_MAX;
  StallProcess stalls_;
  std::vector<double> read_lanes_;  // each lane's busy-until time
  double read_bus_free_ = 0;
};

}  // namespace sd
