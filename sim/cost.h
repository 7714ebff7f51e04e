// The cost guard (issue 11 §5): before a simulation starts, an estimate of
// the work it will do (recorder writes, the model's device requests and
// metadata writes, stall draws) and of what it will hold in memory (one entry
// per file it creates). Requests that cannot finish in reasonable time are
// refused with the reason and the option to change; long but feasible ones
// run with a progress line (the commands show it on a terminal).
//
// The figures are upper bounds from the stream and the profile's parameters,
// not a simulation: a run that stops early (device full, an overrun in a
// capacity search) costs less.
#pragma once
#include <string>
#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"
#include "sim/recorder.h"

namespace sd {

struct RunCost {
  double data_bytes = 0;       // payload the run can write (stream x duration, within capacity)
  double recorder_writes = 0;  // write calls the recorder issues
  double device_requests = 0;  // requests the model computes (request_bytes splits, writeback chunks)
  double metadata_writes = 0;  // filesystem metadata writes (meta_every_bytes)
  double stall_draws = 0;      // stalls drawn (stall_interval_mb)
  double files = 0;            // files created (--split parts, one per channel...)
  // Model steps: what the CPU time is proportional to.
  double steps() const { return recorder_writes + device_requests + metadata_writes + stall_draws; }
  // The largest term and the option or parameter that sets it.
  std::string dominant() const;
};

// Steps the simulator takes per second: about 1e7 measured (simulate, 9e5
// writes of 4 KiB in 0.09 s of CPU on the 2-core CI machine); half that here
// so a loaded machine still finishes within the limit.
inline constexpr double kStepsPerSecond = 5e6;
inline constexpr double kMaxSeconds = 600;                      // refuse what would take longer
inline constexpr double kMaxSteps = kStepsPerSecond * kMaxSeconds;
// Each file a run creates costs ~500 B (measured: --split 128KiB at 640 MB/s
// grows the simulator by 2.2 MB per simulated second, 4,900 files); all are
// kept to the end (the model's sizes for capacity, the result's file list).
inline constexpr double kBytesPerFile = 500;
inline constexpr double kMaxFiles = 250000;  // ~125 MB

// One recorder run of `cfg` on `p` (simulate; one candidate of a capacity search).
RunCost estimate_recording(const Profile& p, const RecorderConfig& cfg, const ModelOptions& mo = {});

// Refuses a recording whose estimate is over the limits. `runs` multiplies
// the work (capacity: profiles x seeds x candidates); `runs_text` says where
// that factor comes from, for the message.
Status check_cost(const RunCost& one, double runs = 1, const std::string& runs_text = "");

// Candidates a spread search runs per seed: it starts at a known answer
// (sim/capacity_spread.h), so about the answer, its neighbour and one more.
inline constexpr int kSpreadCandidates = 3;

// The same for a whole capacity search over `profiles` with `seeds` seeds
// each (1 for profiles without stalls): the capacity command calls it before
// searching. `candidates` is the number of recordings one search runs per seed.
// `spread`: the spread's further searches (a profile once per search), at
// kSpreadCandidates candidates each.
Status check_capacity_cost(const std::vector<const Profile*>& profiles, const RecorderConfig& base, int seeds,
                           const ModelOptions& mo = {}, int candidates = 30,
                           const std::vector<const Profile*>& spread = {});

// Human figure for a duration estimate: "about 3 h".
std::string eta_text(double steps);

}  // namespace sd
