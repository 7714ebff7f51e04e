#include "sim/overrun_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sd {

double binomial_cdf(int k, int n, double p) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  // Terms in logs: n is at most a few thousand seeds, so a direct sum is exact enough.
  double lp = std::log(p), lq = std::log1p(-p), lgn = std::lgamma(n + 1.0), sum = 0;
  for (int i = 0; i <= k; ++i)
    sum += std::exp(lgn - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * lp + (n - i) * lq);
  return std::min(1.0, sum);
}

namespace {

// The p in [0, 1] where f (monotone decreasing in p) equals target, by bisection.
template <class F>
double solve_decreasing(F f, double target) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    double mid = (lo + hi) / 2;
    (f(mid) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

Interval clopper_pearson(int k, int n, double confidence) {
  if (n <= 0) return {0, 1};
  k = std::clamp(k, 0, n);
  double tail = 1 - confidence;
  Interval out;
  // Upper: P(X <= k | U) = tail. Lower: P(X >= k | L) = tail, i.e. P(X <= k-1 | L) = 1 - tail.
  out.high = k >= n ? 1 : solve_decreasing([&](double p) { return binomial_cdf(k, n, p); }, tail);
  out.low = k <= 0 ? 0 : solve_decreasing([&](double p) { return binomial_cdf(k - 1, n, p); }, 1 - tail);
  return out;
}

Side compare_to_level(int k, int n, double level, double confidence) {
  if (n <= 0) return Side::Open;
  double tail = 1 - confidence;
  // U < level  <=>  P(X <= k | level) < tail (the cdf falls as p grows).
  if (k < n && binomial_cdf(k, n, level) < tail) return Side::Below;
  // L > level  <=>  P(X >= k | level) < tail.
  if (k > 0 && 1 - binomial_cdf(k - 1, n, level) < tail) return Side::Above;
  return Side::Open;
}

int seeds_to_settle_below(double level, double confidence) {
  if (level <= 0 || level >= 1) return 1;
  // Smallest n with (1 - level)^n < 1 - confidence; a level so small that n
  // passes a third of INT_MAX (below about 4e-9 at 95 %) gets that, so the
  // int (and the callers' 3 * n) cannot overflow: the cost guard refuses so
  // many seeds, and a profile without stalls takes one exact run anyway.
  constexpr int kMax = std::numeric_limits<int>::max() / 3;
  double want = std::ceil(std::log(1 - confidence) / std::log1p(-level));
  if (!(want < kMax)) return kMax;
  int n = static_cast<int>(want);
  while (n < kMax && std::pow(1 - level, n) >= 1 - confidence) ++n;
  return std::max(1, n);
}

int certain_verdict(int k, int n, int max_seeds, double level, double confidence) {
  if (n >= max_seeds) return -1;  // the rule itself decides now
  // Fewer overruns never make a candidate fail, and the chance of reaching
  // "below" only grows with more clean seeds (the binomial cdf falls in n):
  // the all-clean continuation is the candidate's best, checked at its end.
  if (k > level * max_seeds && compare_to_level(k, max_seeds, level, confidence) != Side::Below) return 0;
  // The all-overrun continuation is its worst: more overruns at every n
  // (settling "above" only grows with k).
  int worst = k + (max_seeds - n);
  if (worst <= level * max_seeds) {
    for (int m = n + 1; m <= max_seeds; ++m)
      if (compare_to_level(k + (m - n), m, level, confidence) == Side::Above) return -1;
    return 1;
  }
  return -1;
}

bool fails_whatever_else(const std::vector<int>& failing, int max_seeds, double level, double confidence) {
  if (!(static_cast<double>(failing.size()) > level * max_seeds)) return false;  // all-clean rest: k / max <= level
  size_t f = 0;  // failing seeds among the first m
  for (int m = 1; m <= max_seeds; ++m) {
    while (f < failing.size() && failing[f] <= m) ++f;
    if (compare_to_level(static_cast<int>(f), m, level, confidence) == Side::Below) return false;
  }
  // No prefix settles below, so the rule stops above, or reaches max_seeds
  // (or a certain verdict, which is the same) with more than level * max_seeds overruns.
  return true;
}

}  // namespace sd
