// Closed-form questions about a profile, answered with the same layer code the
// simulator uses (a short stall-free run of the layers in a fixed cache state,
// plus the expected stall time per byte), so they cannot drift from it.
#pragma once
#include "models/profile.h"

namespace sd {

enum class Phase { Burst, Sustained };

// Steady write rate (bytes/s) for back-to-back sequential writes of
// `block_bytes`, with the burst cache empty (Burst) or full (Sustained), at
// fill level `fill` (0..1). `direct`: O_DIRECT, bypassing the host page cache;
// otherwise, with a host cache, the rate once the cache is full.
double write_rate(const Profile& p, double block_bytes, Phase phase, bool direct, double fill = 0);

struct BurstExhaustion {
  bool never = false;  // the input rate is slow enough for the cache to keep up
  double seconds = 0;  // until the burst cache is full
  double bytes = 0;    // written by then
};
// How long a stream of `input_rate` bytes/s in `block_bytes` writes (direct)
// runs before the burst cache is exhausted. input_rate = infinity means
// writing as fast as the device takes it.
BurstExhaustion burst_exhaustion(const Profile& p, double input_rate, double block_bytes);

}  // namespace sd
