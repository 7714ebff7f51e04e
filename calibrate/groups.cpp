#include "calibrate/groups.h"

#include "calibrate/pauses.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace sd::cal {
namespace {

constexpr double kIdleGapS = 0.5;
constexpr double kResolvedWrites = 4;  // writes the shortest recovery gap must give back to time the quiet  // idle this long before a write is a gap in a sustained write

struct MeanBand {
  double mean = 0, band = 0;
  size_t n = 0;
};
MeanBand mean_band(const std::vector<double>& v) {
  MeanBand m;
  m.n = v.size();
  if (v.empty()) return m;
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  m.mean = s / static_cast<double>(m.n);
  for (double x : v) s2 += (x - m.mean) * (x - m.mean);
  if (m.n > 1) m.band = t95(m.n - 1) * std::sqrt(s2 / static_cast<double>(m.n - 1) / static_cast<double>(m.n));
  return m;
}

}  // namespace

CleanWrites clean_writes(const std::vector<IoOp>& ops, bool smooth) {
  CleanWrites w;
  double prev_end = -1;
  for (const auto& op : ops) {
    if (op.read) continue;
    if (op.bytes > 0) {
      w.bytes.push_back(static_cast<double>(op.bytes));
      w.duration.push_back(std::max(0.0, op.end - op.start));
      w.gap_before.push_back(prev_end < 0 ? 0.0 : std::max(0.0, op.start - prev_end));
      w.total_bytes += static_cast<double>(op.bytes);
    }
    prev_end = op.end;
    w.last_error = op.error;
  }
  if (!smooth) return w;
  // Pauses (calibrate/pauses.h) are replaced by the baseline; consecutive slow
  // writes are one pause.
  SlowWrites sw = find_slow_writes(w.duration, w.bytes);
  for (size_t i = 0; i < w.duration.size(); ++i) {
    if (!sw.slow[i]) continue;
    double excess = w.duration[i] - sw.expected[i];
    if (i > 0 && sw.slow[i - 1]) {
      w.stall_s.back() += excess;
    } else {
      w.stall_s.push_back(excess);
      w.stall_at.push_back(i);
    }
    w.duration[i] = sw.expected[i];
  }
  return w;
}

SweepFit fit_block_sweep(const std::vector<double>& bytes, const std::vector<double>& seconds) {
  SweepFit f;
  std::map<double, std::vector<double>> by_size;
  for (size_t i = 0; i < bytes.size(); ++i) by_size[bytes[i]].push_back(seconds[i]);
  std::vector<double> x, y, w;
  for (auto& [b, d] : by_size) {
    if (d.size() < 3) continue;
    // Drop stalls and hiccups: far from the typical time for this size.
    double med = median(d), s = 1.4826 * mad(d, med);
    std::vector<double> kept;
    for (double v : d)
      if (s == 0 || std::fabs(v - med) <= 6 * s) kept.push_back(v);
    MeanBand m = mean_band(kept);
    double var = std::pow(m.band / t95(std::max<size_t>(1, m.n - 1)), 2);  // variance of the mean
    var = std::max(var, std::pow(1e-6 * m.mean, 2));
    x.push_back(b), y.push_back(m.mean), w.push_back(1 / var);
    f.points += m.n;
  }
  f.sizes = x.size();
  if (x.size() < 3) {
    f.why = fmt::format("a block-size sweep needs at least 3 block sizes with 3+ writes each (got {})", x.size());
    return f;
  }
  LineFit line = fit_line(x, y, w);
  if (!line.ok || line.slope <= 0) {
    f.why = "time per write does not grow with the block size: not a block-size sweep";
    return f;
  }
  f.ok = true;
  f.overhead_s = line.intercept;
  f.overhead_band = line.intercept_band;
  f.mbps = 1 / line.slope / 1e6;
  f.mbps_band = f.mbps * line.slope_band / line.slope;
  f.r2 = line.r2;
  return f;
}

SweepFit fit_block_sweep_rates(const std::vector<RatePoint>& rates) {
  std::vector<double> x, y;
  for (const auto& r : rates)
    if (!r.read && r.threads == 1) {
      // Three identical points stand in for the one measurement so the
      // per-size machinery applies; the band then comes from the line's scatter.
      for (int k = 0; k < 3; ++k) x.push_back(r.block_bytes), y.push_back(r.block_bytes / (r.mbps * 1e6));
    }
  SweepFit f = fit_block_sweep(x, y);
  if (!f.ok) return f;
  LineFit line;
  std::vector<double> ux, uy;
  for (size_t i = 0; i < x.size(); i += 3) ux.push_back(x[i]), uy.push_back(y[i]);
  line = fit_line(ux, uy);
  f.overhead_s = line.intercept, f.overhead_band = line.intercept_band;
  f.mbps = 1 / line.slope / 1e6, f.mbps_band = f.mbps * line.slope_band / line.slope;
  f.r2 = line.r2, f.points = ux.size();
  return f;
}

TimelineFit fit_timeline(const CleanWrites& w) {
  TimelineFit f;
  size_t n = w.duration.size();
  if (n < 50) {
    f.why = fmt::format("a sustained-write timeline needs 50+ writes (got {})", n);
    return f;
  }
  f.block = median(w.bytes);
  // An idle gap: far longer than a write, and never above half a second (a
  // flat-out writer is never idle that long; a characterization's recovery
  // gaps of 1 s and more must all count, however slow its writes are).
  double gap_limit = std::min(kIdleGapS, std::max(0.01, 20 * median(w.duration)));
  size_t run = 1;
  while (run < n && w.gap_before[run] <= gap_limit) ++run;
  std::vector<double> x{0}, y{0};
  for (size_t i = 0; i < run; ++i) x.push_back(x.back() + w.bytes[i]), y.push_back(y.back() + w.duration[i]);
  SegmentFit one = fit_segments_at(x, y, {});
  SegmentFit two = fit_segments(x, y, 2, 0.01);
  f.has_burst = two.ok && two.slopes[1] > 1.05 * two.slopes[0] && two.sse < 0.25 * one.sse;
  std::vector<double> fast, slow;
  double knot = f.has_burst ? two.knots[0] : 0;
  for (size_t i = 0; i < run; ++i) {
    if (x[i + 1] <= knot) fast.push_back(w.duration[i]);
    else if (x[i] >= knot) slow.push_back(w.duration[i]);
  }
  if (slow.size() < 10) {
    f.why = "the timeline has too few writes after the rate change to measure the sustained rate";
    return f;
  }
  MeanBand s = mean_band(slow);
  f.ok = true;
  f.sustained_op_s = s.mean, f.sustained_op_band = s.band, f.sustained_points = s.n;
  for (size_t k = 0; k < w.stall_at.size(); ++k)
    if (size_t i = w.stall_at[k]; i < run && x[i] >= knot) f.sustained_pauses_s.push_back(w.stall_s[k]);
  f.r2 = (f.has_burst ? two : one).r2;
  if (!f.has_burst) return f;
  MeanBand b = mean_band(fast);
  f.burst_op_s = b.mean, f.burst_op_band = b.band, f.burst_points = b.n;
  f.burst_bytes = knot;
  f.burst_band = std::max((two.knot_hi - two.knot_lo) / 2, f.block / 2);
  // Recovery: after each idle gap past the knee, the cache takes the bytes it
  // freed at burst speed, then the rate falls back. F, the fast bytes, is the
  // change point of the segment's cumulative time with the two known slopes
  // (least squares over every write boundary). On real storage single writes
  // in the fast stretch are often slow (a FUSE round trip, the host's
  // scheduler), so a walk that stops at the first slow write finds a fraction
  // of F; the whole segment's shape does not depend on one write. A segment
  // that is fast to its end (the refill ran out of time first) only bounds F
  // from below and is left out, like one that refilled the whole cache.
  double tau_fast = b.mean / f.block, tau_slow = s.mean / f.block;
  std::vector<double> ratios, gap_s, fast_b;
  double sum_f = 0, sum_t = 0;
  double cum = 0;
  for (size_t i = 0; i < n; ++i) {
    bool after_knee = cum > knot + f.block;
    cum += w.bytes[i];
    if (i < run || !after_knee || w.gap_before[i] <= gap_limit) continue;
    std::vector<double> xs{0}, ys{0};  // cumulative bytes and time over the segment
    for (size_t k = i; k < n && (k == i || w.gap_before[k] <= gap_limit); ++k)
      xs.push_back(xs.back() + w.bytes[k]), ys.push_back(ys.back() + w.duration[k]);
    size_t best = 0;
    double best_sse = INFINITY;
    for (size_t j = 0; j < xs.size(); ++j) {
      double sse = 0;
      for (size_t k = 1; k < xs.size(); ++k) {
        double pred = tau_fast * std::min(xs[k], xs[j]) + tau_slow * std::max(0.0, xs[k] - xs[j]);
        sse += (ys[k] - pred) * (ys[k] - pred);
      }
      if (sse < best_sse) best_sse = sse, best = j;
    }
    double F = xs[best];
    ++f.gaps;
    if (F >= 0.95 * f.burst_bytes) {
      f.recovery_saturated = true;
      continue;
    }
    if (best + 1 == xs.size() && xs.size() > 2) continue;  // fast to the end: a lower bound only
    ratios.push_back(F / w.gap_before[i]);
    gap_s.push_back(w.gap_before[i]), fast_b.push_back(F);
    sum_f += F, sum_t += w.gap_before[i];
  }
  if (!ratios.empty() && sum_t > 0) {
    f.has_recovery = true;
    f.recover_bps = sum_f / sum_t;
    MeanBand r = mean_band(ratios);
    f.recover_band = std::max(r.band, f.block / sum_t);
    // Gaps of two or more lengths: F = rate x (gap - quiet time before the
    // cache starts to empty). A drive that folds only after an idle spell
    // gives back less after a short gap than the long gaps' rate says.
    double lo = *std::min_element(gap_s.begin(), gap_s.end()), hi = *std::max_element(gap_s.begin(), gap_s.end());
    // Only where the shortest gap gives back several writes' worth: bytes
    // counted in whole writes say nothing of a quiet time shorter than that.
    if (gap_s.size() >= 2 && hi > 1.5 * lo && f.recover_bps * lo >= kResolvedWrites * f.block) {
      LineFit l = fit_line(gap_s, fast_b);
      if (!l.ok && gap_s.size() == 2) {  // two gaps: the line through them, no band of its own
        l.slope = (fast_b[1] - fast_b[0]) / (gap_s[1] - gap_s[0]);
        l.intercept = fast_b[0] - l.slope * gap_s[0];
        l.ok = true;
      }
      if (l.ok && l.slope > 0 && l.intercept < 0) {
        f.recover_bps = l.slope;
        f.recover_band = std::max(l.slope_band, f.block / sum_t);
        f.recover_idle_s = std::min(-l.intercept / l.slope, lo);
        f.recover_idle_band = std::hypot(l.intercept_band / l.slope, f.recover_idle_s * l.slope_band / l.slope);
      }
    }
  }
  return f;
}

HostFit fit_host_cache(const std::vector<IoOp>& ops) {
  HostFit f;
  std::vector<double> x{0}, y{0}, d, b;
  double t0 = -1;
  for (const auto& op : ops) {
    if (op.read || op.bytes == 0) continue;
    if (t0 < 0) t0 = op.start;
    x.push_back(x.back() + static_cast<double>(op.bytes));
    y.push_back(op.end - t0);
    d.push_back(op.end - op.start), b.push_back(static_cast<double>(op.bytes));
  }
  f.points = d.size();
  if (d.size() < 50) {
    f.why = fmt::format("buffered writes: need 50+ writes (got {})", d.size());
    return f;
  }
  SegmentFit two = fit_segments(x, y, 2, 0.01);
  if (!two.ok || two.slopes[1] < 1.5 * two.slopes[0]) {
    f.why = "buffered writes show no fast phase: the page cache is larger than the data written, or absent";
    return f;
  }
  SegmentFit use = two;
  if (d.size() >= 200) {
    SegmentFit three = fit_segments(x, y, 3, 0.01);
    if (three.ok && three.sse < 0.3 * two.sse && three.slopes[1] > 1.5 * three.slopes[0] &&
        three.slopes[2] > 1.05 * three.slopes[1])
      use = three;  // the device's own burst cache ran out later
  }
  double knot = use.knots[0];
  double next = use.knots.size() > 1 ? use.knots[1] : x.back();
  std::vector<double> fast, slow;
  for (size_t i = 0; i < d.size(); ++i) {
    if (x[i + 1] <= knot) fast.push_back(d[i] / b[i]);
    else if (x[i] >= knot && x[i + 1] <= next) slow.push_back(d[i] / b[i]);
  }
  if (fast.size() < 5 || slow.size() < 5) {
    f.why = "buffered writes: too few writes on one side of the cache-full point";
    return f;
  }
  MeanBand mf = mean_band(fast), ms = mean_band(slow);
  double tc = use.intercept + use.slopes[0] * knot;  // when the cache filled
  double drain = 1 / ms.mean, drain_band = drain * ms.band / ms.mean;
  f.ok = true;
  f.memory_mbps = 1 / mf.mean / 1e6;
  f.memory_band = f.memory_mbps * mf.band / mf.mean;
  f.drain_mbps = drain / 1e6;
  // Dirty data at the knee = written - already drained to the device.
  f.dirty_limit = knot - drain * tc;
  f.dirty_band = std::hypot((use.knot_hi - use.knot_lo) / 2, tc * drain_band) + median(b);
  f.r2 = use.r2;
  return f;
}

FillFit fit_fill(const CleanWrites& w, double prefill, double capacity, double skip_bytes, double overhead_s) {
  FillFit f;
  std::vector<double> fill, rate;
  double cum = 0;
  for (size_t i = 0; i < w.duration.size(); ++i) {
    cum += w.bytes[i];
    double busy = w.duration[i] - overhead_s;
    if (cum <= skip_bytes || busy <= 0) continue;
    fill.push_back((prefill + cum) / capacity);
    rate.push_back(w.bytes[i] / busy);
  }
  f.points = fill.size();
  if (fill.size() < 50) {
    f.why = fmt::format("a fill sweep needs 50+ writes past the burst phase (got {})", fill.size());
    return f;
  }
  SegmentFit two = fit_segments(fill, rate, 2, 0.01);
  if (!two.ok) {
    f.why = "the fill sweep could not be fitted";
    return f;
  }
  double knee = two.knots[0];
  double at_knee = two.intercept + two.slopes[0] * knee;
  double at_full = at_knee + two.slopes[1] * (1 - knee);
  size_t before = 0;
  for (double v : fill) before += v <= knee;
  double rmse = std::sqrt(two.sse / static_cast<double>(fill.size() - 3));
  double se_knee = rmse / std::sqrt(std::max<double>(1, static_cast<double>(before)));
  double se_full = 2 * rmse / std::sqrt(std::max<double>(1, static_cast<double>(fill.size() - before)));
  if (at_full > at_knee - 2 * std::hypot(se_knee, se_full) || at_full > 0.99 * at_knee) {
    f.why = fmt::format("the rate does not fall with the fill level up to {:.0f} % full", fill.back() * 100);
    return f;
  }
  f.ok = true;
  f.knee = knee;
  f.knee_band = std::max((two.knot_hi - two.knot_lo) / 2, 1 / capacity);
  f.floor = std::max(0.001, at_full / at_knee);
  f.floor_band = f.floor * 1.96 * std::hypot(se_knee / at_knee, se_full / at_full);
  f.r2 = two.r2;
  return f;
}

}  // namespace sd::cal
