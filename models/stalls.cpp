#include "models/stalls.h"

#include <cmath>

namespace sd {

StallProcess::StallProcess(const LayerParams& p, uint64_t seed)
    : interval_bytes_(p.get("stall_interval_mb") * 1e6),
      median_s_(p.get("stall_duration_ms") * 1e-3),
      sigma_(p.get("stall_duration_sigma")),
      rng_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {
  if (enabled()) draw_next();
}

void StallProcess::draw_next() { until_next_ = -std::log(rng_.uniform()) * interval_bytes_; }

double StallProcess::on_bytes(uint64_t bytes) {
  if (!enabled()) return 0;
  double left = static_cast<double>(bytes);
  double stall = 0;
  while (left >= until_next_) {
    left -= until_next_;
    double d = median_s_ * (sigma_ > 0 ? std::exp(sigma_ * rng_.normal()) : 1.0);
    stall += d;
    ++count_;
    draw_next();
  }
  until_next_ -= left;
  total_s_ += stall;
  return stall;
}

double StallProcess::mean_seconds_per_byte() const {
  if (!enabled()) return 0;
  return median_s_ * std::exp(sigma_ * sigma_ / 2) / interval_bytes_;
}

}  // namespace sd
