// The statistics behind capacity's criterion: "P(>=1 overrun over the whole
// recording) < level", judged from k runs with an overrun out of n seeds.
//
// Each seed is one Bernoulli trial (stalls are the only randomness; seed s
// always draws the same stalls). From k of n we form exact (Clopper-Pearson)
// one-sided bounds at `confidence` each: the upper bound U is the p at which
// k or fewer overruns in n runs would happen with probability 1 - confidence,
// the lower bound L the p at which k or more would. [L, U] is therefore a
// two-sided interval at 2 * confidence - 1 (90 % for 95 % bounds).
//
// A candidate is settled once its interval is entirely on one side of the
// level: U < level (below: it meets the criterion), L > level (above: it
// does not). With no overrun that takes n >= ln(1 - confidence) / ln(1 -
// level) seeds: 59 for 5 % at 95 %. Candidates whose interval still straddles
// the level when the seed budget runs out are decided by the estimate k / n
// and reported as open: the answer's band is made of them.
//
// Checking after every seed (sequential early stopping) makes the real error
// rate of a settled decision somewhat larger than 1 - confidence; docs/
// capacity.md explains why that is acceptable here and what it costs.
#pragma once
#include <vector>

namespace sd {

// P(X <= k) for X ~ Binomial(n, p); 1 for k >= n, 0 for k < 0.
double binomial_cdf(int k, int n, double p);

struct Interval {
  double low = 0, high = 1;
};
// One-sided Clopper-Pearson bounds on p from k successes in n trials, each
// at `confidence` (0.5..1). n = 0 gives [0, 1].
Interval clopper_pearson(int k, int n, double confidence);

enum class Side { Below, Above, Open };
// Where the interval of clopper_pearson(k, n, confidence) lies against
// `level`, computed without solving for the bounds.
Side compare_to_level(int k, int n, double level, double confidence);

// Fewest seeds that can settle a candidate as below `level` (no overrun in all of them),
// at most INT_MAX / 3 (a tinier level gets that).
int seeds_to_settle_below(double level, double confidence);

// The verdict capacity's rule would reach for a candidate with k overruns in
// its first n seeds, if the seeds still to run (up to max_seeds) cannot change
// it: false (fails the criterion) once k / max_seeds > level and no number of
// further clean seeds can settle it below; true (meets it) once even an
// overrun in every remaining seed would neither settle it above nor lift the
// estimate at max_seeds past the level. Otherwise (the usual case) -1. The
// rule: stop at the first n whose interval lies on one side of the level,
// else decide by k / max_seeds at max_seeds (sim/capacity.h).
int certain_verdict(int k, int n, int max_seeds, double level, double confidence);

// True if the rule above fails a candidate whatever the seeds not run say,
// knowing only that the seeds in `failing` (1-based, ascending, none past
// max_seeds) overrun: more than level * max_seeds of them, and no prefix of
// seeds 1..m can settle below the level even with every other seed clean
// (the best case: more overruns never settle a prefix below). The seeds
// likely to fail can then run first, out of order (sim/capacity.h,
// CapacityQuery::likely_failing), with the verdict the in-order rule gives.
bool fails_whatever_else(const std::vector<int>& failing, int max_seeds, double level, double confidence);

}  // namespace sd
