#include "calibrate/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace sd::cal {

double t95(size_t dof) {
  // Table for small samples, then the normal value's Cornish-Fisher correction.
  static const double small[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
  if (dof == 0) return std::numeric_limits<double>::infinity();
  if (dof <= 20) return small[dof];
  double z = 1.959964, d = static_cast<double>(dof);
  return z + (z * z * z + z) / (4 * d) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

namespace {
// Continued fraction of the regularized incomplete beta I_x(a, b), modified
// Lentz's method (converges for x < (a + 1) / (a + b + 2)).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    for (int half = 0; half < 2; ++half) {
      d = 1 + num * d;
      if (std::fabs(d) < tiny) d = tiny;
      c = 1 + num / c;
      if (std::fabs(c) < tiny) c = tiny;
      d = 1 / d;
      h *= d * c;
      num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    }
    if (std::fabs(d * c - 1) < 1e-14) break;
  }
  return h;
}
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}
}  // namespace

double t_two_sided_p(double t, double dof) {
  if (!(dof > 0)) return 1;
  if (std::isinf(t)) return 0;
  return incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(m), v.end());
  double hi = v[m];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<long>(m));
  return (lo + hi) / 2;
}

double mad(const std::vector<double>& v, double med) {
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - med));
  return median(std::move(d));
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w) {
  LineFit f;
  f.n = x.size();
  if (f.n < 3) return f;
  Eigen::MatrixXd A(f.n, 2);
  Eigen::VectorXd b(f.n);
  for (size_t i = 0; i < f.n; ++i) {
    double sw = w.empty() ? 1.0 : std::sqrt(w[i]);
    A(i, 0) = sw, A(i, 1) = sw * x[i], b(i) = sw * y[i];
  }
  // Scale the x column so the normal matrix is well conditioned (bytes vs 1).
  double sx = A.col(1).cwiseAbs().maxCoeff();
  if (sx <= 0) return f;
  A.col(1) /= sx;
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  if (qr.rank() < 2) return f;
  Eigen::Vector2d beta = qr.solve(b);
  Eigen::VectorXd r = b - A * beta;
  double sse = r.squaredNorm();
  // Weighted total sum of squares about the weighted mean.
  double sw2 = A.col(0).squaredNorm();
  double mean = A.col(0).dot(b) / sw2;
  double sst = (b - mean * A.col(0)).squaredNorm();
  size_t dof = f.n - 2;
  double s2 = sse / static_cast<double>(dof);
  Eigen::Matrix2d cov = s2 * (A.transpose() * A).inverse();
  double t = t95(dof);
  f.intercept = beta(0);
  f.slope = beta(1) / sx;
  f.intercept_band = t * std::sqrt(cov(0, 0));
  f.slope_band = t * std::sqrt(cov(1, 1)) / sx;
  f.r2 = sst > 0 ? 1 - sse / sst : 1;
  f.rmse = std::sqrt(s2);
  f.ok = true;
  return f;
}

LineFit fit_line_trimmed(const std::vector<double>& x, const std::vector<double>& y, double k) {
  std::vector<double> xs = x, ys = y;
  LineFit f = fit_line(xs, ys);
  for (int iter = 0; iter < 10 && f.ok; ++iter) {
    std::vector<double> res;
    for (size_t i = 0; i < x.size(); ++i) res.push_back(y[i] - f.intercept - f.slope * x[i]);
    double med = median(res);
    double scale = 1.4826 * mad(res, med);
    if (scale <= 0) break;
    std::vector<double> nx, ny;
    for (size_t i = 0; i < x.size(); ++i)
      if (std::fabs(res[i] - med) <= k * scale) nx.push_back(x[i]), ny.push_back(y[i]);
    if (nx.size() == xs.size()) break;
    xs = std::move(nx), ys = std::move(ny);
    LineFit g = fit_line(xs, ys);
    if (!g.ok) break;
    f = g;
  }
  return f;
}

SegmentFit fit_segments_at(const std::vector<double>& x, const std::vector<double>& y,
                           const std::vector<double>& knots) {
  SegmentFit f;
  f.n = x.size();
  size_t p = 2 + knots.size();
  if (f.n < p + 2) return f;
  double sx = std::max(std::fabs(x.front()), std::fabs(x.back()));
  if (sx <= 0) return f;
  Eigen::MatrixXd A(f.n, p);
  Eigen::VectorXd b(f.n);
  for (size_t i = 0; i < f.n; ++i) {
    double xi = x[i] / sx;
    A(i, 0) = 1;
    A(i, 1) = xi;
    for (size_t k = 0; k < knots.size(); ++k) A(i, 2 + k) = std::max(0.0, xi - knots[k] / sx);
    b(i) = y[i];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  if (qr.rank() < static_cast<long>(p)) return f;
  Eigen::VectorXd beta = qr.solve(b);
  Eigen::VectorXd r = b - A * beta;
  f.sse = r.squaredNorm();
  double sst = (b.array() - b.mean()).square().sum();
  f.r2 = sst > 0 ? 1 - f.sse / sst : 1;
  f.knots = knots;
  f.intercept = beta(0);
  double s = beta(1) / sx;
  f.slopes.push_back(s);
  for (size_t k = 0; k < knots.size(); ++k) f.slopes.push_back(s += beta(2 + k) / sx);
  f.knot_lo = f.knot_hi = knots.empty() ? 0 : knots[0];
  f.ok = true;
  return f;
}

namespace {

// Evenly thinned copy of (x, y) with at most `m` points: the curves are
// cumulative and smooth, so the search loses nothing that matters.
void thin(const std::vector<double>& x, const std::vector<double>& y, size_t m, std::vector<double>& tx,
          std::vector<double>& ty) {
  size_t step = std::max<size_t>(1, x.size() / m);
  for (size_t i = 0; i < x.size(); i += step) tx.push_back(x[i]), ty.push_back(y[i]);
  if (tx.back() != x.back()) tx.push_back(x.back()), ty.push_back(y.back());
}

}  // namespace

SegmentFit fit_segments(const std::vector<double>& x, const std::vector<double>& y, int pieces, double min_frac) {
  SegmentFit best;
  if (x.size() < 10 || pieces < 2 || pieces > 3) return best;
  std::vector<double> tx, ty;
  thin(x, y, 1500, tx, ty);
  double lo = x.front(), hi = x.back(), span = hi - lo, gap = min_frac * span;
  best.sse = std::numeric_limits<double>::infinity();
  const int grid = pieces == 2 ? 200 : 60;
  auto at = [&](int i) { return lo + gap + (span - 2 * gap) * i / grid; };
  std::vector<double> knots(pieces - 1);
  auto consider = [&](const std::vector<double>& k) {
    SegmentFit f = fit_segments_at(tx, ty, k);
    if (f.ok && f.sse < best.sse) best = f;
  };
  if (pieces == 2) {
    for (int i = 0; i <= grid; ++i) consider({at(i)});
  } else {
    for (int i = 0; i <= grid; ++i)
      for (int j = i + 1; j <= grid; ++j)
        if (at(j) - at(i) >= gap) consider({at(i), at(j)});
  }
  if (!best.ok) return best;
  // Refine each knot in turn on a finer grid around its coarse position.
  double step = (span - 2 * gap) / grid;
  for (int round = 0; round < 3; ++round) {
    for (size_t k = 0; k < best.knots.size(); ++k) {
      std::vector<double> base = best.knots;
      for (int i = -20; i <= 20; ++i) {
        std::vector<double> cand = base;
        cand[k] = base[k] + step * i / 10.0;
        if (cand[k] <= lo || cand[k] >= hi) continue;
        if (k > 0 && cand[k] <= cand[k - 1]) continue;
        if (k + 1 < cand.size() && cand[k] >= cand[k + 1]) continue;
        consider(cand);
      }
    }
    step /= 10;
  }
  // Final fit on all points; profile band of the first knot: the knots whose
  // SSE stays within the 95 % likelihood-ratio threshold of the best.
  SegmentFit full = fit_segments_at(x, y, best.knots);
  if (!full.ok) return best;
  // (Computed on the thinned points: cumulative residuals are correlated, so
  // the full count would overstate the information.)
  double p = static_cast<double>(best.knots.size() + 2);
  double thin_sse = fit_segments_at(tx, ty, best.knots).sse;
  double limit = thin_sse * (1 + 3.84 / std::max(1.0, static_cast<double>(tx.size()) - p));
  double k0 = full.knots[0], width = (span - 2 * gap) / grid;
  full.knot_lo = full.knot_hi = k0;
  for (int dir : {-1, 1}) {
    for (int i = 1; i <= 400; ++i) {
      std::vector<double> k = full.knots;
      k[0] = k0 + dir * width * i / 100.0;
      if (k[0] <= lo || k[0] >= hi || (k.size() > 1 && k[0] >= k[1])) break;
      if (fit_segments_at(tx, ty, k).sse > limit) break;
      (dir < 0 ? full.knot_lo : full.knot_hi) = k[0];
    }
  }
  return full;
}

}  // namespace sd::cal
