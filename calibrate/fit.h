// Generic fitting pieces for calibrate (Eigen least squares). Nothing here
// knows about drives: the parameter-group fits in groups.h build on these.
//
// Every fit reports a 95 % confidence half-width ("band") next to its value,
// the coefficient of determination R² and the number of points it used.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

namespace sd::cal {

// y = intercept + slope * x by ordinary least squares.
struct LineFit {
  double intercept = 0, slope = 0;
  double intercept_band = 0, slope_band = 0;  // 95 % half-widths (t distribution)
  double r2 = 0;
  double rmse = 0;  // residual standard error
  size_t n = 0;
  bool ok = false;  // false with fewer than 3 points or no spread in x
};
// `w`: optional weights (inverse variances); empty = ordinary least squares.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w = {});
// The same line fitted on the points whose residual from a first fit is small
// (|r| <= k * 1.4826 * MAD), repeated until nothing changes: robust to
// the occasional stall or scheduling hiccup in real logs.
LineFit fit_line_trimmed(const std::vector<double>& x, const std::vector<double>& y, double k = 4.0);

// Student t quantile for a two-sided 95 % interval with `dof` degrees of freedom.
double t95(size_t dof);
// P(|T| >= t) for Student's T with `dof` degrees of freedom (regularized
// incomplete beta by its continued fraction).
double t_two_sided_p(double t, double dof);

double median(std::vector<double> v);
double mad(const std::vector<double>& v, double med);  // median absolute deviation (raw)

// A continuous piecewise-linear curve y(x) with hinge points `knots`:
// y = a + s0 x + sum_k (s_{k+1} - s_k) max(0, x - knot_k). Used with x =
// cumulative bytes and y = cumulative busy time, so slopes are seconds per
// byte of each phase (burst cache, then sustained).
struct SegmentFit {
  std::vector<double> knots;   // increasing, in x units
  std::vector<double> slopes;  // knots.size() + 1 slopes
  double intercept = 0;
  double sse = 0;
  double r2 = 0;
  size_t n = 0;
  double knot_lo = 0, knot_hi = 0;  // 95 % profile band of the first knot
  bool ok = false;
};
// Least squares for fixed knots.
SegmentFit fit_segments_at(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& knots);
// Searches the knot(s) on a grid, then refines around the best: `pieces` is 2
// or 3. Knots stay at least `min_frac` of the x range from the ends and from
// each other. x must be increasing.
SegmentFit fit_segments(const std::vector<double>& x, const std::vector<double>& y, int pieces, double min_frac = 0.02);

// The minimum of f over N parameters by Nelder-Mead from x0 (simplex edges
// `step`), at most `iters` steps: for surfaces that are cheap but not smooth
// enough for gradients (read queueing, ceilings) or whose gradients are
// tedious (censored likelihoods).
template <size_t N>
std::array<double, N> nelder_mead(const std::function<double(const std::array<double, N>&)>& f,
                                  std::array<double, N> x0, double step, int iters) {
  using Theta = std::array<double, N>;
  std::array<Theta, N + 1> s;
  std::array<double, N + 1> v;
  for (size_t i = 0; i <= N; ++i) {
    s[i] = x0;
    if (i > 0) s[i][i - 1] += step;
    v[i] = f(s[i]);
  }
  for (int it = 0; it < iters; ++it) {
    std::array<size_t, N + 1> o;
    for (size_t i = 0; i <= N; ++i) o[i] = i;
    std::sort(o.begin(), o.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    if (std::fabs(v[o[N]] - v[o[0]]) < 1e-12 * (1 + std::fabs(v[o[0]]))) break;
    Theta c{};
    for (size_t i = 0; i < N; ++i)
      for (size_t k = 0; k < N; ++k) c[k] += s[o[i]][k] / static_cast<double>(N);
    auto along = [&](double a) {
      Theta r;
      for (size_t k = 0; k < N; ++k) r[k] = c[k] + a * (s[o[N]][k] - c[k]);
      return r;
    };
    Theta r = along(-1);
    double fr = f(r);
    if (fr < v[o[0]]) {
      Theta e = along(-2);
      double fe = f(e);
      if (fe < fr) s[o[N]] = e, v[o[N]] = fe;
      else s[o[N]] = r, v[o[N]] = fr;
    } else if (fr < v[o[N - 1]]) {
      s[o[N]] = r, v[o[N]] = fr;
    } else {
      Theta k = along(0.5);
      double fk = f(k);
      if (fk < v[o[N]]) {
        s[o[N]] = k, v[o[N]] = fk;
      } else {
        for (size_t i = 1; i <= N; ++i) {
          for (size_t d = 0; d < N; ++d) s[o[i]][d] = s[o[0]][d] + 0.5 * (s[o[i]][d] - s[o[0]][d]);
          v[o[i]] = f(s[o[i]]);
        }
      }
    }
  }
  return s[static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin())];
}

}  // namespace sd::cal
