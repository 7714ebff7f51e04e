// Capacity searches: the most channels (or the highest sample rate, or the
// smallest buffer) a profile records under an explicit criterion:
//
//   P(>= 1 overrun or an early stop over the whole recording) < level
//
// (default 5 %). Stalls are the only randomness, so a profile without random
// stalls needs one run per candidate and its answer is exact. With stalls,
// each candidate runs seeds 1, 2, ... (the same seeds for every candidate)
// and counts the runs with an overrun; sim/overrun_stats.h turns k of n into
// Clopper-Pearson bounds and settles the candidate as soon as its interval
// lies entirely below or above the level (sequential early stopping), or
// decides by the estimate k / n when max_seeds run out (an "open" candidate).
// The answer's band spans the open candidates around it. Runs stop at their
// first overrun, so failing candidates cost little; a candidate that passes
// needs at least 59 clean full-length runs at 5 % and 95 % confidence.
// docs/capacity.md states the rule and its caveats for users.
//
// Seeds run in parallel on a SeedPool (sim/seed_pool.h); the outcome is
// consumed in seed order, so the answer does not depend on the thread count.
// A profile without random stalls has one run per candidate: there the
// search runs each candidate together with both candidates that may follow
// it (speculation; the one not needed is a wasted run), and takes the
// outcomes in its own order, so again nothing depends on the thread count.
//
// The search brackets the answer from the analytic sustained rate
// (models/analytic.h) and the device's free space, then bisects on whole
// channels (or to 1 % in rate and buffer). It assumes more channels, a higher
// rate or a smaller buffer never helps; the probe table shows where that
// fails to hold.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"
#include "sim/overrun_stats.h"
#include "sim/recorder.h"

namespace sd {

enum class CapacityTarget { Channels, SampleRate, Buffer };

struct CapacityCriterion {
  double max_overrun_probability = 0.05;  // the level P(>=1 overrun) must stay below
  double confidence = 0.95;               // of each one-sided Clopper-Pearson bound
  int max_seeds = 200;                    // seeds per candidate at most (profiles with stalls)
  bool early_stop = true;                 // false: every candidate runs all max_seeds
};

struct CapacityQuery {
  RecorderConfig base;      // the recording; the searched quantity is replaced
  CapacityTarget target = CapacityTarget::Channels;
  CapacityCriterion criterion;
  ModelOptions model;       // fill level etc.; its seed is replaced
  // Channel counts at which to report P(>=1 overrun); empty: the counts the
  // search tried around the answer (no extra runs).
  std::vector<uint32_t> probes;
  uint32_t max_channels = 100000;
  double max_buffer_bytes = 64.0 * (1ull << 30);
  // What is enough (capacity --enough): the search goes no further, so the
  // most channels or the highest rate it tries is this, the smallest buffer
  // this (in the target's units; 0: no such limit). An answer there is "at
  // least" (at most, for a buffer) and says so (CapacityResult::reached_enough):
  // a buyer who needs 24 channels learns that an SSD records 48 from one
  // 48-channel recording, not from a search up to the 1,900 it could.
  double enough = 0;
  unsigned threads = 0;     // 0 = every core (std::thread::hardware_concurrency)
  // Where the search starts: 0 = the analytic sustained rate (the answer if
  // nothing but the rate mattered). A caller that knows a nearby answer (the
  // spread, sim/capacity_spread.h) passes it: the search then needs about two
  // candidates. Whole-number targets (channels) find the same answer from any
  // start as long as more channels never help; real-valued ones (rate,
  // buffer) stop at 1 %, so their answer may move within that 1 %.
  double guess = 0;
  // Only the answer matters (the spread's searches): a candidate's seeds stop
  // as soon as its verdict is certain (sim/overrun_stats.h certain_verdict),
  // even before its bounds settle. `best` is exactly the full rule's; the
  // candidates' statistics, the band and the probes then rest on fewer seeds.
  bool verdict_only = false;
  // Common random numbers (the spread's searches, channels only): seed s
  // draws the same pauses at every candidate, so a seed clean at c channels
  // is taken as clean at fewer, and one that overran at c as overrunning at
  // more, without running it again. Exact for `best` as long as no single
  // seed does better with more channels (a verdict monotone per seed, the
  // search's own assumption made per seed); tests/unit/capacity_spread_test
  // compares it with the plain computation on every built-in profile. The
  // candidates' statistics then count inferred seeds, and a failing
  // candidate's reason may come from a seed's run at more channels.
  bool same_seeds = false;
  // A channel search on a profile without random stalls aims each candidate
  // from the failing runs' first-overrun times (the time to the first overrun
  // falls as channels grow: 1 / time is close to linear in the channel count,
  // as when a cache or a backlog fills at the excess rate), instead of
  // stepping and bisecting blindly. It finds the same answer as long as more
  // channels never help (the assumption the search makes anyway), in fewer
  // runs; the candidates tried differ. false: the plain bracket and bisection.
  bool interpolate = true;
  // Seeds likely to overrun at a candidate: 1-based seeds by candidate
  // value (the spread passes the seeds that overran at that value in the
  // profile's other searches). With verdict_only on a profile with random
  // stalls, a listed candidate runs those seeds first; if their overruns
  // alone fail it under the rule, whatever the other seeds would say
  // (sim/overrun_stats.h fails_whatever_else), it fails without the clean
  // full-length runs the in-order rule needs to get there. The seeds were
  // run, not inferred, so the verdict is the in-order rule's; only which
  // seeds ran differs. Otherwise their outcomes serve the in-order pass.
  std::map<double, std::vector<int>> likely_failing;
};

// What the seeds said about one candidate.
struct CandidateStats {
  double value = 0;            // channels, frames/s or bytes
  int seeds_with_overrun = 0;  // runs with >= 1 overrun or an early stop
  int seeds = 0;               // runs counted (seeds 1..seeds)
  Interval p;                  // bounds on P(>=1 overrun); exact [0,0] or [1,1] without stalls
  Side side = Side::Open;      // settled below / above the level, or open at the seed cap
  bool pass = false;           // meets the criterion (below, or open with estimate <= level)
  std::string reason;          // of the first failing seed: "overruns" or a stop reason
  double first_overrun_s = -1; // in the first failing seed, if an overrun
  std::vector<int> failing_seeds;  // the seeds (1-based) counted with an overrun, ascending
  double probability() const { return seeds ? static_cast<double>(seeds_with_overrun) / seeds : 0; }
};

struct Probe {
  uint32_t channels = 0;
  CandidateStats stats;
  int seeds_with_overrun() const { return stats.seeds_with_overrun; }
  int seeds() const { return stats.seeds; }
  double probability() const { return stats.probability(); }
};

struct CapacityResult {
  // Channels: the count; SampleRate: frames/s; Buffer: bytes. 0 when even
  // the smallest candidate fails (found = false).
  double best = 0;
  bool found = false;
  bool at_search_limit = false;  // the search limit itself passed
  bool reached_enough = false;   // ... and that limit was CapacityQuery::enough: the answer is at least that
  std::string limited_by;        // what stops the next candidate: "overruns", a stop reason
  double first_overrun_s = -1;   // in the failing neighbour's first failing seed, if an overrun
  CandidateStats at_best;        // the answer's own statistics
  // The band: the answer and every open candidate (interval straddling the
  // level) the search met; equal to best when everything was settled.
  double band_low = 0, band_high = 0;
  std::vector<CandidateStats> candidates;  // every candidate evaluated, in search order
  std::vector<Probe> probes;     // Channels target only
  bool stalls = false;           // the profile has random stalls (seeds matter)
  int max_seeds = 1;             // seeds a candidate may use: 1 without stalls
  uint64_t runs = 0;             // simulations counted
  uint64_t inferred_seeds = 0;   // seeds counted without a run (CapacityQuery::same_seeds)
  uint64_t wasted_runs = 0;      // run in parallel but never needed (a settled candidate's extra seeds,
                                 // a speculative candidate the search did not ask for)
  double simulated_s = 0;        // virtual seconds simulated, wasted runs included
  unsigned threads = 1;
};

// The value an answer at CapacityQuery::enough has, in the target's units:
// whole channels (at least 1), the rate itself, a buffer of whole frames of
// `frame_bytes` (the buffer search's answers are rounded up to them). The
// search, its cost estimate and the tables that mark such an answer all take
// the limit from here.
double enough_limit(CapacityTarget t, double enough, double frame_bytes);

// True if seeds matter: any layer has random stalls, or the host layer has
// kernel timers whose phase each seed draws (HostCache).
bool has_stalls(const Profile& p);

// The criterion in words, for tables and JSON: "P(>=1 overrun in 1 h 30 min) < 5 %".
std::string criterion_text(const CapacityCriterion& c, double duration_s);

// Checks the criterion's numbers; messages name the option.
Status check_criterion(const CapacityCriterion& c);

Result<CapacityResult> find_capacity(const Profile& p, const CapacityQuery& q);

// Several searches at once (profile i with query i), `threads` at a time (0:
// every core), each still running its seeds on every core: a set of profiles
// without stalls (one run per candidate) then uses the cores too. Results come
// in input order and equal find_capacity's one by one.
std::vector<Result<CapacityResult>> find_capacities(const std::vector<const Profile*>& profiles,
                                                    const std::vector<CapacityQuery>& queries, unsigned threads = 0);

}  // namespace sd
