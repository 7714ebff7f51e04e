// The single-threaded sweeps: blocksize, sustained, fill. See sweeps.h.
#include "sim/sweeps.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "models/units.h"
#include "sim/sweep_common.h"

namespace sd {
using namespace sweep_detail;

namespace {

struct WriteRun {
  double bytes = 0, seconds = 0, latency_max = 0;
  uint64_t writes = 0;
  int error = 0;
};

// Writes `block` back to back into `f` from offset 0 until `seconds` have
// passed (0: no limit) or `max_bytes` are written (0: no cap; at least one
// write), syncing as `fsync` says. `on_write(fraction_of_run, rate)` reports.
template <class OnWrite>
WriteRun write_run(const SweepEnv& env, Issuer& io, FileId f, uint64_t block, double seconds, double max_bytes,
                   bool direct, FsyncMode fsync, OnWrite on_write) {
  WriteRun w;
  double t0 = env.clock->now();
  uint64_t off = 0;
  while (!cancelled(env)) {
    double now = env.clock->now();
    if (seconds > 0 && now - t0 >= seconds) break;
    if (max_bytes > 0 && off > 0 && static_cast<double>(off + block) > max_bytes) break;
    Completion c = io.issue({OpKind::Write, f, off, block, direct});
    if (fsync == FsyncMode::Every && !c.error) c.done = io.issue({OpKind::Fsync, f, 0, 0, direct}).done;
    w.latency_max = std::max(w.latency_max, c.done - now);
    off += c.bytes;
    ++w.writes;
    if (c.error || c.bytes == 0) {
      w.error = c.error ? c.error : EIO;
      break;
    }
    double el = c.done - t0;
    double frac = seconds > 0 ? el / seconds : 0;
    if (max_bytes > 0) frac = std::max(frac, static_cast<double>(off) / max_bytes);
    on_write(frac, el > 0 ? static_cast<double>(off) / el : 0);
  }
  if (fsync != FsyncMode::Never && w.writes > 0) io.issue({OpKind::Fsync, f, 0, 0, direct});
  w.bytes = static_cast<double>(off);
  w.seconds = env.clock->now() - t0;
  return w;
}

}  // namespace

// ---- blocksize ----

BlockSizeResult run_blocksize_sweep(const SweepEnv& env, const BlockSizeSweep& s) {
  BlockSizeResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  const double phases = static_cast<double>(s.blocks.size()) * (s.read ? 2 : 1);
  double phase = 0;
  for (size_t i = 0; i < s.blocks.size() && !cancelled(env); ++i) {
    uint64_t b = s.blocks[i];
    FileId f = s.first_file + i;
    BlockSizePoint p;
    p.block = b;
    if (!io.create(f, s.direct, p.error)) {
      r.points.push_back(p);
      continue;
    }
    std::string label = "write " + size_label(b);
    WriteRun w = write_run(env, io, f, b, s.seconds, static_cast<double>(s.max_bytes), s.direct, s.fsync,
                           [&](double frac, double rate) { prog.report(label, (phase + frac) / phases, rate); });
    phase += 1;
    p.writes = w.writes;
    p.write_bytes = w.bytes;
    p.write_seconds = w.seconds;
    p.write_rate = w.seconds > 0 ? w.bytes / w.seconds : 0;
    p.write_latency_max = w.latency_max;
    p.error = w.error;
    if (s.read && w.bytes > 0 && !cancelled(env)) {
      p.cache = drop_cache(env, f);
      label = "read " + size_label(b);
      double t0 = env.clock->now();
      uint64_t off = 0;
      while (!cancelled(env) && env.clock->now() - t0 < s.seconds && static_cast<double>(off) < w.bytes) {
        Completion c = io.issue({OpKind::Read, f, off, b, s.direct});
        ++p.reads;
        if (c.error || c.bytes == 0) {
          if (c.error) p.error = c.error;
          break;
        }
        off += c.bytes;
        double el = c.done - t0;
        prog.report(label, (phase + std::max(el / s.seconds, off / w.bytes)) / phases,
                    el > 0 ? static_cast<double>(off) / el : 0);
      }
      p.read_bytes = static_cast<double>(off);
      p.read_seconds = env.clock->now() - t0;
      p.read_rate = p.read_seconds > 0 ? p.read_bytes / p.read_seconds : 0;
      phase += 1;
    }
    io.issue({OpKind::Close, f, 0, 0, s.direct});
    io.issue({OpKind::Remove, f, 0, 0, s.direct});
    r.points.push_back(p);
  }
  r.cancelled = cancelled(env);
  return r;
}

// ---- sustained ----

namespace {

// Index of the first window from which the rate stays below 70 % of the
// initial rate (that window and the mean of all after it), or -1.
int cliff_window(const std::vector<RateWindow>& w, double initial) {
  double limit = 0.7 * initial;
  double suffix = 0;
  std::vector<double> mean_from(w.size() + 1, 0);
  for (size_t i = w.size(); i-- > 0;) {
    suffix += w[i].rate;
    mean_from[i] = suffix / static_cast<double>(w.size() - i);
  }
  for (size_t i = 1; i < w.size(); ++i)
    if (w[i].rate < limit && mean_from[i] < limit) return static_cast<int>(i);
  return -1;
}

// The median of the first three windows (fewer if the run is short): robust
// to one slow start-up window, short enough for a small burst cache.
double initial_rate(const std::vector<RateWindow>& w, double window) {
  size_t k = std::clamp<size_t>(3, 1, std::max<size_t>(1, w.size() / 2));
  std::vector<double> r;
  for (size_t i = 0; i < std::min(k, w.size()); ++i) r.push_back(w[i].rate);
  return median(r);
}

// Refines a cliff found at window `wi` to the write where it happens: the
// first write from the previous window on whose own rate, and the median rate
// of the 16 writes after it, are below 70 % of the initial rate.
void locate_cliff(SustainedResult& r, const std::vector<double>& ends, double block, int wi) {
  double limit = 0.7 * r.initial_rate;
  double from = r.windows[static_cast<size_t>(std::max(0, wi - 1))].start;
  auto rate_of = [&](size_t i) { return r.latencies[i] > 0 ? block / r.latencies[i] : INFINITY; };
  for (size_t i = 0; i < ends.size(); ++i) {
    if (ends[i] < from || rate_of(i) >= limit) continue;
    std::vector<double> next;
    for (size_t j = i; j < std::min(ends.size(), i + 16); ++j) next.push_back(rate_of(j));
    if (median(next) >= limit) continue;
    r.cliff_seconds = ends[i] - r.latencies[i];
    r.cliff_bytes = block * static_cast<double>(i);
    return;
  }
  r.cliff_seconds = r.windows[static_cast<size_t>(wi)].start;
  r.cliff_bytes = 0;
  for (int i = 0; i < wi; ++i) *r.cliff_bytes += r.windows[static_cast<size_t>(i)].bytes;
}

// After a cliff: the last 3 s of windows vary by less than 10 %.
bool steady(const std::vector<RateWindow>& w, double window, int cliff) {
  size_t k = static_cast<size_t>(std::ceil(3.0 / window));
  if (cliff < 0 || w.size() < static_cast<size_t>(cliff) + k) return false;
  double sum = 0, sq = 0;
  for (size_t i = w.size() - k; i < w.size(); ++i) {
    sum += w[i].rate;
    sq += w[i].rate * w[i].rate;
  }
  double mean = sum / static_cast<double>(k);
  double var = std::max(0.0, sq / static_cast<double>(k) - mean * mean);
  return mean > 0 && std::sqrt(var) < 0.1 * mean;
}

// The device's own rate from `from` s on, from its counter's samples `dev`
// (the first `written_end` of them taken while writing, one more after the
// final fsync when `fsynced`): its long-run rate there, pauses and all (what
// it writes between them is the model's to split: characterize takes out the
// pauses the profile models), x the payload's share of what it wrote. The
// band: 95 % half-width from eight consecutive stretches' rates.
void device_rate(SustainedResult& r, const std::vector<std::pair<double, double>>& dev, size_t written_end,
                 double from, bool fsynced) {
  if (written_end < 3) return;
  size_t i0 = 0;  // the last sample at or before `from`
  while (i0 + 1 < written_end && dev[i0 + 1].first <= from) ++i0;
  size_t i1 = written_end - 1;
  double span = dev[i1].first - dev[i0].first;
  if (i1 < i0 + 2 || !(span > 0)) return;
  // The payload's share: what was written over what the device took from the
  // start to the end of the fsync. Above 1 the fsync did not reach the device
  // (the driver kept some): no share can be told, the raw rate is used.
  if (fsynced && dev.size() > written_end) {
    double took = dev.back().second - dev.front().second;
    if (took > 0 && r.bytes / took <= 1.02) {
      r.payload_share = std::min(1.0, r.bytes / took);
      r.payload_share_measured = true;
    }
  }
  r.device_rate = (dev[i1].second - dev[i0].second) / span * r.payload_share;
  r.device_spans = i1 - i0;
  constexpr size_t kBatches = 8;
  if (r.device_spans < 2 * kBatches) return;
  std::vector<double> rates;
  for (size_t k = 0; k < kBatches; ++k) {
    size_t a = i0 + (i1 - i0) * k / kBatches, b = i0 + (i1 - i0) * (k + 1) / kBatches;
    double dt = dev[b].first - dev[a].first;
    if (dt > 0) rates.push_back((dev[b].second - dev[a].second) / dt * r.payload_share);
  }
  if (rates.size() < 2) return;
  double mean = 0, sq = 0;
  for (double x : rates) mean += x;
  mean /= static_cast<double>(rates.size());
  for (double x : rates) sq += (x - mean) * (x - mean);
  r.device_rate_band = 1.96 * std::sqrt(sq / static_cast<double>(rates.size() - 1)) /
                       std::sqrt(static_cast<double>(rates.size()));
}

}  // namespace

SustainedResult run_sustained_sweep(const SweepEnv& env, const SustainedSweep& s) {
  SustainedResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  if (!io.create(s.file, s.direct, r.error)) return r;
  std::vector<double> ends;  // completion of each write, from t0
  double t0 = env.clock->now();
  // The device's own count (SweepEnv::device_written): at the start, where
  // each window closed and after the last write, as (seconds from t0, bytes).
  std::vector<std::pair<double, double>> dev;
  auto sample_device = [&] {
    if (!env.device_written) return;
    double b = env.device_written();
    if (b >= 0) dev.emplace_back(env.clock->now() - t0, b);
  };
  sample_device();
  uint64_t off = 0;
  RateWindow cur{0, s.window, 0, 0};
  auto close_windows = [&](double upto) {  // closes every window that ends by `upto`
    bool closed = false;
    while (cur.end <= upto) {
      cur.rate = cur.bytes / s.window;
      r.windows.push_back(cur);
      cur = {cur.end, cur.end + s.window, 0, 0};
      closed = true;
    }
    return closed;
  };
  while (!cancelled(env) && off < s.max_bytes) {
    double now = env.clock->now();
    if (s.max_seconds > 0 && now - t0 >= s.max_seconds) break;
    Completion c = io.issue({OpKind::Write, s.file, off, s.block, s.direct});
    if (s.fsync == FsyncMode::Every && !c.error) c.done = io.issue({OpKind::Fsync, s.file, 0, 0, s.direct}).done;
    if (c.error || c.bytes == 0) {
      r.error = c.error ? c.error : EIO;
      break;
    }
    off += c.bytes;
    r.latencies.push_back(c.done - now);
    ends.push_back(c.done - t0);
    bool closed = close_windows(c.done - t0);
    if (closed) sample_device();
    if (closed && s.until_steady && r.windows.size() >= 4) {
      double init = initial_rate(r.windows, s.window);
      if (steady(r.windows, s.window, cliff_window(r.windows, init))) {
        cur.bytes += static_cast<double>(c.bytes);
        break;
      }
    }
    cur.bytes += static_cast<double>(c.bytes);
    double el = c.done - t0;
    double frac = std::max(static_cast<double>(off) / static_cast<double>(s.max_bytes),
                           s.max_seconds > 0 ? el / s.max_seconds : 0);
    prog.report("sustained write " + size_label(s.block), frac, el > 0 ? off / el : 0);
  }
  double last = ends.empty() ? 0 : ends.back();
  if (cur.bytes > 0 && last > cur.start && (last - cur.start >= s.window / 2 || r.windows.empty())) {
    // a partial last window (or the only one), over the time it covers
    cur.end = last;
    cur.rate = cur.bytes / (cur.end - cur.start);
    r.windows.push_back(cur);
  }
  sample_device();
  size_t dev_written_end = dev.size();
  if (s.fsync != FsyncMode::Never && !ends.empty()) {
    double f0 = env.clock->now();
    io.issue({OpKind::Fsync, s.file, 0, 0, s.direct});
    r.fsync_seconds = env.clock->now() - f0;
    sample_device();
  }
  io.issue({OpKind::Close, s.file, 0, 0, s.direct});
  io.issue({OpKind::Remove, s.file, 0, 0, s.direct});
  r.bytes = static_cast<double>(off);
  r.seconds = last + r.fsync_seconds;
  r.rate = r.seconds > 0 ? r.bytes / r.seconds : 0;
  if (!r.windows.empty()) {
    r.initial_rate = initial_rate(r.windows, s.window);
    size_t q = std::max<size_t>(1, r.windows.size() / 4);
    double sum = 0;
    for (size_t i = r.windows.size() - q; i < r.windows.size(); ++i) sum += r.windows[i].rate;
    r.final_rate = sum / static_cast<double>(q);
    int wi = cliff_window(r.windows, r.initial_rate);
    if (wi >= 0) locate_cliff(r, ends, static_cast<double>(s.block), wi);
    // The device's own rate: from the cliff on (past a write cache, or a page
    // cache's freerun ceiling), else over the second half.
    double from = r.cliff_seconds ? *r.cliff_seconds : r.windows[r.windows.size() / 2].start;
    device_rate(r, dev, dev_written_end, from, s.fsync != FsyncMode::Never);
  }
  r.cancelled = cancelled(env);
  return r;
}

// ---- fill ----

Result<FillResult> run_fill_sweep(const SweepEnv& env, const FillSweep& s) {
  if (!env.space) return Result<FillResult>::error("the fill sweep needs the device's capacity (internal: no space probe)");
  SpaceInfo sp = env.space();
  if (sp.total_bytes <= 0)
    return Result<FillResult>::error("the fill sweep needs a device with a known capacity (the profile has capacity_bytes = 0)");
  double fill0 = 1 - sp.free_bytes / sp.total_bytes;
  if (fill0 >= s.fill_to)
    return Result<FillResult>::error(fmt::format("the device is already {:.1f} % full, at or above the fill target "
                                                 "{:.1f} %; raise --fill-to or free some space",
                                                 fill0 * 100, s.fill_to * 100));
  FillResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  const double step = s.step_bytes > 0 ? s.step_bytes : 0.05 * sp.total_bytes;
  const double b = static_cast<double>(s.block);
  const double target = s.fill_to * sp.total_bytes;
  std::vector<FileId> made;
  for (FileId f = s.first_file; !cancelled(env); ++f) {
    sp = env.space();
    double used = sp.total_bytes - sp.free_bytes;
    double want = std::floor(std::min(step, target - used) / b) * b;
    if (want < b) break;
    if (!io.create(f, s.direct, r.error)) break;
    made.push_back(f);
    FillPoint p;
    p.fill_before = used / sp.total_bytes;
    std::string label = fmt::format("fill {:.0f} %", p.fill_before * 100);
    WriteRun w = write_run(env, io, f, s.block, 0, want, s.direct, s.fsync, [&](double frac, double rate) {
      prog.report(label, (used + frac * want - fill0 * sp.total_bytes) / (target - fill0 * sp.total_bytes), rate);
    });
    io.issue({OpKind::Close, f, 0, 0, s.direct});
    p.bytes = w.bytes;
    p.seconds = w.seconds;
    p.rate = w.seconds > 0 ? w.bytes / w.seconds : 0;
    SpaceInfo after = env.space();
    p.fill_after = 1 - after.free_bytes / after.total_bytes;
    r.points.push_back(p);
    if (w.error) {
      r.error = w.error;
      break;
    }
  }
  for (FileId f : made) io.issue({OpKind::Remove, f, 0, 0, s.direct});
  r.cancelled = cancelled(env);
  return r;
}

}  // namespace sd
