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
#include "sim/capacity.h"
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

// A capacity search's expected work, calibrated against measured searches
// (bench/sim_bench cost: the estimate against the CPU time measured, printed
// as a ratio). A search costs about `recordings` full-length recordings of
// `one`, the recording at the rate its answer is expected near: the analytic
// sustained rate, or lower when pauses reach the writer (a userspace driver's,
// or any with O_DIRECT): a long pause (median x e^(2 sigma)) must fit in the
// ring's room, (buffer - block) / rate. Failing candidates stop at their first
// overrun, so the recordings are counted in full-length equivalents.
struct SearchEstimate {
  double recordings = 0;  // full-length recordings of `one`
  RunCost one;
  RecorderConfig recording;  // `one`'s recording (at the rate the answer is expected near)
  // Steps of `one` when a pilot measured them (piloted_steps), else negative: one.steps().
  double one_steps = -1;
  double steps() const { return recordings * (one_steps >= 0 ? one_steps : one.steps()); }
  double cpu_seconds() const;  // at kSearchStepsPerSecond
};

// Model steps a capacity search's recordings take per CPU second: 2-3e7
// measured over the built-in profiles' searches (bench/sim_bench cost; 6e7 on
// exfat-fuse's many small requests), more than simulate's kStepsPerSecond
// (4 KiB writes through every layer).
inline constexpr double kSearchStepsPerSecond = 2e7;

// Full-length recordings per search, measured (bench/sim_bench cost and
// spread): a search with random stalls runs up to max_seeds seeds at its
// answer and at the next candidate, most of them whole (document 003's stack,
// 1.5 h at 24 bits: 196 runs, 184 recordings' worth, at max_seeds 200); a
// spread's search starts next to a known answer, stops seeds once the verdict
// is certain and carries seeds' verdicts between candidates. Without stalls a
// search is one run per candidate, most of them stopped early or settled by
// free space (1-3 recordings' worth; 8 for samsung-870qvo-4t's cache cliff).
inline constexpr double kStallSearchSeedShare = 1.0;        // x max_seeds
inline constexpr double kStallSpreadSearchSeedShare = 0.7;  // x max_seeds
inline constexpr double kPlainSearchRecordings = 3;
// A real-valued target (--find sample-rate or buffer, characterize's
// headline) narrows its answer to 1 % by bisection: more candidates, several
// of them near the answer where every seed runs. Measured (bench/sim_bench
// cost FILE...: the rig profiles of bench/rig_truth.s13 and s14, 60 s raw at
// 4 MiB and 1 MiB, with the spread): 1.5-5.1 x max_seeds recordings per
// search with random stalls, up to 9 without.
inline constexpr double kStallRealSearchSeedShare = 5.0;  // x max_seeds
inline constexpr double kPlainRealSearchRecordings = 9;

// The simulator steps over steady stretches (a block's one write appended
// like the one before, sim/recorder.cpp Run::step): such a write costs about
// 0.3 (the exfat-fuse stacks' at-once stretches, 13 ns) to 0.8 (an SSD's
// writeback behind each write, 39 ns) of a step at kSearchStepsPerSecond,
// where estimate_recording prices every write with all its requests. Which
// writes are stepped over only the model knows, so a pilot asks it: the
// first part of the recording (about kPilotSteps of the estimate's steps, seed
// 1, not stopped at an overrun) run through the simulator; its writes through
// the model are priced as estimate_recording prices them, its stepped-over
// ones at kSteppedWriteSteps, scaled to the whole recording's bytes, plus
// kStallEventWrites writes through the model for each stall drawn (a pause
// ends a stretch). Never above one.steps(). Deterministic (virtual time).
inline constexpr double kSteppedWriteSteps = 0.8;
inline constexpr double kPilotSteps = 1e6;
inline constexpr double kStallEventWrites = 16;
double piloted_steps(const Profile& p, const RecorderConfig& c, const RunCost& one, const ModelOptions& mo = {});

// One search of `base` (the searched quantity aside) on `p` with seeds up to
// `max_seeds` (the criterion's); `spread_search`: one of the spread's searches
// (sim/capacity_spread.h). `enough`: CapacityQuery::enough (the search goes
// no higher than that many channels or that sample rate; 0: no such limit).
SearchEstimate estimate_capacity_search(const Profile& p, const RecorderConfig& base, int max_seeds,
                                        bool spread_search, const ModelOptions& mo = {},
                                        CapacityTarget target = CapacityTarget::Channels, double enough = 0);

// The estimate for the whole `capacity` command: a search per profile and,
// with `spread`, the spread's 2k + 2 further searches per profile (k: the
// profile's ranged parameters), in CPU seconds. `pilot`: each profile's
// recording priced by piloted_steps (a pilot run per profile: costs a little
// CPU, so only asked for when the plain estimate is over the limit).
// `stop_above`: the profiles go dearest first (by the plain estimate), and
// the sum is returned as soon as it passes this (then only a lower bound:
// `*partial` is set), so a refusal need not pilot every profile.
double capacity_command_seconds(const std::vector<const Profile*>& profiles, const RecorderConfig& base, int max_seeds,
                                bool spread, const ModelOptions& mo = {},
                                CapacityTarget target = CapacityTarget::Channels, bool pilot = false,
                                double stop_above = INFINITY, bool* partial = nullptr, double enough = 0);

// Refuses the command when that estimate is over the limit (or one recording
// is), with the reason and the option to change. The plain estimate first;
// over the limit, the piloted one decides (long recordings of steady
// stretches cost far less than every write priced: the 24 h buyer's table).
Status check_capacity_cost(const std::vector<const Profile*>& profiles, const RecorderConfig& base, int max_seeds,
                           bool spread, const ModelOptions& mo = {},
                           CapacityTarget target = CapacityTarget::Channels, double enough = 0);

// Human figure for a duration estimate: "about 3 h".
std::string eta_text(double steps);

}  // namespace sd
