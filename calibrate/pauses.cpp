#include "calibrate/pauses.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "calibrate/fit.h"
#include "models/rng.h"
#include "sim/overrun_stats.h"

namespace sd::cal {
namespace {

// Rolling median of `v` over a centred window of `w` points.
std::vector<double> rolling_median(const std::vector<double>& v, size_t w) {
  std::vector<double> out(v.size()), buf;
  size_t half = w / 2;
  for (size_t i = 0; i < v.size(); ++i) {
    size_t lo = i > half ? i - half : 0, hi = std::min(v.size(), i + half + 1);
    if (hi - lo < w && v.size() >= w) {  // keep the window full at the ends
      if (lo == 0) hi = w;
      else lo = v.size() - w;
    }
    buf.assign(v.begin() + static_cast<long>(lo), v.begin() + static_cast<long>(hi));
    auto mid = buf.begin() + static_cast<long>(buf.size() / 2);
    std::nth_element(buf.begin(), mid, buf.end());  // upper median: windows are odd-sized
    out[i] = *mid;
  }
  return out;
}

// How far above the baseline a write must be to count as part of a pause.
constexpr double kJitterSds = 8;      // robust standard deviations of the ordinary jitter
constexpr double kMinOpFraction = 0.5;  // of the write's own expected time
constexpr double kMinPauseS = 1e-3;   // below this no buffer notices
constexpr size_t kLevelShiftRun = 16;  // consecutive slow writes: a new rate, not a pause
constexpr size_t kRhythm = 10;         // more than one write in this many slow: a rhythm, not pauses
constexpr size_t kTooFew = 5;
constexpr double kMinAkaikeWeight = 0.05;  // an arrival law less likely than this is dropped
// A two-population mixture of durations needs this many (3+ in each population):
// a short jitter-like group and a few long pauses must not become one wide
// log-normal whose tail invents multi-second stalls.
constexpr size_t kMixtureMin = 6;

double norm_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double norm_logpdf(double x, double mu, double sd) {
  double z = (x - mu) / sd;
  return -0.5 * z * z - std::log(sd) - 0.5 * std::log(2 * M_PI);
}

struct Component {
  double w = 1, mu = 0, sd = 1;
};

double mix_loglik(const std::vector<double>& x, const std::vector<Component>& c) {
  double ll = 0;
  for (double v : x) {
    double p = 0;
    for (const auto& k : c) p += k.w * std::exp(norm_logpdf(v, k.mu, k.sd));
    ll += std::log(std::max(p, 1e-300));
  }
  return ll;
}

Component one_normal(const std::vector<double>& x) {
  Component c;
  double n = static_cast<double>(x.size());
  c.mu = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double ss = 0;
  for (double v : x) ss += (v - c.mu) * (v - c.mu);
  c.sd = std::max(std::sqrt(ss / n), 0.01);
  return c;
}

// Two-component normal mixture of ln(duration) by EM, started from the
// widest gap in the sorted values (each side keeps at least 3 points).
std::vector<Component> two_normals(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  size_t n = x.size(), cut = n / 2;
  double widest = -1;
  for (size_t i = 3; i + 3 <= n; ++i)
    if (x[i] - x[i - 1] > widest) widest = x[i] - x[i - 1], cut = i;
  std::vector<Component> c = {one_normal({x.begin(), x.begin() + static_cast<long>(cut)}),
                               one_normal({x.begin() + static_cast<long>(cut), x.end()})};
  c[0].w = static_cast<double>(cut) / static_cast<double>(n), c[1].w = 1 - c[0].w;
  std::vector<double> r(n);
  for (int it = 0; it < 300; ++it) {
    for (size_t i = 0; i < n; ++i) {
      double p0 = c[0].w * std::exp(norm_logpdf(x[i], c[0].mu, c[0].sd));
      double p1 = c[1].w * std::exp(norm_logpdf(x[i], c[1].mu, c[1].sd));
      r[i] = p0 + p1 > 0 ? p0 / (p0 + p1) : 0.5;
    }
    for (int k = 0; k < 2; ++k) {
      double sw = 0, s = 0, ss = 0;
      for (size_t i = 0; i < n; ++i) {
        double q = k == 0 ? r[i] : 1 - r[i];
        sw += q, s += q * x[i];
      }
      if (sw < 1e-9) return {};
      double mu = s / sw;
      for (size_t i = 0; i < n; ++i) ss += (k == 0 ? r[i] : 1 - r[i]) * (x[i] - mu) * (x[i] - mu);
      c[static_cast<size_t>(k)] = {sw / static_cast<double>(n), mu, std::max(std::sqrt(ss / sw), 0.01)};
    }
  }
  if (c[0].mu > c[1].mu) std::swap(c[0], c[1]);
  return c;
}

// How often one log-normal gives a mixture's likelihood ratio as large as
// the one seen (a parametric bootstrap of the ratio, McLachlan 1987): up to
// kBoot samples of as many lengths from one log-normal fitted to x, each
// fitted both ways; p = (samples at least as large + 1) / (kBoot + 1),
// stopped once it cannot come out below kMixtureP. With a dozen lengths of
// nearly one length, chance clusters make a mixture of two narrow
// components beat one log-normal by BIC (its penalty assumes a ratio that
// is chi-squared, which it is not for mixtures): for 11 lengths of one
// log-normal of sigma 0.07 (the stalls rig's spread) BIC took two narrow
// populations, whose tails stop where the pauses' go on, in 10 sets of 100
// (unit test "a mixture must be two clusters apart ..."). Deterministic:
// seeded by n.
// Past kBootMax lengths BIC's ln(n) penalty is conservative enough (and the
// test would cost 199 EM fits of that many): the bootstrap is for small samples.
constexpr int kBoot = 199;
constexpr double kMixtureP = 0.05;
constexpr size_t kBootMax = 200;
struct MixtureTest {
  int drawn = 0, above = 0;  // samples drawn, those with a ratio at least the one seen
  double p() const { return (above + 1.0) / (drawn + 1.0); }
};
MixtureTest mixture_lr_test(const std::vector<double>& x, const Component& one, double seen) {
  SplitMix64 rng = SplitMix64::seeded(x.size(), 0x6d6978);
  std::vector<double> y(x.size());
  MixtureTest t;
  const int stop = static_cast<int>(std::ceil(kMixtureP * (kBoot + 1)));
  for (; t.drawn < kBoot && t.above < stop; ++t.drawn) {
    for (double& v : y) v = one.mu + one.sd * rng.normal();
    auto two = two_normals(y);
    double lr = two.empty() ? 0 : 2 * (mix_loglik(y, two) - mix_loglik(y, {one_normal(y)}));
    t.above += lr >= seen;
  }
  return t;
}

// One or two pause lengths far outside the rest (a scheduling hiccup of a
// loaded machine among a device's pauses of fixed length): by BIC they are
// too few to be a population (3 each), yet one log-normal through them puts
// the rest's median low and its tail long, inventing the long stalls that
// decide a buffer. Rosner's generalized ESD test on ln(length): the most
// extreme value is taken out, then the most extreme of the rest (on the same
// side), up to kMaxOutliers; each is tested against a prediction interval
// from the values left (Student t with m - 1 degrees of freedom; the spread
// at least 0.01, a length's measuring precision), Bonferroni over the
// candidates at 1 %. The outliers are the most extreme k, for the largest k
// whose test says so: two hiccups together widen the spread each alone is
// tested against, so the first test may pass while the second, with both
// out, does not (masking; a characterize run on a loaded machine: two
// hiccups of 97 and 105 ms among five 400 ms pauses became one log-normal
// of median 255 ms, sigma 0.77). Outliers become a second population of
// their own (lengths and arrivals fitted like any other; one alone has
// sigma 0), listed after the rest (the profile's stall2_* keys).
// Where v lies against a sample of m values fitted as c (sd by maximum
// likelihood), in units of the prediction interval for one more value:
// Student t with m - 1 degrees of freedom, the sample's spread (with
// Bessel's correction) at least `least`. Negative below the sample's mean.
double prediction_t(double v, const Component& c, double m, double least) {
  double s = std::max(c.sd * std::sqrt(m / (m - 1)), least);
  return (v - c.mu) / (s * std::sqrt(1 + 1 / m));
}

struct OutlierSplit {
  std::vector<Component> model;  // empty: no outlier
  std::string note;
};
OutlierSplit split_outliers(std::vector<double> x) {
  constexpr double kAlpha = 0.01;
  constexpr size_t kMaxOutliers = 2, kMinRest = 4;
  std::sort(x.begin(), x.end());
  std::vector<double> step_p;    // step i's p-value: x's i + 1 most extreme on `side` out
  size_t lo = 0, hi = x.size();  // the rest is x[lo, hi)
  int side = 0;                  // -1 low, +1 high, once decided
  while (step_p.size() < kMaxOutliers && hi - lo > kMinRest) {
    double best_p = 2;
    int best_side = 0;
    for (int sd_side : {-1, 1}) {
      if (side != 0 && sd_side != side) continue;
      size_t out = sd_side < 0 ? lo : hi - 1;
      std::vector<double> rest(x.begin() + static_cast<long>(sd_side < 0 ? lo + 1 : lo),
                               x.begin() + static_cast<long>(sd_side < 0 ? hi : hi - 1));
      Component c = one_normal(rest);  // sd floored at 0.01
      double m = static_cast<double>(rest.size());
      double t = std::fabs(prediction_t(x[out], c, m, 0.01));
      double pv = std::min(1.0, t_two_sided_p(t, m - 1) * static_cast<double>(hi - lo));
      if (pv < best_p) best_p = pv, best_side = sd_side;
    }
    side = best_side;
    if (side < 0) ++lo;
    else --hi;
    step_p.push_back(best_p);
  }
  size_t k = step_p.size();  // the outliers: the most extreme k, for the largest k whose test says so
  while (k > 0 && step_p[k - 1] >= kAlpha) --k;
  OutlierSplit r;
  if (k == 0) return r;
  double p_k = step_p[k - 1];  // the test that decided k
  lo = side < 0 ? k : 0, hi = side < 0 ? x.size() : x.size() - k;
  std::vector<double> out(side < 0 ? x.begin() : x.begin() + static_cast<long>(hi),
                          side < 0 ? x.begin() + static_cast<long>(lo) : x.end());
  Component a = one_normal({x.begin() + static_cast<long>(lo), x.begin() + static_cast<long>(hi)});
  Component b = one_normal(out);
  b.sd = std::max(b.sd, a.sd);  // one or two points say nothing of their spread
  double n = static_cast<double>(x.size());
  a.w = static_cast<double>(hi - lo) / n, b.w = static_cast<double>(k) / n;
  r.model = {a, b};  // the rest first: stall_*, the outliers stall2_*
  std::string lengths;
  for (double v : out) lengths += fmt::format("{}{:.3g} ms", lengths.empty() ? "" : ", ", std::exp(v) * 1e3);
  r.note = fmt::format("stalls: {} pause(s) of {} lie far {} the other {} (median {:.3g} ms; outlier test P ≤ {:.2g}): "
                       "a population of their own, not the tail of one log-normal",
                       k, lengths, side < 0 ? "below" : "above", hi - lo, std::exp(a.mu) * 1e3, p_k);
  return r;
}

// Paced pauses whose lengths only bounded (not in x, the lengths the fit
// rests on) that no length of x's one population could have been: a pause
// met at excess e after idle time i lasted at most e + i (a time-triggered
// pause that began while the writer idled shows what was left of it), and
// that bound lies below the population's one-sided prediction interval
// (Student t with m - 1 degrees of freedom, as split_outliers; the spread at
// least 0.1: tightly agreeing whole lengths must not make a pause 20 % short
// a stranger), Bonferroni over the bounded pauses at 1 %. They become a
// population of their own (lengths: e + i/2, the midpoint of what each
// allows; arrivals fitted like any other), listed after the rest.
struct ShortPaced {
  std::vector<Component> model;  // the rest first, the short ones second
  std::vector<double> lengths;   // ln(length) of the short ones (empty: none)
  std::string note;
};
template <class Counts, class LengthOf>
ShortPaced split_short_paced(const std::vector<PauseScan>& scans, const std::vector<double>& x, const Component& a,
                             Counts counts, LengthOf length_of) {
  ShortPaced r;
  if (x.size() < 3) return r;
  double m = static_cast<double>(x.size());
  std::vector<std::pair<const PauseScan*, const Pause*>> bounded;  // the paced pauses not in x
  for (const auto& sc : scans)
    for (const auto& p : sc.pauses)
      if (sc.paced && !counts(sc, p)) bounded.emplace_back(&sc, &p);
  std::vector<double> bounds;
  double worst_p = 0;
  for (auto [sc, p] : bounded) {
    double t = -prediction_t(std::log(std::max(p->excess_s + p->idle_before_s, 1e-9)), a, m, 0.1);
    double pv = t > 0 ? std::min(1.0, t_two_sided_p(t, m - 1) / 2 * static_cast<double>(bounded.size())) : 1.0;
    if (pv >= 0.01) continue;
    r.lengths.push_back(length_of(*sc, *p));
    bounds.push_back(p->excess_s + p->idle_before_s);
    worst_p = std::max(worst_p, pv);
  }
  if (r.lengths.empty()) return r;
  Component b = one_normal(r.lengths);
  b.sd = std::max(b.sd, a.sd);  // a few bounded lengths say little of their spread
  Component rest = a;
  double k = static_cast<double>(r.lengths.size());
  rest.w = m / (m + k), b.w = k / (m + k);
  r.model = {rest, b};
  std::sort(bounds.begin(), bounds.end());
  r.note = fmt::format(
      "stalls: {} pause(s) met by paced writes lasted at most {:.3g}..{:.3g} ms (excess plus the idle time before "
      "each), below any length of the other {} (median {:.3g} ms; P ≤ {:.2g} each): another stop of their own, not the "
      "short end of one log-normal",
      r.lengths.size(), bounds.front() * 1e3, bounds.back() * 1e3, x.size(), std::exp(a.mu) * 1e3, worst_p);
  return r;
}

// A pause met by a paced writer: its excess, the writer's idle time before
// the write, the write's stall-free time, the least excess it would have
// shown.
struct MetPaced {
  double excess = 0, idle = 0, write = 0, shown = 0;
};
// The lengths L of a time-triggered population as one log-normal (mu, sd of
// ln L in seconds), from lengths measured whole (`whole`: a flat-out writer
// meets a pause whole, and sees it if longer than `shown`) and from pauses
// met by paced writes. A pause that began u before a write (0 <= u <= idle)
// shows an excess of L - u; one that began inside the write holds it up by
// all of L. Pauses begin at any
// moment, so an excess e is seen with density F(e + idle) - F(e) + write f(e)
// (F, f: the lengths' distribution and density): e says only that the pause
// lasted between e and e + idle, unless it began inside the write. And a
// pause is seen at all (an excess past `shown`) with a chance in proportion
// to min(L - shown, idle) + write (L > shown): long pauses are met more
// often, so each pause's density is divided by the mean of that chance,
// integral of S over [shown, shown + idle] + write S(shown) (S = 1 - F).
// Without that division the long ones the paced writer met more often would
// pull the median up (by half, in the unit test's case).
double paced_loglik(const std::vector<MetPaced>& whole, const std::vector<MetPaced>& met, double mu, double sd) {
  auto S = [&](double x) { return x <= 0 ? 1.0 : norm_cdf((mu - std::log(x)) / sd); };
  double ll = 0;
  for (const auto& m : whole)  // seen only past `shown`
    ll += norm_logpdf(std::log(std::max(m.excess, 1e-9)), mu, sd) - std::log(std::max(S(m.shown), 1e-300));
  for (const auto& m : met) {
    double e = std::max(m.excess, 1e-9);
    double between = S(e) - S(e + m.idle), dens = between + m.write * std::exp(norm_logpdf(std::log(e), mu, sd)) / e;
    constexpr int kSteps = 32;  // Simpson
    double h = m.idle / kSteps, seen = m.write * S(m.shown);
    if (h > 0) {
      double sum = 0;
      for (int j = 0; j <= kSteps; ++j) sum += (j == 0 || j == kSteps ? 1 : j % 2 ? 4 : 2) * S(m.shown + j * h);
      seen += sum * h / 3;
    }
    ll += std::log(std::max(dens, 1e-300)) - std::log(std::max(seen, 1e-300));
  }
  return ll;
}
struct LengthFit {
  double mu = 0, sd = 0, mu_se = 0, sd_se = 0;
};
// Maximum likelihood (Nelder-Mead in mu, ln sd, from the lengths with half
// the idle time added); standard errors from the observed information (the
// log-likelihood's second derivatives in mu, sd, numerically).
LengthFit fit_paced_lengths(const std::vector<MetPaced>& whole, const std::vector<MetPaced>& met) {
  std::vector<double> start;
  for (const auto& m : whole) start.push_back(std::log(std::max(m.excess, 1e-9)));
  for (const auto& m : met) start.push_back(std::log(std::max(m.excess + m.idle / 2, 1e-9)));
  Component c = one_normal(start);
  auto cost = [&](const std::array<double, 2>& t) { return -paced_loglik(whole, met, t[0], std::exp(t[1])); };
  std::array<double, 2> t = nelder_mead<2>(cost, {c.mu, std::log(c.sd)}, 0.3, 400);
  t = nelder_mead<2>(cost, t, 0.05, 400);
  LengthFit r{t[0], std::max(std::exp(t[1]), 0.01), 0, 0};
  double mu = r.mu, sd = r.sd, h = 1e-4 * std::max(sd, 0.05);
  auto ll = [&](double m, double s) { return paced_loglik(whole, met, m, s); };
  double f0 = ll(mu, sd);
  double hmm = (ll(mu + h, sd) - 2 * f0 + ll(mu - h, sd)) / (h * h);
  double hss = (ll(mu, sd + h) - 2 * f0 + ll(mu, sd - h)) / (h * h);
  double hms = (ll(mu + h, sd + h) - ll(mu + h, sd - h) - ll(mu - h, sd + h) + ll(mu - h, sd - h)) / (4 * h * h);
  double det = hmm * hss - hms * hms, n = static_cast<double>(start.size());
  if (det > 0 && hmm < 0) {  // (-H)^-1 = [[-hss, hms], [hms, -hmm]] / det
    r.mu_se = std::sqrt(-hss / det), r.sd_se = std::sqrt(-hmm / det);
  } else {  // flat: a plain sample's figures
    r.mu_se = sd / std::sqrt(n), r.sd_se = sd / std::sqrt(2 * n);
  }
  return r;
}

// Kolmogorov-Smirnov distance between the sample and the fitted mixture CDF,
// and its asymptotic p-value (optimistic: the parameters came from the same data).
std::pair<double, double> ks_test(std::vector<double> x, const std::vector<Component>& c) {
  std::sort(x.begin(), x.end());
  double n = static_cast<double>(x.size()), d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double f = 0;
    for (const auto& k : c) f += k.w * norm_cdf((x[i] - k.mu) / k.sd);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  double lambda = (std::sqrt(n) + 0.12 + 0.11 / std::sqrt(n)) * d, p = 0;
  for (int k = 1; k <= 100; ++k) p += 2 * ((k % 2) ? 1 : -1) * std::exp(-2.0 * k * k * lambda * lambda);
  return {d, std::clamp(p, 0.0, 1.0)};
}

// The standard normal quantile: z with Phi(z) = p (bisection on erfc).
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Poisson counts n_i with mean a*B_i + b*T_i: log-likelihood (constant dropped).
double poisson_ll(const std::vector<double>& n, const std::vector<double>& B, const std::vector<double>& T, double a,
                  double b) {
  double ll = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    double lam = a * B[i] + b * T[i];
    if (lam <= 0) {
      if (n[i] > 0) return -1e300;
      continue;
    }
    ll += n[i] * std::log(lam) - lam;
  }
  return ll;
}

// Decides byte- vs time-triggered arrivals for one population from its
// per-trace counts; fills interval/period and the notes.
void fit_arrivals(StallPopulation& pop, const std::vector<double>& n, const std::vector<double>& B,
                  const std::vector<double>& T, std::vector<std::string>& notes, const std::string& who,
                  bool same_rate_by_time) {
  double N = std::accumulate(n.begin(), n.end(), 0.0);
  double SB = std::accumulate(B.begin(), B.end(), 0.0), ST = std::accumulate(T.begin(), T.end(), 0.0);
  double rmin = 1e300, rmax = 0;
  for (size_t i = 0; i < B.size(); ++i)
    if (T[i] > 0 && B[i] > 0) rmin = std::min(rmin, B[i] / T[i]), rmax = std::max(rmax, B[i] / T[i]);
  double rel = 1.96 / std::sqrt(std::max(N, 1.0));
  auto by_bytes = [&] {
    pop.interval_mb = SB / N / 1e6, pop.interval_band = pop.interval_mb * rel;
    pop.arrivals = "per byte written";
  };
  // Behind a cache the traces are flat-out ones that kept the cache full, so
  // the device wrote at its own rate under every one of them whatever the
  // writer's average (a short trace's first megabytes went into the cache at
  // memory speed): their counts cannot tell byte- from time-triggered pauses.
  // Weighing the writer's rates would split the pauses between two
  // independent streams, each Poisson (the ntfs rig's regular ~8 s pauses, met
  // in traces at 10.3..15.6 MB/s, became 47 % per byte and 53 % per time, both
  // Poisson: 3.6 / 4.8 MB/s at 1 / 4 MiB for a truth of 6.8 / 7.0; per unit
  // of time, with their regularity, the same traces give 5.9 / 7.7).
  if (rmax < 1.3 * rmin || same_rate_by_time) {
    if (same_rate_by_time) {
      pop.period_ms = ST / N * 1e3, pop.period_band = pop.period_ms * rel;
      pop.arrivals = "per unit of time";
    } else {
      by_bytes();
    }
    std::string why =
        rmax < 1.3 * rmin
            ? fmt::format("all traces wrote at about the same rate ({:.3g} MB/s)", rmax / 1e6)
            : fmt::format("the device wrote at its own rate under every flat-out trace (the writer's averages, "
                          "{:.3g}..{:.3g} MB/s, include what went into the cache)",
                          rmin / 1e6, rmax / 1e6);
    notes.push_back(fmt::format("{}: {}: byte- and time-triggered arrivals look alike, assumed {}{}", who, why,
                                pop.arrivals,
                                same_rate_by_time ? " (the pauses are behind a cache: at a recorder's lower rate the "
                                                    "device may meet them as often as flat-out writes did, the "
                                                    "cautious choice)"
                                                  : "; paced writes at a few fractions of the sustained rate "
                                                    "(characterize writes them) would tell"));
    return;
  }
  double a1 = N / SB, b1 = N / ST;
  // Both: EM on the split of each trace's count between the two causes.
  double a = a1 / 2, b = b1 / 2;
  for (int it = 0; it < 2000; ++it) {
    double na = 0, nb = 0;
    for (size_t i = 0; i < n.size(); ++i) {
      double lam = a * B[i] + b * T[i];
      if (lam <= 0) continue;
      na += n[i] * a * B[i] / lam, nb += n[i] * b * T[i] / lam;
    }
    a = na / SB, b = nb / ST;
  }
  double ll_b = poisson_ll(n, B, T, a1, 0), ll_t = poisson_ll(n, B, T, 0, b1), ll_2 = poisson_ll(n, B, T, a, b);
  double aic_b = 2 - 2 * ll_b, aic_t = 2 - 2 * ll_t, aic_2 = 4 - 2 * ll_2;
  std::string scores = fmt::format("AIC per byte {:.1f}, per time {:.1f}, both {:.1f}", aic_b, aic_t, aic_2);
  // Both triggers only if the second one is needed beyond Poisson noise across
  // traces: likelihood ratio against the better single trigger, chi-square(1) at 99 %.
  bool both = a > 0 && b > 0 && 2 * (ll_2 - std::max(ll_b, ll_t)) > 6.63;
  if (both) {
    double na = a * SB, nb = b * ST;
    pop.interval_mb = 1 / a / 1e6, pop.interval_band = pop.interval_mb * 1.96 / std::sqrt(std::max(na, 1.0));
    pop.period_ms = 1e3 / b, pop.period_band = pop.period_ms * 1.96 / std::sqrt(std::max(nb, 1.0));
    pop.arrivals = "both per byte and per unit of time";
  } else {
    // One law or the other, each as likely as its Akaike weight. Where the
    // traces cannot tell them apart (close AIC), both stay in the model in
    // those proportions: they agree at the traces' rates and differ only in
    // the extrapolation to a recorder's lower rate, which must not hang on a
    // difference of a fraction of a point (Burnham & Anderson's model
    // averaging). A law under kMinAkaikeWeight is dropped.
    double wb = 1 / (1 + std::exp((aic_b - aic_t) / 2)), wt = 1 - wb;
    if (wt < kMinAkaikeWeight) {
      by_bytes();
    } else if (wb < kMinAkaikeWeight) {
      pop.period_ms = ST / N * 1e3, pop.period_band = pop.period_ms * rel;
      pop.arrivals = "per unit of time";
    } else {
      double na = wb * N, nb = wt * N;
      pop.interval_mb = SB / na / 1e6, pop.interval_band = pop.interval_mb * 1.96 / std::sqrt(std::max(na, 1.0));
      pop.period_ms = ST / nb * 1e3, pop.period_band = pop.period_ms * 1.96 / std::sqrt(std::max(nb, 1.0));
      pop.arrivals = fmt::format("per byte written ({:.0f} %) and per unit of time ({:.0f} %), the traces' evidence "
                                 "for each (Akaike weights): they cannot tell which",
                                 wb * 100, wt * 100);
    }
  }
  notes.push_back(fmt::format("{}: arrivals {} ({}; traces at {:.3g}..{:.3g} MB/s)", who, pop.arrivals, scores,
                              rmin / 1e6, rmax / 1e6));
}

}  // namespace

SlowWrites find_slow_writes(const std::vector<double>& duration, const std::vector<double>& bytes) {
  SlowWrites s;
  s.expected = duration;
  s.slow.assign(duration.size(), 0);
  if (duration.size() < 20) return s;
  // Durations per byte, so a last short write does not look like a pause.
  std::vector<double> per(duration.size());
  for (size_t i = 0; i < per.size(); ++i) per[i] = duration[i] / bytes[i];
  std::vector<double> base = rolling_median(per, 51);
  std::vector<double> rel(per.size());
  for (size_t i = 0; i < per.size(); ++i) rel[i] = base[i] > 0 ? per[i] / base[i] - 1 : 0;
  double scale = 1.4826 * mad(rel, median(rel));
  double limit = s.limit = std::max(kJitterSds * scale, kMinOpFraction);
  for (size_t i = 0; i < per.size(); ++i) {
    s.expected[i] = base[i] * bytes[i];
    s.slow[i] = rel[i] > limit && duration[i] - s.expected[i] > kMinPauseS;
  }
  // A long run of slow writes is the rate changing (a write cache running out
  // again after an idle gap), which the rolling baseline takes half its
  // window to follow, not a pause: a pause holds up one write or a few.
  for (size_t i = 0; i < per.size();) {
    size_t j = i;
    while (j < per.size() && s.slow[j]) ++j;
    if (j - i >= kLevelShiftRun) std::fill(s.slow.begin() + i, s.slow.begin() + j, 0);
    i = j + 1;
  }
  for (size_t i = 0; i < per.size(); ++i)
    if (!s.slow[i]) s.expected[i] = duration[i];
  return s;
}

DevicePauseScan scan_device_pauses(const std::vector<BlockSample>& samples, double sample_period_s) {
  DevicePauseScan r;
  // Completions: the samples where the written count went up. A gap runs
  // from a completion (or from the first sample with requests in flight
  // after none) to the next completion, while some request is in flight all
  // the while; a sample with none ends it unmeasured (the device was idle).
  struct Gap {
    double at, gap, bytes;
  };
  std::vector<Gap> gaps;
  constexpr double kNone = -1;
  double from = samples.empty() || samples[0].in_flight <= 0 ? kNone : samples[0].t;
  for (size_t i = 1; i < samples.size(); ++i) {
    const BlockSample& x = samples[i];
    double done = x.written - samples[i - 1].written;
    if (done > 0) {
      if (from != kNone) gaps.push_back({from, x.t - from, done});
      from = x.in_flight > 0 ? x.t : kNone;
    } else if (x.in_flight <= 0) {
      from = kNone;
    } else if (from == kNone) {
      from = x.t;  // busy again: the gap starts with the first request seen
    }
  }
  if (!samples.empty()) r.from_s = samples.front().t, r.to_s = samples.back().t;
  if (gaps.size() < 20) return r;  // too few to tell a pause from the ordinary
  std::vector<double> per(gaps.size()), gap_s(gaps.size());
  for (size_t i = 0; i < gaps.size(); ++i) per[i] = gaps[i].gap / gaps[i].bytes, gap_s[i] = gaps[i].gap;
  std::vector<double> base = rolling_median(per, 51);
  std::vector<double> excess(gaps.size());
  for (size_t i = 0; i < gaps.size(); ++i) excess[i] = gaps[i].gap - base[i] * gaps[i].bytes;
  r.busy_gaps = gaps.size();
  r.median_gap_s = median(gap_s);
  r.jitter_s = 1.4826 * mad(excess, median(excess));
  r.threshold_s = std::max({kJitterSds * r.jitter_s, 0.5 * r.median_gap_s, 4 * sample_period_s, kMinPauseS});
  for (size_t i = 0; i < gaps.size(); ++i) {
    r.busy_s += gaps[i].gap, r.bytes += gaps[i].bytes;
    r.gaps.push_back({gaps[i].at, gaps[i].gap, excess[i]});
    if (excess[i] > r.threshold_s) r.pauses.push_back(r.gaps.back());
  }
  return r;
}

namespace {
// The write(s) pause p of scan s held, on the device log's clock: start, end.
std::pair<double, double> held(const PauseScan& s, const Pause& p) {
  double w0 = s.start_s + p.at_s;
  return {w0, w0 + p.write_s + p.excess_s};
}
// The device's stop under pause p of scan s: the busy gap overlapping the
// held write(s) with the largest excess, if that excess is at least half
// what the writer saw and 4 sample periods (a device hiccup beside a longer
// wait of the writer's is not the same event); gaps.size() if none.
size_t stop_under(const PauseScan& s, const Pause& p, const std::vector<DevicePause>& gaps, double sample_period_s) {
  auto [w0, w1] = held(s, p);
  // The gaps overlapping the held write: they are in time order.
  auto first = std::lower_bound(gaps.begin(), gaps.end(), w0,
                                [](const DevicePause& d, double t) { return d.at_s + d.gap_s <= t; });
  size_t best = gaps.size();
  for (auto it = first; it != gaps.end() && it->at_s < w1; ++it) {
    size_t k = static_cast<size_t>(it - gaps.begin());
    if (it->at_s + it->gap_s > w0 && (best == gaps.size() || it->excess_s > gaps[best].excess_s)) best = k;
  }
  if (best < gaps.size() && gaps[best].excess_s >= std::max(0.5 * p.excess_s, 4 * sample_period_s)) return best;
  return gaps.size();
}
}  // namespace

size_t drop_filesystem_waits(std::vector<PauseScan>& scans, const DevicePauseScan& device, double sample_period_s) {
  if (device.busy_gaps == 0) return 0;  // too little activity to tell a stop
  size_t dropped = 0;
  for (auto& s : scans) {
    if (!s.fs_waits_modelled) continue;
    size_t before = s.pauses.size();
    std::erase_if(s.pauses, [&](const Pause& p) {
      auto [w0, w1] = held(s, p);
      bool covered = device.from_s <= w0 && w1 <= device.to_s;
      return covered && !p.device && stop_under(s, p, device.gaps, sample_period_s) == device.gaps.size();
    });
    dropped += before - s.pauses.size();
  }
  return dropped;
}

size_t apply_device_lengths(std::vector<PauseScan>& scans, const DevicePauseScan& device, double sample_period_s) {
  size_t matched = 0;
  const std::vector<DevicePause>& gaps = device.gaps;
  std::vector<char> used(gaps.size(), 0);
  for (size_t i = 0; i < scans.size(); ++i) {
    if (scans[i].paced) continue;  // a paced writer's pauses say whether a recorder meets them: as they were met
    std::vector<Pause> kept;
    for (Pause p : scans[i].pauses) {
      if (size_t best = stop_under(scans[i], p, gaps, sample_period_s); best < gaps.size()) {
        // One stop of the device, met by two slow writes in a row (the cache's
        // headroom let writes through in between): one pause, counted once.
        if (used[best]) continue;
        used[best] = 1;
        p.writes_excess_s = p.excess_s;
        p.excess_s = gaps[best].excess_s;
        p.device = true;
        scans[i].device_lengths = true;
        ++matched;
      }
      kept.push_back(p);
    }
    scans[i].pauses = std::move(kept);
  }
  return matched;
}

bool is_paced(const Series& s) {
  auto it = s.meta.find("sweep");
  if (it != s.meta.end()) return it->second == "paced";
  std::vector<double> d;
  for (const auto& op : s.ops)
    if (!op.read && op.bytes > 0) d.push_back(op.end - op.start);
  const size_t n = d.empty() ? 0 : d.size() - 1;  // gaps between writes
  if (n < 20) return false;
  double med = median(d);
  size_t idle = 0;
  double prev_end = -1;
  for (const auto& op : s.ops) {
    if (op.read || op.bytes == 0) continue;
    if (prev_end >= 0 && op.start - prev_end > 0.25 * med) ++idle;
    prev_end = op.end;
  }
  return idle * 2 > n;  // idle before most writes
}

PauseScan scan_pauses(const Series& s) {
  PauseScan p;
  p.name = s.name;
  p.paced = is_paced(s);
  std::vector<double> d, b, at, idle;
  double first = -1, last = 0;
  for (const auto& op : s.ops) {
    if (op.read || op.bytes == 0) continue;
    idle.push_back(first < 0 ? 0 : std::max(0.0, op.start - last));
    if (first < 0) first = op.start;
    last = std::max(last, op.end);
    d.push_back(std::max(0.0, op.end - op.start)), b.push_back(static_cast<double>(op.bytes)), at.push_back(op.start);
    p.bytes += static_cast<double>(op.bytes);
  }
  p.writes = d.size();
  p.start_s = std::max(first, 0.0);
  p.seconds = first < 0 ? 0 : last - first;
  SlowWrites sw = find_slow_writes(d, b);
  // Pauses that matter to a buffer are rare. When more than one write in
  // kRhythm of a flat-out trace is slow, the slowness is the trace's rhythm:
  // a page cache that lets a throttled writer go a chunk of writeback at a
  // time (a few writes at memory speed, then one that waits for the next
  // chunk). Such a trace says nothing about pauses (one in the writer's call
  // lets the cache drain meanwhile and hides among the waits): the fit leaves
  // it out (p.rhythm). A paced writer is not throttled: its slow writes are
  // what it met, however many.
  size_t slow = static_cast<size_t>(std::count(sw.slow.begin(), sw.slow.end(), 1));
  if (!p.paced && d.size() >= 40 && slow * kRhythm > d.size()) {
    std::vector<double> gaps;  // writes from one slow write to the next
    for (size_t i = 0, last = d.size(); i < d.size(); ++i)
      if (sw.slow[i]) {
        if (last < d.size()) gaps.push_back(static_cast<double>(i - last));
        last = i;
      }
    p.rhythm = std::max<size_t>(1, static_cast<size_t>(std::lround(median(gaps))));
    p.rhythm_slow = slow;
    return p;
  }
  // Consecutive slow writes are one pause, unless they are no more frequent
  // than independent pauses would fall side by side by chance: the model's
  // arrivals recreate those coincidences, so merging them would count them twice.
  double nslow = 0, pairs = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    nslow += sw.slow[i];
    pairs += i > 0 && sw.slow[i] && sw.slow[i - 1];
  }
  double chance = d.empty() ? 0 : nslow * nslow / static_cast<double>(d.size());
  p.merged = pairs > chance + 2 * std::sqrt(chance) + 1;
  for (size_t i = 0; i < d.size(); ++i) {
    if (!sw.slow[i]) continue;
    if (p.merged && i > 0 && sw.slow[i - 1]) p.pauses.back().excess_s += d[i] - sw.expected[i];
    else p.pauses.push_back({at[i] - first, d[i] - sw.expected[i], idle[i], sw.expected[i],
                             std::max(sw.limit * sw.expected[i], kMinPauseS)});
  }
  return p;
}

namespace {
// P(X <= k) for X ~ Poisson(mean).
double poisson_cdf(size_t k, double mean) {
  double sum = 0;  // terms in log space: no underflow for a large mean
  for (size_t i = 0; i <= k; ++i) {
    double x = static_cast<double>(i);
    sum += std::exp(x * std::log(mean) - mean - std::lgamma(x + 1));
  }
  return std::min(sum, 1.0);
}
}  // namespace

StallModelFit fit_stall_model(const std::vector<PauseScan>& scans, const KnownPlace& known) {
  StallModelFit f = fit_stall_model_all(scans);
  if (!f.ok) return f;
  if (known.where == KnownPlace::InCall) {
    f.notes.insert(f.notes.begin(), fmt::format("stalls: {}: the pauses are in the writer's call", known.why));
    return f;
  }
  // Did writes paced like a recorder's meet the pauses that flat-out writes
  // met? A pause counts if it is at least half the flat-out pauses' median
  // length: the long ones are the question, scheduling jitter of a few ms is
  // not. The count expected in the paced traces comes from the fitted
  // arrivals of each population (which include the paced traces' own counts,
  // so the expectation errs low), times the share of its lengths that long.
  // A paced writer idles between writes, so it meets a time-triggered pause
  // partway: it shows at least that long only if the pause began at most
  // that long before the write, so the expectation for time-triggered pauses
  // is scaled by that share of the trace's write period. A byte-triggered
  // pause lies inside a write.
  std::vector<PauseScan> busy;
  std::vector<double> flat_lengths;
  for (const auto& s : scans)
    if (!s.paced) {
      busy.push_back(s);
      for (const auto& p : s.pauses) flat_lengths.push_back(p.excess_s);
    }
  size_t flat = flat_lengths.size(), seen = 0;
  std::sort(flat_lengths.begin(), flat_lengths.end());
  double half = flat ? flat_lengths[flat / 2] / 2 : 0;  // half the median
  // A driver that writes through the page cache may still pause in its own
  // call (reading its allocation metadata, say). Paced writes at the slower
  // half of the paced rates meet the device's pauses behind that cache
  // hardly ever (a cache holds a pause's worth of writing at that pace); two
  // or more pauses of at least half the flat-out median met there say the
  // pauses are in the call.
  auto met_in_call = [&]() -> std::string {
    if (flat < kTooFew) return {};
    std::vector<const PauseScan*> paced;
    for (const auto& s : scans)
      if (s.paced && s.seconds > 0) paced.push_back(&s);
    std::sort(paced.begin(), paced.end(), [](auto* a, auto* b) { return a->rate_mbps() < b->rate_mbps(); });
    size_t met = 0;
    double up_to = 0;
    for (size_t i = 0; i < (paced.size() + 1) / 2; ++i) {
      for (const auto& p : paced[i]->pauses) met += p.excess_s >= half;
      up_to = paced[i]->rate_mbps();
    }
    if (met < 2) return {};
    return fmt::format("paced writes at up to {:.3g} MB/s met {} pause(s) of {:.0f} ms or more, which a cache in "
                       "between would have absorbed at that pace: the pauses are in the writer's call",
                       up_to, met, half * 1e3);
  };
  if (known.where == KnownPlace::BehindCache && !busy.empty()) {
    if (std::string why = met_in_call(); !why.empty()) {
      f.notes.insert(f.notes.begin(), fmt::format("stalls: {}, but {}", known.why, why));
      return f;
    }
    // Behind a cache by construction: the flat-out traces, which kept that
    // cache full, describe the device's pauses (as below).
    StallModelFit g = fit_stall_model_all(busy, /*behind_cache=*/true);
    if (g.ok) {
      g.behind_cache = true;
      g.notes.insert(g.notes.begin(), fmt::format("stalls: {}: fitted from the {} flat-out trace(s) only (paced writes "
                                                  "meet them only when they fill that cache)",
                                                  known.why, busy.size()));
      return g;
    }
    // Too few pauses in the flat-out traces alone: all traces give the fit
    // (the paced ones' absorbed pauses make it rarer than the device's), the
    // place stays the one read off the machine.
    f.behind_cache = true;
    f.notes.push_back(fmt::format("stalls: {}, but the flat-out traces alone give no fit ({}): fitted from all traces, "
                                  "which makes the pauses look rarer than they are",
                                  known.why, g.why));
    return f;
  }
  if (flat < kTooFew) return f;
  auto share_at_least = [&](const StallPopulation& p) {
    if (p.median_ms <= 0) return 0.0;
    double z = std::log(half * 1e3 / p.median_ms);
    return p.sigma > 0 ? 1 - norm_cdf(z / p.sigma) : (z <= 0 ? 1.0 : 0.0);
  };
  // A cache absorbs a pause only while the dirty data it adds (the writer's
  // rate times the pause) fits in its headroom: faster paced writes may meet
  // pauses that slower ones did not. So the question is asked of the slowest
  // paced trace, the slowest two, and so on; any of them failing to meet the
  // pauses at the 1 % level says they are behind a cache.
  struct Paced {
    double rate, expected;
    size_t seen;
  };
  // The question is about the long pauses as the flat-out writer saw them:
  // the expectation comes from lengths measured whole, not from the bounds
  // paced writes put on their population (a time-triggered population whose
  // paced pauses are mostly a few ms long would say a flat-out writer's
  // 100 ms ones are rare, and no paced count could then tell a cache).
  StallModelFit seen_whole = fit_stall_model_all(scans, false, /*paced_bounds=*/false);
  std::vector<Paced> paced;
  for (const auto& s : scans) {
    if (!s.paced || s.writes == 0 || s.seconds <= 0) continue;
    Paced x{s.bytes / s.seconds, 0, 0};
    for (const auto& p : s.pauses) x.seen += p.excess_s >= half;
    double period = s.seconds / static_cast<double>(s.writes);
    double shows = period > 0 ? std::min(1.0, half / period) : 1.0;
    for (const auto& p : seen_whole.pops)
      x.expected += share_at_least(p) * ((p.interval_mb > 0 ? s.bytes / 1e6 / p.interval_mb : 0) +
                                         (p.period_ms > 0 ? shows * s.seconds * 1e3 / p.period_ms : 0));
    paced.push_back(x);
  }
  std::sort(paced.begin(), paced.end(), [](const Paced& a, const Paced& b) { return a.rate < b.rate; });
  double expected = 0, up_to = 0;
  bool absorbed = false;
  for (const auto& x : paced) {
    expected += x.expected, seen += x.seen, up_to = x.rate;
    if (expected >= 3 && poisson_cdf(seen, expected) < 0.01) {
      absorbed = true;
      break;
    }
  }
  if (!absorbed) {
    // Fewer than expected (P < 10 %) but not few enough to tell: the pauses
    // stay where every writer meets them (the cautious answer), and the note
    // says what would decide it.
    if (!paced.empty() && seen < expected && poisson_cdf(seen, expected) < 0.1)
      f.notes.push_back(fmt::format(
          "stalls: paced writes at up to {:.3g} MB/s met {} pause(s) of {:.0f} ms or more where the flat-out ones' rate "
          "predicts {:.1f} (P = {:.2g}): too few paced writes to tell whether a cache absorbs them (that takes P < 1 % "
          "with 3 or more expected); taken as met at a recorder's pace too, the cautious answer (a longer --budget "
          "gives characterize's paced phases more time)",
          up_to / 1e6, seen, half * 1e3, expected, poisson_cdf(seen, expected)));
    return f;
  }
  // They did not: a cache between the writer and the pauses absorbs them at a
  // recorder's pace (a userspace driver writing through the block device's
  // page cache); flat-out writes met them only because they kept that cache
  // full. The pauses are the device's, described by the flat-out traces alone.
  StallModelFit g = fit_stall_model_all(busy, /*behind_cache=*/true);
  if (!g.ok) return f;
  g.behind_cache = true;
  g.notes.insert(g.notes.begin(),
                 fmt::format("stalls: paced writes at up to {:.3g} MB/s met {} pause(s) of {:.0f} ms or more where the flat-out ones' "
                             "rate predicts {:.1f} (P = {:.2g}): the pauses are behind a cache the paced writes did not fill, so they are "
                             "the device's (fitted from the {} flat-out trace(s) only), not the writer's call's",
                             up_to / 1e6, seen, half * 1e3, expected, poisson_cdf(seen, expected), busy.size()));
  return g;
}

StallModelFit fit_stall_model_all(const std::vector<PauseScan>& scans, bool behind_cache, bool paced_bounds) {
  StallModelFit f;
  f.traces = scans.size();
  double bytes = 0, seconds = 0;
  size_t all = 0, busy = 0;  // pauses in every trace, in traces written flat out
  for (const auto& s : scans) {
    bytes += s.bytes, seconds += s.seconds;
    all += s.pauses.size();
    if (!s.paced) busy += s.pauses.size();
  }
  // A paced writer idles between writes, so it meets a time-triggered pause
  // partway through: its excess is the pause minus the idle time already
  // passed (0..idle). Lengths come from flat-out traces when they hold enough
  // pauses; otherwise paced pauses count with half their idle time added.
  bool paced_lengths = busy < kTooFew;
  auto length_of = [](const PauseScan& s, const Pause& p) {
    return std::log(std::max(p.excess_s + (s.paced ? p.idle_before_s / 2 : 0), 1e-9));
  };
  // A paced pause much longer than the idle time before it is measured to a
  // few per cent whatever part of the idle time it took (error at most
  // idle / 2, here 5 % of its length): it counts even when flat-out traces hold
  // enough pauses. Long rare pauses decide a buffer, and their spread (the
  // tail) needs every one of them.
  //
  // Behind a cache, a flat-out writer meets a pause whole only if the cache
  // was full when it began; otherwise the cache's headroom hides its start
  // (Linux lets the dirty data rise from the freerun ceiling towards the
  // limit, and slices its waits into 200 ms pieces spread over neighbouring
  // writes): the lengths rest on the longer half, at least the median. A
  // length the device itself showed (Pause::device) is whole and counts.
  double longer_half = 0;
  if (behind_cache) {
    std::vector<double> all_lengths;
    for (const auto& s : scans)
      for (const auto& p : s.pauses)
        if (!p.device) all_lengths.push_back(p.excess_s);
    if (all_lengths.size() >= kTooFew) {
      std::sort(all_lengths.begin(), all_lengths.end());
      longer_half = all_lengths[all_lengths.size() / 2];
    }
  }
  auto counts = [&](const PauseScan& s, const Pause& p) {
    return (paced_lengths || !s.paced || p.idle_before_s <= 0.1 * p.excess_s) && (p.device || p.excess_s >= longer_half);
  };
  std::vector<double> x;  // ln(length) of the pauses the durations rest on
  size_t whole = 0;       // of them, lengths the device itself showed
  for (const auto& s : scans)
    for (const auto& p : s.pauses)
      if (counts(s, p)) x.push_back(length_of(s, p)), whole += p.device;
  // The longer half of lengths cut short is skewed, not two populations;
  // lengths the device showed whole (most of them) are not cut.
  const bool truncated = behind_cache && whole * 2 < x.size();
  f.pauses = all;
  if (x.empty()) {
    f.why = fmt::format("no pauses in {:.0f} MB / {:.0f} s of writes ({} trace(s)): stall parameters left out (the "
                        "model's default is no stalls)", bytes / 1e6, seconds, scans.size());
    return f;
  }
  f.too_few = f.pauses < kTooFew;
  if (paced_lengths && busy < all)
    f.notes.push_back(fmt::format("stalls: {} pause(s) in flat-out traces: pause lengths also from paced traces, "
                                  "each with half the idle time before it added (a time-triggered pause may have "
                                  "begun while the writer idled)", busy));

  // Durations: one log-normal vs a two-population mixture, by BIC (a second
  // population must earn its 3 extra parameters by more than AIC asks: the
  // tail of one wide log-normal alone should not become a population).
  std::vector<Component> model = {one_normal(x)};
  if (x.size() == 1) model[0].sd = 0.01;
  double ln_n = std::log(static_cast<double>(x.size()));
  double bic1 = 2 * ln_n - 2 * mix_loglik(x, model), bic2 = 1e300;
  std::string mixture_why;  // why a mixture BIC prefers was not taken
  if (x.size() >= kMixtureMin && !truncated) {
    auto two = two_normals(x);
    bool sizable = !two.empty() && std::min(two[0].w, two[1].w) * static_cast<double>(x.size()) >= 3;
    if (sizable) bic2 = 5 * ln_n - 2 * mix_loglik(x, two);
    if (bic2 < bic1) {
      // Two populations are two clusters of lengths, clearly apart:
      // Ashman's D = sqrt(2) |mu1 - mu2| / sqrt(sd1^2 + sd2^2) above 2. EM
      // also finds a narrow peak on a wide component spanning it (a few far
      // lengths among many alike), which BIC favours for the peak's
      // narrowness; the wide one's tail then invents long stalls (the stalls
      // rig's eleven ~1 s pauses and two waits of 13 and 211 ms: the six
      // longest at sigma 0.02, the other seven, 13 ms to 0.91 s, as one
      // log-normal of median 401 ms, sigma 1.6). Those are one population and
      // outliers, tested below.
      double ashman = std::sqrt(2.0) * std::fabs(two[0].mu - two[1].mu) / std::hypot(two[0].sd, two[1].sd);
      double lr = 2 * (mix_loglik(x, two) - mix_loglik(x, model));
      MixtureTest test;
      if (ashman <= 2)
        mixture_why = fmt::format("a mixture's populations would overlap (Ashman's D {:.2f}, over 2 needed)", ashman);
      else if (x.size() <= kBootMax && (test = mixture_lr_test(x, model[0], lr)).p() >= kMixtureP)
        mixture_why = fmt::format("the mixture fits better (likelihood ratio {:.1f}), but as well as that by chance "
                                  "in {} of {} samples of {} lengths drawn from one log-normal (parametric bootstrap; "
                                  "under {:.0f} % needed)",
                                  lr, test.above, test.drawn, x.size(), 100 * kMixtureP);
      else
        model = two;
    }
  }
  std::string outlier_note;
  if (model.size() == 1 && !truncated) {
    auto split = split_outliers(x);
    if (!split.model.empty()) {
      model = split.model;
      outlier_note = split.note;
    }
  }
  // Pauses a paced writer met whose lengths are only bounded (each lasted
  // at most its excess plus the idle time before it) are not in x; one
  // whose bound lies below every length x allows is another stop (ext4's
  // own journal waits of 0.2-0.4 s beside a rig's ~1 s pauses), not the
  // short end of this population: fitted into it, its bounds put the
  // median low and sigma wide, and the tail invents long stalls (the stalls
  // rig: 8 whole ~1 s pauses and a few such bounds gave a median of 407 ms,
  // sigma 1.52, and a clean rate 93 % low).
  if (model.size() == 1 && !truncated) {
    ShortPaced sp = split_short_paced(scans, x, model[0], counts, length_of);
    if (!sp.lengths.empty()) {
      model = sp.model;
      x.insert(x.end(), sp.lengths.begin(), sp.lengths.end());
      outlier_note = sp.note;
    }
  }
  auto [d, p] = ks_test(x, model);
  f.ks = d, f.ks_p = p;
  f.family = model.size() == 2 ? "two-population mixture" : model[0].sd < 0.1 ? "nearly fixed length" : "log-normal";
  f.notes.push_back(fmt::format(
      "stalls: {} pause(s) in {} trace(s) ({:.0f} MB, {:.0f} s); durations of {} {} (BIC one log-normal {:.1f}{}); "
      "goodness of fit: KS D = {:.3f}, p ≈ {:.2f} (n = {})",
      f.pauses, scans.size(), bytes / 1e6, seconds, x.size(), f.family, bic1,
      bic2 < 1e299 ? fmt::format(", mixture {:.1f}", bic2) : std::string(x.size() < kMixtureMin ? fmt::format(", mixture needs {}+", kMixtureMin) : ""),
      d, p, x.size()));
  if (!mixture_why.empty()) f.notes.push_back("stalls: one population, not two: " + mixture_why);
  if (!outlier_note.empty()) f.notes.push_back(outlier_note);
  if (f.too_few)
    f.notes.push_back(fmt::format("warning: only {} pause(s): too few to tell their distribution or arrivals; the "
                                  "stall parameters are a rough estimate (marked estimate = true): record longer, "
                                  "and paced writes", f.pauses));
  else if (p < 0.01)
    f.notes.push_back(fmt::format("warning: the pause durations do not follow the fitted {} (KS p ≈ {:.3f})", f.family, p));

  // Each pause goes to its likelier population; arrivals per population.
  auto population_of = [&](double v) {
    size_t best = 0;
    for (size_t j = 1; j < model.size(); ++j)
      if (std::log(model[j].w) + norm_logpdf(v, model[j].mu, model[j].sd) >
          std::log(model[best].w) + norm_logpdf(v, model[best].mu, model[best].sd))
        best = j;
    return best;
  };
  for (size_t k = 0; k < model.size(); ++k) {
    StallPopulation pop;
    std::vector<double> n, B, T, logs, whole;  // whole: every trace's pauses, as measured
    std::vector<double> members;  // ln(length) of every pause of the population, as length_of gives it
    std::vector<MetPaced> sure;  // lengths measured whole (flat-out traces)
    std::vector<MetPaced> met;  // pauses met by paced writes
    std::vector<double> gaps, busy_gaps;  // start-to-start times within a trace
    for (const auto& s : scans) {
      double count = 0, prev = -1;
      for (const auto& ps : s.pauses) {
        double v = length_of(s, ps);
        if (population_of(v) != k) continue;
        ++count;
        members.push_back(v);
        if (counts(s, ps)) logs.push_back(v);
        if (ps.excess_s >= longer_half) {
          if (!s.paced) sure.push_back({ps.excess_s, 0, ps.write_s, ps.shown_s});
          else met.push_back({ps.excess_s, ps.idle_before_s, ps.write_s, ps.shown_s});
        }
        whole.push_back(std::log(std::max(ps.excess_s, 1e-9)));
        if (prev >= 0) (s.paced ? gaps : busy_gaps).push_back(ps.at_s - prev);
        prev = ps.at_s;
      }
      n.push_back(count), B.push_back(s.bytes), T.push_back(s.seconds);
    }
    if (busy_gaps.size() >= 4) gaps = busy_gaps;
    else gaps.insert(gaps.end(), busy_gaps.begin(), busy_gaps.end());
    pop.pauses = static_cast<size_t>(std::accumulate(n.begin(), n.end(), 0.0));
    // Only paced pauses with bounded lengths (split_short_paced's): their
    // lengths with half the idle time before each added.
    if (logs.empty()) logs = members;
    if (logs.empty()) continue;
    // The longest pause of this population seen (as its length is measured),
    // and an ordinary write's time (flat-out traces: their time per write).
    double longest_ms = 0, write_ms = 0;
    for (bool paced : {false, true})
      for (const auto& s : scans)
        if (s.paced == paced && s.writes > 0 && write_ms == 0) write_ms = s.seconds / static_cast<double>(s.writes) * 1e3;
    for (const auto& s : scans)
      for (const auto& ps : s.pauses)
        if (double v = length_of(s, ps); population_of(v) == k) longest_ms = std::max(longest_ms, std::exp(v) * 1e3);
    // The ranges of the median and sigma, from their bands and from the
    // pauses seen (`measured` lengths fitted).
    auto ranges = [&](size_t measured) {
      // Ranges. Few measured lengths give a wide interval (t with m - 1
      // degrees of freedom), but every pause of the population counted bounds
      // it too: if n pauses were all at most L long, a quantile q with
      // q^n < 5 % cannot lie above L (95 %). The median's upper end is held to
      // L, and sigma's to the value that puts the q = 0.05^(1/n) quantile at L.
      // Each pause is timed to within about one write (it begins and ends
      // inside writes whose own time varies), which the sampling interval
      // alone does not cover when many pauses agree closely.
      double f = std::exp(std::hypot(std::log1p(pop.median_band / pop.median_ms), write_ms / pop.median_ms)),
             L = std::max(longest_ms, pop.median_ms);
      pop.median_lo = pop.median_ms / f, pop.median_hi = std::min(pop.median_ms * f, L);
      pop.sigma_lo = std::max(0.0, pop.sigma - pop.sigma_band), pop.sigma_hi = pop.sigma + pop.sigma_band;
      double n = static_cast<double>(std::max(pop.pauses, measured));
      if (double z = normal_quantile(std::pow(0.05, 1 / n)); z > 0 && L > pop.median_ms)
        pop.sigma_hi = std::max(pop.sigma, std::min(pop.sigma_hi, std::log(L / pop.median_ms) / z));
      else if (z > 0)
        pop.sigma_hi = pop.sigma;
    };
    // Median and sigma from a fit of ln(length) (mu, sd by maximum likelihood
    // over `count` lengths: sigma with Bessel's correction, 0 below 0.01).
    auto set_median_sigma = [&](double mu, double sd, size_t count) {
      double m = static_cast<double>(count);
      pop.median_ms = std::exp(mu) * 1e3;
      pop.sigma = count > 1 ? sd * std::sqrt(m / (m - 1)) : 0;
      if (pop.sigma <= 0.01) pop.sigma = 0;
    };
    auto lengths = [&](const std::vector<double>& v) {
      Component c = one_normal(v);
      double m = static_cast<double>(v.size());
      set_median_sigma(c.mu, c.sd, v.size());
      pop.median_band = pop.median_ms * (std::exp(t95(std::max<size_t>(1, v.size() - 1)) * pop.sigma / std::sqrt(m)) - 1);
      pop.sigma_band = v.size() > 1 ? 1.96 * pop.sigma / std::sqrt(2 * (m - 1)) : 0;
      ranges(v.size());
    };
    lengths(logs);
    std::string who = model.size() == 2 ? fmt::format("population {} ({:.3g} ms)", k + 1, pop.median_ms) : "stalls";
    fit_arrivals(pop, n, B, T, f.notes, who, behind_cache);
    // A byte-triggered pause lies wholly inside a write, paced or not: all of them measure its length.
    if (pop.period_ms == 0 && whole.size() > logs.size() && !behind_cache) lengths(whole);
    // A time-triggered one met by a paced writer shows only what was left of
    // it when the write came (fit_paced_lengths): those pauses count too,
    // beside the lengths measured whole. Without them, a few whole lengths
    // set the spread, and a wide one invents a tail that the many paced
    // pauses rule out (the btrfs rig: 4 lengths measured whole, 6.7..103 ms,
    // gave sigma 1.24 beside 74 paced pauses, none of which can have lasted
    // longer than 153 ms). Two whole lengths at least: they anchor the
    // lengths the paced pauses only bound. Only where the arrivals are
    // time-triggered alone: a byte-triggered pause lies inside its write, and
    // where the traces cannot tell which (or need both) a paced pause's
    // excess is as ambiguous as its arrivals, so the lengths stay as measured.
    if (paced_bounds && pop.period_ms > 0 && pop.interval_mb == 0 && sure.size() >= 2 && !met.empty() &&
        !behind_cache) {
      LengthFit c = fit_paced_lengths(sure, met);
      set_median_sigma(c.mu, c.sd, sure.size() + met.size());
      pop.median_band = pop.median_ms * (std::exp(1.96 * c.mu_se) - 1);
      pop.sigma_band = 1.96 * c.sd_se;
      for (const auto& p : met) longest_ms = std::max(longest_ms, (p.excess + p.idle) * 1e3);
      ranges(sure.size() + met.size());
      f.notes.push_back(fmt::format(
          "{}: lengths from {} measured whole and {} met by paced writes (each lasted between its excess and its "
          "excess plus the idle time before it, and long ones are met more often): median {:.3g} ms, sigma {:.2f}",
          who, sure.size(), met.size(), pop.median_ms, pop.sigma));
    }
    if (gaps.size() >= 4) {
      // Regularity: the coefficient of variation of the pauses' spacing (0
      // periodic, 1 Poisson) is the model's jitter, in time and in bytes
      // alike (a trace writes at a steady rate, so the two spacings are in
      // proportion). Whatever triggers them, pauses that come regularly do
      // not bunch up the way Poisson arrivals do, and two close together are
      // what a buffer cannot take (the btrfsgc rig pauses every 48 MB ± 25
      // %, CV 0.14, measured 0.137; Poisson in bytes at that mean puts one
      // pause in ten within 5 MB of the one before).
      double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size()), ss = 0;
      for (double g : gaps) ss += (g - mean) * (g - mean);
      double cv = std::sqrt(ss / static_cast<double>(gaps.size() - 1)) / mean;
      f.jitter = std::clamp(cv, 0.0, 1.0);
      f.jitter_band = 1.96 * std::max(cv, 0.05) / std::sqrt(2.0 * static_cast<double>(gaps.size()));
    }
    f.pops.push_back(pop);
  }
  f.ok = !f.pops.empty();
  f.method = fmt::format("pause fit: {} durations (KS D {:.3f}, p {:.2f}), arrivals {}{}", f.family, f.ks, f.ks_p,
                         f.pops[0].arrivals, f.pops.size() > 1 ? fmt::format(" / {}", f.pops[1].arrivals) : "");
  return f;
}

// Pauses behind a cache are the device's, and the device's own activity
// counts them with its own exposure: stops of more than half the fitted
// median per second the device was busy. The flat-out writes miss the ones
// the cache's headroom hid (a trace's first seconds, the cache filling), so
// their count runs short: on the ntfs rig (a pause every ~8 s) the writes met
// 14 in 137 s, every 9.8 s, the device stopped 21 times in 180 s busy, every
// 8.6 s. Only where those stops stand clear of the device's ordinary
// unevenness (its scan's threshold below half the median: the fuse rig's
// 0.3 s pauses do not), with one time-triggered population and 5 or more,
// and only where the writes met at least half as many per second: a writer
// that keeps the cache full meets most of the device's pauses, so a device
// showing far more is showing its own unevenness too (the fuse rig under a
// loaded machine, its nbdkit starved: 80 stops of 126-350 ms in 144 s busy,
// where the writes met 12 pauses in 104 s).
bool device_arrivals(StallModelFit& sf, const std::vector<double>& stops_s, double busy_s, double threshold_s) {
  if (!sf.ok || !sf.behind_cache || busy_s <= 0 || sf.pops.size() != 1) return false;
  StallPopulation& p = sf.pops[0];
  if (p.period_ms <= 0 || p.interval_mb > 0) return false;
  double half = p.median_ms * 1e-3 / 2;
  if (threshold_s >= half) return false;
  auto n = static_cast<size_t>(std::count_if(stops_s.begin(), stops_s.end(), [&](double l) { return l > half; }));
  if (n < 5) return false;
  double period_ms = busy_s / static_cast<double>(n) * 1e3;
  if (p.period_ms > 2 * period_ms) {
    sf.notes.push_back(fmt::format(
        "stalls: the device's own stops ({} of more than {:.0f} ms in {:.0f} s busy, every {:.3g} s) are more than "
        "twice as frequent as the pauses the flat-out writes met (every {:.3g} s): not all of them are pauses a "
        "recorder meets (the device's own unevenness, a starved driver); the writes' count stands",
        n, half * 1e3, busy_s, period_ms / 1e3, p.period_ms / 1e3));
    return false;
  }
  sf.notes.push_back(fmt::format(
      "stalls: arrivals from the device's own stops: {} of more than {:.0f} ms in {:.0f} s busy, every {:.3g} s (the "
      "flat-out writes met {}, every {:.3g} s: a cache's headroom hides some from the writer)",
      n, half * 1e3, busy_s, period_ms / 1e3, p.pauses, p.period_ms / 1e3));
  p.period_ms = period_ms, p.period_band = period_ms * 1.96 / std::sqrt(static_cast<double>(n));
  sf.method += ", counted on the device";
  return true;
}

CatchupFit fit_catchup(const std::vector<const Series*>& flat_out) {
  CatchupFit f;
  std::vector<double> caught, excesses;
  const size_t w = kCatchupWindow;
  for (const Series* x : flat_out) {
    std::vector<const IoOp*> ops;
    for (const auto& op : x->ops)
      if (!op.read && op.bytes > 0 && op.error == 0) ops.push_back(&op);
    if (ops.size() < 4 * w) continue;
    std::vector<double> d, b;
    for (const IoOp* op : ops) d.push_back(std::max(0.0, op->end - op->start)), b.push_back(static_cast<double>(op->bytes));
    SlowWrites sw = find_slow_writes(d, b);
    std::vector<double> cum(ops.size());
    double c = 0;
    for (size_t i = 0; i < ops.size(); ++i) cum[i] = (c += b[i]);
    // Writes [from, to) not slow, and writes from..to back to back (each
    // next one issued within 10 ms of the previous one's end: no idle gap).
    auto none_slow = [&](size_t from, size_t to) {
      return std::none_of(sw.slow.begin() + static_cast<long>(from), sw.slow.begin() + static_cast<long>(to),
                          [](char v) { return v != 0; });
    };
    auto back_to_back = [&](size_t from, size_t to) {
      for (size_t k = from; k < to; ++k)
        if (ops[k + 1]->start - ops[k]->end > 0.010) return false;
      return true;
    };
    size_t i = w;
    while (i < ops.size()) {
      if (!sw.slow[i]) { ++i; continue; }
      size_t a = i, e = i;
      while (e + 1 < ops.size() && sw.slow[e + 1]) ++e;
      i = e + 1;
      if (a < w || !none_slow(a - w, a) || !back_to_back(a - w, a - 1)) continue;
      double excess = 0, tb = 0, bb = 0;
      for (size_t k = a; k <= e; ++k) excess += d[k] - sw.expected[k];
      for (size_t k = a - w; k < a; ++k) tb += d[k], bb += b[k];
      if (tb <= 0 || excess <= 0) continue;
      double rate = bb / tb;
      size_t j = e + 1;
      for (double skipped = 0; j < ops.size() && skipped < rate * excess; ++j) skipped += b[j];
      j += 2;
      if (j + w > ops.size()) break;
      // Nothing slow nor idle from the pause to the after-window's end.
      if (!none_slow(e + 1, j + w - 1) || !back_to_back(e, j + w - 1)) continue;
      // The same rate after as before (not a pause at a cache's cliff, where the line bends anyway).
      double ta = 0, ba = 0;
      for (size_t k = j; k < j + w; ++k) ta += d[k], ba += b[k];
      if (ta <= 0 || std::fabs(ba / ta / rate - 1) > 0.10) continue;
      std::vector<double> before, after;
      for (size_t k = a - w; k < a; ++k) before.push_back(cum[k] - rate * ops[k]->end);
      for (size_t k = j; k < j + w; ++k) after.push_back(cum[k] - rate * ops[k]->end);
      double lost = (median(before) - median(after)) / rate;
      caught.push_back(excess - lost), excesses.push_back(excess);
      i = j;
    }
  }
  f.pauses = caught.size();
  if (caught.size() < 4) {
    f.why = fmt::format("catch-up: {} pause(s) with clean writes around them in the flat-out traces (4 needed): "
                        "device.catchup_ms left at 0",
                        caught.size());
    return f;
  }
  f.ok = true;
  double n = static_cast<double>(caught.size());
  // A sign test (one-sided, 1 %): more pauses made something up than chance
  // would give a device that makes up nothing (robust to a stray pause), but
  // blind to how much: 4 of 4 is p 0.06 however clearly each made up 100 ms.
  // So also a t test on the amounts (one-sided, 1 %), Yuen's on the 20 %
  // trimmed mean (winsorized variance, n - 2g - 1 degrees of freedom): a
  // stray pause at either end is trimmed instead of sinking the mean (the
  // xfscache rig: 9 of 10 made up 100-250 ms, one lost far more than its
  // excess, and a plain t test's mean came out below zero). Either decides.
  auto pos = static_cast<int>(std::count_if(caught.begin(), caught.end(), [](double v) { return v > 0; }));
  double tail = 1 - binomial_cdf(pos - 1, static_cast<int>(caught.size()), 0.5);  // P(at least pos of n positive)
  double t_p = 1;
  {
    std::vector<double> x = caught;
    std::sort(x.begin(), x.end());
    size_t g = static_cast<size_t>(std::floor(0.2 * n)), m = x.size() - 2 * g;
    double tmean = std::accumulate(x.begin() + static_cast<long>(g), x.end() - static_cast<long>(g), 0.0) /
                   static_cast<double>(m);
    std::vector<double> w = x;  // winsorized
    for (size_t k = 0; k < g; ++k) w[k] = x[g], w[x.size() - 1 - k] = x[x.size() - 1 - g];
    double wmean = std::accumulate(w.begin(), w.end(), 0.0) / n, ss = 0;
    for (double v : w) ss += (v - wmean) * (v - wmean);
    double se = std::sqrt(ss / (n - 1)) / (static_cast<double>(m) / n * std::sqrt(n));
    if (tmean > 0) t_p = se > 0 ? t_two_sided_p(tmean / se, static_cast<double>(m - 1)) / 2 : 0.0;
  }
  f.made_up = tail < 0.01 || t_p < 0.01;
  std::vector<double> sorted = caught;
  std::sort(sorted.begin(), sorted.end());
  double med = median(caught);
  // The 95 % interval of the median from order statistics (normal approximation of the binomial).
  double half = 0.98 * std::sqrt(n);
  auto lo_i = static_cast<size_t>(std::max(0.0, std::floor(n / 2 - half)));
  auto hi_i = static_cast<size_t>(std::min(n - 1, std::ceil(n / 2 + half)));
  f.band_ms = 1e3 * std::max(med - sorted[lo_i], sorted[hi_i] - med);
  double med_excess = median(excesses);
  f.ms = f.made_up ? 1e3 * std::clamp(med, 0.0, med_excess) : 0;
  f.why = f.made_up
              ? fmt::format("catch-up: {} pauses, {} made something up (sign test p {:.2g}, trimmed t test p {:.2g}), "
                            "each {:.0f} ms (median) of a median excess of {:.0f} ms",
                            caught.size(), pos, tail, t_p, med * 1e3, med_excess * 1e3)
              : fmt::format("catch-up: {} pauses, {} made something up (sign test p {:.2g}, trimmed t test p {:.2g}; "
                            "0.01 needed): device.catchup_ms left at 0",
                            caught.size(), pos, tail, t_p);
  return f;
}

}  // namespace sd::cal
