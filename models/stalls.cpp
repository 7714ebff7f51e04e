#include "models/stalls.h"

#include <cmath>

namespace sd {

StallProcess::StallProcess(const LayerParams& p, uint64_t seed)
    : interval_bytes_(p.get("stall_interval_mb") * 1e6),
      median_s_(p.get("stall_duration_ms") * 1e-3),
      sigma_(p.get("stall_duration_sigma")),
      state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {
  if (enabled()) draw_next();
}

double StallProcess::uniform() {
  // splitmix64: tiny, well mixed, identical everywhere.
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (static_cast<double>(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double StallProcess::normal() {
  // Box-Muller, one value per call (the twin is discarded for simplicity).
  double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

void StallProcess::draw_next() { until_next_ = -std::log(uniform()) * interval_bytes_; }

double StallProcess::on_bytes(uint64_t bytes) {
  if (!enabled()) return 0;
  double left = static_cast<double>(bytes);
  double stall = 0;
  while (left >= until_next_) {
    left -= until_next_;
    double d = median_s_ * (sigma_ > 0 ? std::exp(sigma_ * normal()) : 1.0);
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
