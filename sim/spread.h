// Answers with their spread. A profile's estimated parameters carry ranges
// (ParamValue::range, docs/profiles.md "Ranges"); this propagates them
// through any answer computed from a profile (a capacity search, an overrun
// count, a sustained rate) by corner bounds:
//
//   1. the answer at the profile's own values: the most likely answer;
//   2. each ranged parameter alone at the low and at the high end of its range
//      (the others at their values): its effect, the sensitivity;
//   3. every parameter that moved the answer at the end that lowered it, then
//      at the end that raised it: the two corners.
//
// The reported range spans every answer computed (2k + 3 for k parameters).
// It assumes each parameter moves the answer one way across its range (true
// of every cost and stall parameter of the model: more cost, fewer channels);
// a parameter that does not is still caught by its own two ends. Ranges
// carry no probabilities, so the range is "what the observations allow", not
// a confidence interval. The same seeds serve every evaluation (common random
// numbers), so a difference between two of them is the parameters', not luck.
//
// Evaluations come in batches (the callback gets every profile of a stage at
// once) so a caller can run them in parallel, e.g. find_capacities on the
// shared thread pool.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/profile.h"
#include "models/status.h"

namespace sd {

struct RangedParam {
  Layer layer = Layer::Device;
  std::string key;
  double value = 0, lo = 0, hi = 0;
  std::string name() const;  // "filesystem.stall_duration_ms"
};

// The parameters of `p` with a range wider than a point, that can change a
// recording (the read-side parameters cannot, and are left out).
std::vector<RangedParam> ranged_params(const Profile& p);

// A copy of `p` with one parameter at `v` (kept as a profile value, so its
// origin and source stay as they were).
Profile with_value(const Profile& p, const RangedParam& r, double v);

struct ParamEffect {
  RangedParam param;
  double at_lo = 0, at_hi = 0;  // the answer with this parameter alone at either end
  double swing(double nominal) const;  // max |answer - nominal| over both ends
};

struct Spread {
  double nominal = 0;  // at the profile's own values: the most likely answer
  double low = 0, high = 0;
  std::vector<ParamEffect> effects;  // every ranged parameter, largest swing first
  int evaluations = 0;
  // The parameter whose measurement narrows the answer most (the largest
  // swing), or nullptr when no parameter moves the answer.
  const ParamEffect* decisive() const;
  double corner_low = 0, corner_high = 0;  // the two corners' answers
};

// The two stages as data, so a caller can batch many profiles' evaluations
// into one parallel run (capacity over a set of profiles):
//   SpreadRun run(p);  answers1 = eval(run.stage1());  run.take_stage1(answers1);
//   answers2 = eval(run.stage2());  Spread s = run.finish(answers2);
class SpreadRun {
 public:
  explicit SpreadRun(const Profile& p);
  const std::vector<Profile>& stage1() const { return stage1_; }  // nominal, then lo/hi per parameter
  void take_stage1(const std::vector<double>& answers);           // one per stage1() profile
  const std::vector<Profile>& stage2() const { return stage2_; }  // the two corners, or none
  Spread finish(const std::vector<double>& answers);              // one per stage2() profile

 private:
  std::vector<Profile> stage1_, stage2_;
  std::vector<double> answers1_;
  Spread s_;
};

// Evaluates the answer for each profile of a batch, in order.
using BatchAnswer = std::function<Result<std::vector<double>>(const std::vector<const Profile*>&)>;

Result<Spread> propagate(const Profile& p, const BatchAnswer& answer);

// "corner bounds: each of the 12 estimated parameters at either end of its
// range, then all at their low-answer and high-answer ends (27 runs)"
std::string spread_method(const Spread& s);

// Where a user measures this parameter on their own hardware, e.g.
// "streamdisk characterize, phases paced-0.3/0.5/0.7 (per-write pauses)".
std::string measuring_step(const RangedParam& r);

}  // namespace sd
