// Generic fitting pieces for calibrate (Eigen least squares). Nothing here
// knows about drives: the parameter-group fits in groups.h build on these.
//
// Every fit reports a 95 % confidence half-width ("band") next to its value,
// the coefficient of determination R² and the number of points it used.
#pragma once
#include <cstddef>
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

}  // namespace sd::cal
