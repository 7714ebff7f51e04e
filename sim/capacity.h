// Capacity searches: the most channels (or the highest sample rate, or the
// smallest buffer) a profile records with no overrun and no early stop for
// the whole duration. Stalls are random, so a candidate passes only if every
// seed 1..seeds passes; the result also gives, per channel count, the
// fraction of seeds with at least one overrun. Each run is the recorder of
// sim/recorder.h on a fresh ModelDevice in virtual time; runs stop at the
// first overrun (a failing candidate costs little), passing ones run to the end.
//
// The search brackets the answer from the analytic sustained rate
// (models/analytic.h) and the device's free space, then bisects on whole
// channels (or to 1 % in rate and buffer). It assumes more channels, a higher
// rate or a smaller buffer never helps; the probe table shows where that
// fails to hold for a given set of seeds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"
#include "sim/recorder.h"

namespace sd {

enum class CapacityTarget { Channels, SampleRate, Buffer };

struct CapacityQuery {
  RecorderConfig base;      // the recording; the searched quantity is replaced
  CapacityTarget target = CapacityTarget::Channels;
  int seeds = 5;            // seeds 1..seeds (one run if the profile has no stalls)
  ModelOptions model;       // fill level etc.; its seed is replaced
  // Channel counts at which to report P(>=1 overrun); empty: a few around the answer.
  std::vector<uint32_t> probes;
  uint32_t max_channels = 100000;
  double max_buffer_bytes = 64.0 * (1ull << 30);
};

struct Probe {
  uint32_t channels = 0;
  int seeds_with_overrun = 0;  // seeds with >= 1 overrun or an early stop
  int seeds = 0;
  double probability() const { return seeds ? static_cast<double>(seeds_with_overrun) / seeds : 0; }
};

struct CapacityResult {
  // Channels: the count; SampleRate: frames/s; Buffer: bytes. 0 when even
  // the smallest candidate fails (found = false).
  double best = 0;
  bool found = false;
  bool at_search_limit = false;  // the search limit itself passed
  std::string limited_by;        // what stops the next candidate: "overruns", a stop reason
  double first_overrun_s = -1;   // in the failing neighbour's first failing seed, if an overrun
  std::vector<Probe> probes;     // Channels target only
  int seeds_used = 0;            // 1 when the profile has no stalls
  uint64_t runs = 0;             // simulations run
};

// True if any layer of the profile has random stalls (seeds matter).
bool has_stalls(const Profile& p);

Result<CapacityResult> find_capacity(const Profile& p, const CapacityQuery& q);

}  // namespace sd
