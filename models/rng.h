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
  // A generator for (seed, stream) whose draws share nothing with those of
  // any other pair. Starting at seed * golden instead would make seed s + 1
  // the stream of seed s shifted by one draw (splitmix64 advances its state
  // by the same constant), so "independent" seeded runs drew the same stalls.
  static SplitMix64 seeded(uint64_t seed, uint64_t stream = 0) {
    return SplitMix64(mix(mix(seed + 0x632BE59BD9B4E019ull) ^ (stream * 0xA0761D6478BD642Full + 0x8CB92BA72F3D8DD7ull)));
  }
  // splitmix64's output function: a bijection that scatters nearby inputs.
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1): never 0, so log() is safe.
  double uniform() {
    uint64_t z = mix(state_ += 0x9E3779B97F4A7C15ull);
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
