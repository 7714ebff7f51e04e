// Synthetic measurements: the workloads a measurement run would do (block-size
// sweep, sustained write with idle gaps, fill sweep, buffered writes, read
// table), run against ModelDevice in virtual time with known parameters, plus
// seeded measurement noise. Used by the ground-truth tests and benchmarks of
// calibrate, and by tools/sd_synth_traces for the command-line tests.
#pragma once
#include "models/rng.h"
#include <cstdint>
#include <utility>
#include <vector>

#include "calibrate/inputs.h"
#include "calibrate/read_fit.h"
#include "models/model_device.h"
#include "models/trace.h"

namespace sd::cal {

struct Noise {
  double jitter = 0.02;  // relative standard deviation of each op's duration
  uint64_t seed = 1;
};

// Back-to-back direct writes of `count` blocks of each size, one file, after
// `precondition` bytes written unrecorded (to fill the burst cache first, as
// a careful measurement does).
Trace synth_block_sweep(const Profile& p, const std::vector<uint64_t>& sizes, size_t count, Noise n,
                        double precondition = 0);
// Direct writes of `block` until `total` bytes; `gaps` = (after this many
// bytes, idle seconds) pauses. Stalls come from the profile.
Trace synth_sustained(const Profile& p, uint64_t block, double total, const std::vector<std::pair<double, double>>& gaps,
                      Noise n);
// Direct writes of `block` issued every block/mbps seconds (a writer behind
// its schedule writes at once) for `seconds`: what a recorder meets (meta sweep=paced).
Trace synth_paced(const Profile& p, uint64_t block, double mbps, double seconds, Noise n);
// Direct writes of `block` until ENOSPC (the profile needs capacity_bytes).
Trace synth_fill(const Profile& p, uint64_t block, Noise n);
// Buffered writes of `block` until `total` bytes (meta direct=0).
Trace synth_buffered(const Profile& p, uint64_t block, double total, Noise n);
// Read cells (block x threads) predicted by the model, with multiplicative noise.
std::vector<RatePoint> synth_read_table(const ReadParams& p, const std::vector<double>& blocks, int max_threads, Noise n);

// Splitmix64 + Box-Muller: the same numbers on every platform.
class NoiseGen : public SplitMix64 {
 public:
  explicit NoiseGen(uint64_t seed) : SplitMix64(SplitMix64::seeded(seed, 1)) {}
};

}  // namespace sd::cal
