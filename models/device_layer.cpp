#include "models/device_layer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sd {

DeviceLayer::DeviceLayer(const LayerParams& p, uint64_t seed)
    : capacity_(p.get("capacity_bytes")),
      sustained_(p.get("sustained_mbps") * 1e6),
      burst_bytes_(p.get("burst_bytes")),
      burst_rate_(p.get("burst_mbps") * 1e6),
      recover_(p.get("recover_mbps") * 1e6),
      recover_idle_s_(p.get("recover_idle_ms") * 1e-3),
      bucket_(p.get("catchup_ms") * 1e-3 * p.get("sustained_mbps") * 1e6),
      overhead_s_(p.get("op_overhead_us") * 1e-6),
      seek_s_(p.get("seek_penalty_us") * 1e-6),
      knee_(p.get("fill_knee")),
      floor_(p.get("fill_floor")),
      read_rate_((p.get("read_mbps") > 0 ? p.get("read_mbps") : p.get("sustained_mbps")) * 1e6),
      read_lat_s_(p.get("read_latency_us") * 1e-6),
      read_max_(p.get("read_max_mbps") * 1e6),
      stalls_(p, seed ^ 0xD1CEull),
      read_lanes_(static_cast<size_t>(p.get("read_queue_depth")), 0.0) {}

double DeviceLayer::fill_multiplier(double used) const {
  if (capacity_ <= 0 || knee_ >= 1) return 1.0;
  double f = std::min(1.0, used / capacity_);
  if (f <= knee_) return 1.0;
  return 1.0 - (1.0 - floor_) * (f - knee_) / (1.0 - knee_);
}

double DeviceLayer::burst_left(double t) const {
  double level = level_;
  if (t > free_at_ + recover_idle_s_) level = std::max(0.0, level - recover_ * (t - free_at_ - recover_idle_s_));
  return std::max(0.0, burst_bytes_ - level);
}

double DeviceLayer::write(FileId file, uint64_t offset, uint64_t bytes, double start, double used) {
  double t = std::max(start, free_at_);
  // The cache empties once the device has been quiet for recover_idle_s_.
  if (t > free_at_ + recover_idle_s_ && recover_ > 0)
    level_ = std::max(0.0, level_ - recover_ * (t - free_at_ - recover_idle_s_));
  // Catch-up (catchup_ms): what the device did not use of its sustained rate
  // while idle fills a bucket of at most bucket_ bytes, passed at once.
  if (bucket_ > 0) tokens_ = std::min(bucket_, tokens_ + sustained_ * (t - free_at_));
  double begin = t;
  t += overhead_s_;
  if (file != last_file_ || offset != last_end_) t += seek_s_;
  // fill_multiplier is nonincreasing in `used` (each step is monotone under
  // rounding): at or below a level that gave 1, it gives 1 without the division.
  double m = used <= flat_until_ ? 1.0 : fill_multiplier(used);
  if (m == 1.0 && used > flat_until_) flat_until_ = used;
  double in_burst = std::min(static_cast<double>(bytes), std::max(0.0, burst_bytes_ - level_));
  double rest = static_cast<double>(bytes) - in_burst;
  if (in_burst > 0) t += in_burst / (burst_rate_ * m);
  double take = bucket_ > 0 ? std::min(tokens_, rest) : 0.0;
  tokens_ -= take;
  t += (rest - take) / (sustained_ * m);
  level_ += in_burst;
  double paused = stalls_.delay(begin, t, bytes);
  if (paused > 0 && bucket_ > 0) {
    // The bucket fills during the pause (the device itself kept going): the
    // rest of this request's slow part passes at once as far as it reaches.
    tokens_ = std::min(bucket_, tokens_ + sustained_ * paused);
    double more = std::min(tokens_, rest - take);
    tokens_ -= more;
    t -= more / (sustained_ * m);
  }
  t += paused;
  last_file_ = file;
  last_end_ = offset + bytes;
  free_at_ = t;
  return t;
}

double DeviceLayer::service_bound(double requests, double bytes) const {
  // The burst level's sum is exact only in whole bytes.
  if (stalls_.enabled() || bucket_ > 0 || (burst_bytes_ > 0 && !(std::floor(burst_bytes_) == burst_bytes_ && burst_bytes_ < 0x1p52)))
    return std::numeric_limits<double>::infinity();
  double rate = burst_bytes_ > 0 ? std::min(burst_rate_, sustained_) : sustained_;
  return requests * (overhead_s_ + seek_s_) + bytes / rate;
}

void DeviceLayer::skip_requests(FileId last_file, uint64_t last_end, double bytes, double last_bytes, double used) {
  // Each request adds min(its bytes, room) to the level: the sum telescopes.
  if (burst_bytes_ > 0) {
    // Recovering, the cache was empty when the last extent's requests began.
    double from = recover_ > 0 ? 0.0 : level_, added = recover_ > 0 ? last_bytes : bytes;
    level_ = std::min(burst_bytes_, from + added);
  }
  if (used > flat_until_) flat_until_ = used;
  last_file_ = last_file;
  last_end_ = last_end;
}

double DeviceLayer::read(uint64_t bytes, double start) {
  auto lane = std::min_element(read_lanes_.begin(), read_lanes_.end());
  double t = std::max(start, *lane) + read_lat_s_;
  double end = t + static_cast<double>(bytes) / read_rate_;
  if (read_max_ > 0) {
    // The interface carries one transfer at a time at its ceiling rate.
    read_bus_free_ = std::max(read_bus_free_, t) + static_cast<double>(bytes) / read_max_;
    end = std::max(end, read_bus_free_);
  }
  *lane = end;
  return end;
}

}  // namespace sd
