// A small seeded generator with hand-written transforms (splitmix64, Box-Muller),
// so a seed gives the same numbers on every platform and standard library
// (std::*_distribution do not promise that). Used by the stall process and by
// anything that must repeat exactly from a seed (synthetic traces).
#pragma once
#include <cmath>
#include <cstdint>

namespace sd {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state = 0) : state_(state) {}
  // Uniform in (0, 1): never 0, so log() is safe.
  double uniform() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  }
  // Standard normal, one value per call (Box-Muller; the twin is discarded).
  double normal() {
    double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace sd
