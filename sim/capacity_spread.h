// Capacity answers with their spread: sim/spread.h's corner bounds (the
// answer with each estimated parameter at either end of its range, then at
// the two corners: 2k + 3 searches for k parameters) computed with
// find_capacities, every profile's searches of a stage in one parallel batch.
//
// The searches are the costly part (a profile with random stalls needs 59 to
// 200 full-length seeds at the candidates around its answer), so by default
// the spread takes five shortcuts; each leaves the answers as they were:
//
//   reuse       the nominal answer comes from the caller's own search, and a
//               profile whose ranged values equal one already searched (a
//               value at an end of its range, a corner equal to a single
//               parameter's end) takes that answer: the same profile and
//               seeds give the same answer. Exact.
//   no probes   the spread's searches report nothing but `best`, so --probe
//               counts are not evaluated in them. Exact.
//   verdict     a candidate's seeds stop once its verdict is certain
//               (CapacityQuery::verdict_only). Exact for `best`.
//   near start  a channel search on a profile with random stalls starts at
//               the answer nearest to it: a parameter's ends at the nominal
//               answer, the low corner at the lowest answer of stage 1, the
//               high corner at the highest (CapacityQuery::guess); it then
//               needs about two candidates instead of a bracket from the
//               analytic rate. From any start the search finds the same
//               boundary as long as its verdict is monotone in the channel
//               count; with stalls a non-monotone verdict comes from seeds
//               near the level, so the answer stays within the band the
//               plain search reports. Not used without stalls (runs are cheap
//               there) nor for rates and buffers: a device cache cliff makes
//               those verdicts non-monotone (the 960 EVO's op_overhead_us end
//               gave 1949 channels from the nominal start against 1969 from
//               the analytic one, in a 5 min test recording), and the plain
//               search's path is the reference. tests/unit/
//               capacity_spread_test.cpp and bench/sim_bench spread compare
//               both ways on the built-in profiles.
//
//   same seeds  (with near start) a seed's verdicts carry over between the
//               candidates of one search: clean at c channels means clean at
//               fewer, an overrun at c means one at more
//               (CapacityQuery::same_seeds). The search then starts one above
//               the known answer: the candidate above the answer is the one
//               that needs the most seeds (its P lies just over the level),
//               and every seed clean there is clean at the answer too, so the
//               answer itself costs few new runs. Exact as long as no seed
//               does better with more channels (the monotonicity the search
//               assumes, per seed); compared with the plain computation on
//               every built-in profile (tests).
//
//   failing first  (with same seeds) each search is told which seeds
//               overran at each channel count in the profile's searches so
//               far (the nominal one first): a candidate runs those first,
//               and when their overruns alone fail it whatever the other
//               seeds say, it fails on them (CapacityQuery::likely_failing).
//               The candidate above the answer, whose P lies just over the
//               level, then costs the dozen seeds that overrun instead of the
//               ~120 clean full-length ones the in-order rule runs before
//               its 11th overrun. Exact: the seeds were run at this profile,
//               and the rule's verdict does not depend on the seeds not run.
//
// SpreadShortcuts turns them off one by one: all off is the plain
// computation (propagate() over find_capacities), which tests compare with.
#pragma once
#include <vector>

#include "models/profile.h"
#include "models/status.h"
#include "sim/capacity.h"
#include "sim/spread.h"

namespace sd {

struct SpreadShortcuts {
  bool reuse = true;
  bool no_probes = true;
  bool verdict_only = true;
  bool near_start = true;
  bool same_seeds = true;
  bool failing_first = true;
  static SpreadShortcuts none() { return {false, false, false, false, false, false}; }
};

struct SpreadCost {
  uint64_t searches = 0;  // find_capacity calls run
  uint64_t reused = 0;    // answers taken from an identical profile's search
  uint64_t runs = 0;      // recordings simulated (CapacityResult::runs summed)
  double simulated_s = 0; // virtual seconds simulated (CapacityResult::simulated_s summed)
};

// The spread of profile i's answer under query i. `nominal`: the caller's own
// results of the same queries (find_capacities), or null to search them here;
// an entry that is an error fails the whole call with its message. An answer
// that finds nothing counts as 0. `cost`, if given, receives what was run.
Result<std::vector<Spread>> capacity_spreads(const std::vector<const Profile*>& profiles,
                                             const std::vector<CapacityQuery>& queries,
                                             const std::vector<Result<CapacityResult>>* nominal, unsigned threads = 0,
                                             SpreadShortcuts shortcuts = {}, SpreadCost* cost = nullptr);

}  // namespace sd
