// Occasional long pauses (flash garbage collection, a userspace driver's
// flush). Stalls arrive as a Poisson process in bytes written (mean
// `interval_mb` MB between them) and last a log-normal time (median, sigma).
// Drawn from a seeded generator with hand-written transforms, so the same seed
// gives the same stalls on every platform and standard library.
#pragma once
#include <cstdint>

#include "models/params.h"
#include "models/rng.h"

namespace sd {

class StallProcess {
 public:
  StallProcess() = default;
  // Reads stall_interval_mb, stall_duration_ms, stall_duration_sigma of `p`.
  StallProcess(const LayerParams& p, uint64_t seed);
  // Seconds of stall incurred while writing the next `bytes` bytes.
  double on_bytes(uint64_t bytes);
  bool enabled() const { return interval_bytes_ > 0 && median_s_ > 0; }
  // Expected stall seconds per byte written (for steady-state rates).
  double mean_seconds_per_byte() const;
  uint64_t count() const { return count_; }
  double total_seconds() const { return total_s_; }
  void disable() { interval_bytes_ = 0; }

 private:
  void draw_next();

  double interval_bytes_ = 0;
  double median_s_ = 0;
  double sigma_ = 0;
  SplitMix64 rng_;
  double until_next_ = 0;     // bytes until the next stall
  uint64_t count_ = 0;
  double total_s_ = 0;
};

}  // namespace sd
