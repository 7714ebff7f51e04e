#include "calibrate/regimes.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibrate/fit.h"
#include "models/units.h"

namespace sd::cal {
namespace {

constexpr double kDrop = 0.7;  // a rate below 70 % of before is a cliff (as the sustained sweep's)

double rate_of(const IoOp& op) {
  double d = op.end - op.start;
  return d > 0 ? static_cast<double>(op.bytes) / d : INFINITY;
}

// Per-byte time of ops [a, b): their median.
double per_byte(const std::vector<IoOp>& w, size_t a, size_t b) {
  std::vector<double> v;
  for (size_t i = a; i < b; ++i) v.push_back((w[i].end - w[i].start) / static_cast<double>(std::max<uint64_t>(1, w[i].bytes)));
  return median(v);
}

// The first write of a drop inside ops [a, b), or b if there is none: from it
// on, the rolling median rate (9 writes) stays below 70 % of the point's
// typical fast rate for at least 80 % of the remaining writes.
size_t drop_inside(const std::vector<IoOp>& w, size_t a, size_t b) {
  size_t n = b - a;
  if (n < 16) return b;  // too few writes to tell a drop from jitter
  std::vector<double> m(n);
  for (size_t i = 0; i < n; ++i) {
    size_t lo = i >= 4 ? i - 4 : 0, hi = std::min(n, i + 5);
    std::vector<double> v;
    for (size_t k = lo; k < hi; ++k) v.push_back(rate_of(w[a + k]));
    m[i] = median(v);
  }
  std::vector<double> sorted = m;
  std::sort(sorted.begin(), sorted.end());
  double high = sorted[static_cast<size_t>(0.9 * static_cast<double>(n - 1))];
  double th = kDrop * high;
  // Ops before the drop must be fast: at least 8 of them, mostly above th.
  std::vector<size_t> below_from(n + 1, 0);
  for (size_t i = n; i-- > 0;) below_from[i] = below_from[i + 1] + (m[i] < th);
  for (size_t i = 8; i < n; ++i) {
    if (m[i] >= th) continue;
    double frac = static_cast<double>(below_from[i]) / static_cast<double>(n - i);
    size_t fast_before = i - below_from[0] + below_from[i];  // ops before i at or above th
    if (frac >= 0.8 && fast_before * 2 >= i) return a + i;
  }
  return b;
}

}  // namespace

SweepRegimes sweep_regimes(const std::vector<IoOp>& w) {
  SweepRegimes r;
  for (size_t i = 0; i < w.size();) {
    size_t j = i;
    while (j < w.size() && w[j].bytes == w[i].bytes) ++j;
    r.points.push_back({w[i].bytes, i, j - i, Regime::Before});
    i = j;
  }
  // The first cliff: inside a point, or between two points.
  size_t cliff = w.size();
  for (size_t p = 0; p < r.points.size() && cliff == w.size(); ++p) {
    const SweepPoint& pt = r.points[p];
    size_t end = pt.first_op + pt.ops;
    if (p > 0 && r.points[p - 1].ops >= 4 && pt.ops >= 4) {  // a time per byte from 1-3 writes is noise
      const SweepPoint& prev = r.points[p - 1];
      size_t q_prev = std::max<size_t>(1, prev.ops / 4), q = std::max<size_t>(1, pt.ops / 4);
      double before = per_byte(w, prev.first_op + prev.ops - q_prev, prev.first_op + prev.ops);
      double after = per_byte(w, pt.first_op, pt.first_op + q);
      if (pt.block > prev.block && after * kDrop > before) {
        cliff = pt.first_op;
        break;
      }
    }
    cliff = drop_inside(w, pt.first_op, end);
    if (cliff == end) cliff = w.size();
  }
  r.cliff = cliff < w.size();
  r.cliff_op = cliff;
  for (size_t i = 0; i < std::min(cliff, w.size()); ++i) r.cliff_bytes += static_cast<double>(w[i].bytes);
  std::vector<uint64_t> before_sizes, after_sizes;
  for (auto& pt : r.points) {
    size_t end = pt.first_op + pt.ops;
    pt.regime = end <= cliff ? Regime::Before : pt.first_op >= cliff ? Regime::After : Regime::Crosses;
    if (pt.first_op < cliff && std::min(end, cliff) - pt.first_op >= 3) before_sizes.push_back(pt.block);
    if (end > cliff && end - std::max(pt.first_op, cliff) >= 3) after_sizes.push_back(pt.block);
  }
  auto distinct = [](std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    return static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin());
  };
  size_t lo = 0, hi = w.size();
  if (!r.cliff) {
    r.kept = "all (one regime)";
  } else if (distinct(after_sizes) >= 3 || distinct(after_sizes) >= distinct(before_sizes)) {
    lo = cliff, r.kept = "past the cliff";
  } else {
    hi = cliff, r.kept = "before the cliff";
  }
  for (size_t i = lo; i < hi; ++i) r.keep.push_back(i);
  return r;
}

std::string regimes_text(const SweepRegimes& r) {
  if (!r.cliff) return "no write cliff inside the sweep: all points in one regime";
  auto sizes = [&](Regime g) {
    std::vector<std::string> v;
    for (const auto& p : r.points)
      if (p.regime == g) v.push_back(format_size(static_cast<double>(p.block)));
    return v;
  };
  std::vector<std::string> parts;
  if (auto v = sizes(Regime::Before); !v.empty()) parts.push_back(fmt::format("{} before it", fmt::join(v, ", ")));
  if (auto v = sizes(Regime::Crosses); !v.empty()) parts.push_back(fmt::format("{} across it", fmt::join(v, ", ")));
  if (auto v = sizes(Regime::After); !v.empty()) parts.push_back(fmt::format("{} past it", fmt::join(v, ", ")));
  return fmt::format("write cliff inside the sweep after {} written: {}; the per-op fit uses the points {}",
                     format_size(r.cliff_bytes), fmt::join(parts, "; "), r.kept);
}

}  // namespace sd::cal
