#include "calibrate/calibrate.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/regimes.h"
#include "calibrate/seek_fit.h"
#include "calibrate/driver_io.h"
#include "calibrate/pauses.h"
#include "models/profile.h"
#include "models/units.h"

namespace sd::cal {
namespace {

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// Block sizes with at least 3 writes: a sweep has several, a timeline one.
size_t block_sizes(const Series& s) {
  std::map<uint64_t, size_t> n;
  for (const auto& op : s.ops)
    if (!op.read) ++n[op.bytes];
  size_t k = 0;
  for (auto& [b, c] : n) k += c >= 3;
  return k;
}

// Read ops of a trace -> one rate point per block size.
void read_points(const Series& s, std::vector<RatePoint>& out) {
  struct Acc {
    double bytes = 0, first = 1e300, last = 0;
    std::set<int> threads;
  };
  std::map<uint64_t, Acc> by;
  for (const auto& op : s.ops) {
    if (!op.read || op.bytes == 0) continue;
    Acc& a = by[op.bytes];
    a.bytes += static_cast<double>(op.bytes);
    a.first = std::min(a.first, op.start), a.last = std::max(a.last, op.end);
    a.threads.insert(op.thread);
  }
  for (auto& [b, a] : by)
    if (a.last > a.first)
      out.push_back({static_cast<double>(b), static_cast<int>(a.threads.size()), a.bytes / (a.last - a.first) / 1e6,
                     true, 0, base_name(s.name)});
}

bool is_fill(const Series& s) {
  auto it = s.meta.find("sweep");
  if (it != s.meta.end() && it->second == "fill") return true;
  for (auto op = s.ops.rbegin(); op != s.ops.rend(); ++op)
    if (!op->read) return op->error == ENOSPC;
  return false;
}

// Checked when the trace was read (series_from_trace): absent or valid.
double meta_num(const Series& s, const char* key, double dflt) {
  auto v = meta_number(s.meta, key, s.name, 1e17);
  return v && *v ? **v : dflt;
}

struct Work {
  std::vector<Series> series;
  std::vector<RatePoint> rates;
};

Status load_all(const Options& o, Work& w, Calibration& c) {
  auto add = [&](Result<Series> s, bool buffered, bool baseline) -> Status {
    if (!s) return s.status();
    s->buffered |= buffered;
    s->baseline = baseline;
    c.inputs.push_back(s->name);
    w.series.push_back(std::move(*s));
    return {};
  };
  for (const auto& p : o.traces)
    if (Status st = add(load_native_trace(p), false, false); !st.ok()) return st;
  for (const auto& p : o.buffered)
    if (Status st = add(load_native_trace(p), true, false); !st.ok()) return st;
  for (const auto& p : o.baselines)
    if (Status st = add(load_native_trace(p), false, true); !st.ok()) return st;
  for (const auto& p : o.fio_logs)
    if (Status st = add(load_fio_lat_log(p), false, false); !st.ok()) return st;
  auto add_rates = [&](Result<std::vector<RatePoint>> r, const std::string& p) -> Status {
    if (!r) return r.status();
    c.inputs.push_back(p);
    w.rates.insert(w.rates.end(), r->begin(), r->end());
    return {};
  };
  for (const auto& p : o.fio_json)
    if (Status st = add_rates(load_fio_json(p), p); !st.ok()) return st;
  for (const auto& p : o.tables)
    if (Status st = add_rates(load_rate_table(p), p); !st.ok()) return st;
  if (c.inputs.empty()) return Status::error("calibrate needs at least one input: a trace, --fio-lat-log, --fio-json or --table");
  return {};
}

class Builder {
 public:
  explicit Builder(Calibration& c) : c_(c) {}
  void add(const std::string& key, double value, double band, double r2, size_t n, const std::string& method,
           const std::string& from, bool estimate = false) {
    c_.params.push_back({key, value, band, r2, n, method, from, estimate});
  }

 private:
  Calibration& c_;
};

std::string names(const std::vector<const Series*>& v) {
  std::vector<std::string> n;
  for (auto* s : v) n.push_back(base_name(s->name));
  return fmt::format("{}", fmt::join(n, ", "));
}

// The block-size sweep: per-op points from traces, else aggregate rates.
// A sweep that crossed the write-cache cliff is fitted on one regime only
// (calibrate/regimes.h); `notes` says which points were used.
SweepFit sweep_from(const std::vector<const Series*>& series, const std::vector<RatePoint>& rates,
                    std::vector<std::string>* notes = nullptr) {
  std::vector<double> x, y;
  for (auto* s : series) {
    std::vector<IoOp> writes;
    for (const auto& op : s->ops)
      if (!op.read && op.bytes > 0) writes.push_back(op);
    SweepRegimes reg = sweep_regimes(writes);
    if (reg.cliff && notes) notes->push_back(fmt::format("{}: {}", base_name(s->name), regimes_text(reg)));
    for (size_t i : reg.keep) x.push_back(static_cast<double>(writes[i].bytes)), y.push_back(writes[i].end - writes[i].start);
  }
  if (!x.empty()) return fit_block_sweep(x, y);
  return fit_block_sweep_rates(rates);
}

// What each input can inform, sorted once (step 0).
struct Sorted {
  std::vector<const Series*> sweeps, base_sweeps, timelines, buffered;
  // Paced writes (a recorder's pace: their pauses are stalls) and the
  // interleaved-files sweep (seek penalty), as `streamdisk characterize` writes them.
  std::vector<const Series*> paced, one_file, interleaved;
  // The sweeps the device's per-op cost comes from: the baseline filesystem's if given.
  const std::vector<const Series*>& device_sweeps() const { return base_sweeps.empty() ? sweeps : base_sweeps; }
};

// The per-op overhead a block-size sweep found (0 without one) and its band.
struct Overhead {
  double t0 = 0, band = 0;
  explicit Overhead(const SweepFit& f) : t0(f.ok ? std::max(0.0, f.overhead_s) : 0), band(f.ok ? f.overhead_band : 0) {}
};

// The longest sustained write and what its timeline fit found (step 2).
struct TimelineStep {
  const Series* series = nullptr;
  CleanWrites clean;
  TimelineFit fit;
};

// 0. Sorts the series by what they can inform (and collects their read points).
Sorted sort_series(Work& w, Calibration& c) {
  Sorted s;
  for (const auto& x : w.series) {
    read_points(x, w.rates);
    if (meta_of(x, "sweep") == "paced") {
      s.paced.push_back(&x);
      continue;
    }
    if (meta_of(x, "sweep") == "interleaved") {
      (meta_of(x, "phase") == "interleaved" ? s.interleaved : s.one_file).push_back(&x);
      continue;
    }
    bool has_writes = std::any_of(x.ops.begin(), x.ops.end(), [](const IoOp& op) { return !op.read; });
    if (!has_writes) continue;
    if (!x.baseline && is_paced(x)) {  // writes at a pace: they inform the stalls only
      s.paced.push_back(&x);
      continue;
    }
    if (!x.buffered && x.direct == false)
      c.notes.push_back(fmt::format("{}: buffered writes (direct=0): their times include the page cache; "
                                    "measure with --direct to see the device", base_name(x.name)));
    if (x.buffered) s.buffered.push_back(&x);
    else if (block_sizes(x) >= 3) (x.baseline ? s.base_sweeps : s.sweeps).push_back(&x);
    else if (!x.baseline) s.timelines.push_back(&x);
  }
  return s;
}

// A sweep may come as one file per block size (fio writes a log per job):
// pools single-size files when together they cover 3+ sizes.
void pool_single_size_files(Sorted& s) {
  if (!s.sweeps.empty()) return;
  std::set<uint64_t> sizes;
  for (auto* x : s.timelines)
    if (!is_fill(*x))
      for (const auto& op : x->ops)
        if (!op.read && op.bytes > 0) sizes.insert(op.bytes);
  if (sizes.size() < 3) return;
  // Those files are the sweep's points, not a sustained write.
  for (auto* x : s.timelines)
    if (!is_fill(*x)) s.sweeps.push_back(x);
  std::erase_if(s.timelines, [](const Series* x) { return !is_fill(*x); });
}

// 1. Per-op overhead and bandwidth (device; the baseline filesystem's sweep if given).
SweepFit fit_overhead(const Sorted& s, const std::vector<RatePoint>& rates, Calibration& c) {
  const auto& dev_sweeps = s.device_sweeps();
  SweepFit sweep = sweep_from(dev_sweeps, rates, &c.notes);
  std::string from = dev_sweeps.empty() ? "rate tables" : names(dev_sweeps);
  if (sweep.ok) {
    Overhead t0(sweep);
    Builder(c).add("device.op_overhead_us", t0.t0 * 1e6, t0.band * 1e6, sweep.r2, sweep.points, "block-size sweep",
                   from);
    if (sweep.overhead_s < 0) c.notes.push_back("the block-size sweep's intercept is negative (noise): op_overhead_us set to 0");
  } else if (!dev_sweeps.empty()) {
    c.notes.push_back(fmt::format("block-size sweep ({}): {}", from, sweep.why));
  }
  if (!sweep.ok && (!s.timelines.empty() || !s.buffered.empty()))
    c.notes.push_back("no block-size sweep: rates below include the per-operation overhead");
  return sweep;
}

// 2. Burst cache, sustained rate, recovery: the longest sustained write.
// (A fill sweep's slowdown near full is not a cache running out: prefer others.)
// Longest by writes (a read test's file is written once, then read many times).
TimelineStep fit_cache(const Sorted& s, const SweepFit& sweep, Calibration& c) {
  Builder out(c);
  auto writes_in = [](const Series* x) {
    return std::count_if(x->ops.begin(), x->ops.end(), [](const IoOp& op) { return !op.read; });
  };
  TimelineStep t;
  for (auto* x : s.timelines)
    if (!t.series || (is_fill(*t.series) && !is_fill(*x)) ||
        (is_fill(*t.series) == is_fill(*x) && writes_in(x) > writes_in(t.series)))
      t.series = x;
  if (t.series) {
    t.clean = clean_writes(t.series->ops);
    t.fit = fit_timeline(t.clean);
    if (!t.fit.ok) c.notes.push_back(fmt::format("timeline {}: {}", base_name(t.series->name), t.fit.why));
  }
  const TimelineFit& timeline = t.fit;
  Overhead t0(sweep);
  auto device_mbps = [&](double op_s, double op_band) {
    double busy = op_s - t0.t0;
    double v = timeline.block / busy / 1e6;
    return std::pair{v, v * std::hypot(op_band, t0.band) / busy};
  };
  if (timeline.ok) {
    std::string from = base_name(t.series->name);
    auto [sus, sus_b] = device_mbps(timeline.sustained_op_s, timeline.sustained_op_band);
    out.add("device.sustained_mbps", sus, sus_b, timeline.r2, timeline.sustained_points, "sustained-write timeline", from);
    if (timeline.has_burst) {
      auto [bm, bm_b] = device_mbps(timeline.burst_op_s, timeline.burst_op_band);
      out.add("device.burst_bytes", timeline.burst_bytes, timeline.burst_band, timeline.r2,
              timeline.burst_points + timeline.sustained_points, "sustained-write timeline (change point)", from);
      out.add("device.burst_mbps", bm, bm_b, timeline.r2, timeline.burst_points, "sustained-write timeline", from);
      if (timeline.has_recovery) {
        bool idle = timeline.recover_idle_s > 0;
        out.add("device.recover_mbps", timeline.recover_bps / 1e6, timeline.recover_band / 1e6, timeline.r2,
                timeline.gaps,
                idle ? "bytes at burst speed after idle gaps (the slope of bytes against gap length)"
                     : "bytes at burst speed after idle gaps",
                from);
        if (idle)
          out.add("device.recover_idle_ms", timeline.recover_idle_s * 1e3, timeline.recover_idle_band * 1e3,
                  timeline.r2, timeline.gaps,
                  "bytes at burst speed after idle gaps of several lengths: where the line of bytes against gap "
                  "length meets zero (the quiet time before the cache starts to empty)",
                  from);
      }
      else if (timeline.recovery_saturated)
        c.notes.push_back("the cache recovered fully in every idle gap: use shorter gaps to measure recover_mbps");
    } else {
      c.notes.push_back(fmt::format("no rate change in {} ({:.0f} MB): no burst cache seen (or one larger than the trace)",
                                    from, t.clean.total_bytes / 1e6));
    }
  } else if (sweep.ok) {
    const auto& dev_sweeps = s.device_sweeps();
    out.add("device.sustained_mbps", sweep.mbps, sweep.mbps_band, sweep.r2, sweep.points, "block-size sweep slope",
            dev_sweeps.empty() ? "rate tables" : names(dev_sweeps));
    c.notes.push_back("sustained_mbps comes from the block-size sweep: if the device has a burst cache the sweep "
                      "may have run inside it; a long sustained write settles it");
  }
  return t;
}

// What the stall step found that the sustained rate needs (3b).
struct StallsStep {
  double catchup_s = 0;                 // device.catchup_ms, 0 if none
  std::vector<const Series*> flat;      // the flat-out traces it was measured on
};

// 3. Stalls: the pauses of every sustained write and paced trace (calibrate/pauses.h),
// in the filesystem layer when `in_fs`.
// A buffered trace through a kernel filesystem (its header says so) shows
// the journal's and the page cache's waits, which the model adds itself from
// the device's pauses: only the other traces describe the device's pauses.
StallsStep fit_stalls(const Sorted& s, bool in_fs, const Options& o, Calibration& c) {
  Builder out(c);
  auto behind_cache = [](const Series* x) { return x->direct == false && meta_of(*x, "userspace") == "0"; };
  // Buffered writes through a userspace driver reach the driver's call like
  // direct ones (its page cache is below it): their pauses count as flat-out ones.
  std::vector<const Series*> used = s.timelines;
  used.insert(used.end(), s.paced.begin(), s.paced.end());
  for (auto* x : s.buffered)
    if (meta_of(*x, "userspace") == "1") used.push_back(x);
  std::vector<PauseScan> scans;
  std::vector<const Series*> scanned;  // the traces the pause fit rests on
  std::vector<std::string> left_out, rhythm;
  for (auto* x : used) {
    if (behind_cache(x)) {
      left_out.push_back(base_name(x->name));
      continue;
    }
    PauseScan p = scan_pauses(*x);
    p.fs_waits_modelled = meta_of(*x, "userspace") == "0" &&
                          (std::atof(meta_of(*x, "journal_commit_ms").c_str()) > 0 || o.journal_commit_ms > 0);
    if (p.rhythm > 0)
      rhythm.push_back(fmt::format("{} ({} of {} writes slow, one every {})", base_name(x->name), p.rhythm_slow,
                                   p.writes, p.rhythm));
    else
      scans.push_back(std::move(p)), scanned.push_back(x);
  }
  if (!left_out.empty())
    c.notes.push_back(fmt::format("stalls: {} left out of the pause fit: buffered writes through a kernel filesystem "
                                  "wait for its journal and writeback, which the model derives from the device's "
                                  "pauses",
                                  fmt::join(left_out, ", ")));
  if (!rhythm.empty())
    c.notes.push_back(fmt::format("stalls: {} left out of the pause fit: too many slow writes to be pauses, a rhythm "
                                  "(a throttled writer let go a chunk of writeback at a time; a pause in the writer's "
                                  "call lets the cache drain meanwhile and hides among those waits)",
                                  fmt::join(rhythm, ", ")));
  // The device's own stops give the lengths of the pauses the writes met.
  if (!o.device_activity.empty()) {
    DevicePauseScan dev = scan_device_pauses(o.device_activity, o.device_period_s);
    size_t n = apply_device_lengths(scans, dev, o.device_period_s);
    if (size_t fs = drop_filesystem_waits(scans, dev, o.device_period_s); fs > 0)
      c.notes.push_back(fmt::format(
          "stalls: {} pause(s) the writes met through the journaled filesystem are no stop of the device (it went "
          "on completing, or idled): the filesystem's own waits, which the model's journal and page cache make "
          "themselves; left out of the pause fit",
          fs));
    std::vector<double> after, before;  // the matched pauses' lengths: the device's, the writes'
    size_t all = 0;
    for (const auto& sc : scans)
      for (const auto& p : sc.pauses) {
        ++all;
        if (p.device) after.push_back(p.excess_s), before.push_back(p.writes_excess_s);
      }
    auto& dl = c.device_lengths;
    dl = {dev.busy_gaps > 0, n, all, after.empty() ? 0 : median(after) * 1e3, before.empty() ? 0 : median(before) * 1e3,
          dev.busy_gaps, dev.busy_s, dev.rate(), dev.threshold_s, {}};
    for (const auto& p : dev.pauses) dl.stops.push_back({p.at_s, p.excess_s});
    if (scans.empty()) {
      // no pauses to give lengths to (the fit stops below); the scan's figures are kept
    } else if (dev.busy_gaps == 0) {
      c.notes.push_back("stalls: the device's own activity was too short to measure its stops: pause lengths from the "
                        "writes alone");
    } else if (n == 0) {
      c.notes.push_back(fmt::format("stalls: none of the {} pauses the writes met shows as a stop of the device "
                                    "itself (more than {:.0f} ms with requests in flight): lengths from the writes",
                                    all, dev.threshold_s * 1e3));
    } else {
      c.notes.push_back(fmt::format(
          "stalls: {} of the {} pauses the writes met take their lengths from the device's own stops (no request "
          "completed for that long while some were in flight): median {:.0f} ms, where the writes showed {:.0f} ms",
          n, all, dl.device_median_ms, dl.writes_median_ms));
    }
  }
  if (scans.empty()) return {};
  // A userspace driver whose open flags were read (measure/fs_info.h) says
  // where its device's pauses are: through the device's page cache (behind
  // it), or O_DIRECT/O_SYNC (in the call).
  KnownPlace known;
  for (auto* x : used) {
    if (meta_of(*x, "userspace") != "1") continue;
    DriverIo io = driver_io_from_name(meta_of(*x, "driver_io"));
    std::string from = fmt::format("{}: driver_io={}", base_name(x->name), driver_io_name(io));
    if (io == DriverIo::PageCache) {
      known = {KnownPlace::BehindCache,
               fmt::format("the userspace driver writes to its device through the page cache ({})", from)};
      break;
    }
    if (io != DriverIo::Unknown)
      known = {KnownPlace::InCall, fmt::format("the userspace driver writes to its device with O_{} ({})",
                                               io == DriverIo::Direct ? "DIRECT" : "SYNC", from)};
  }
  StallModelFit sf = fit_stall_model(scans, known);
  c.stalls_behind_cache = sf.behind_cache;
  if (c.device_lengths.measured) {
    std::vector<double> stops;
    for (const auto& st : c.device_lengths.stops) stops.push_back(st.length_s);
    device_arrivals(sf, stops, c.device_lengths.busy_s, c.device_lengths.threshold_s);
  }
  std::string layer = in_fs ? "filesystem." : "device.";
  c.notes.insert(c.notes.end(), sf.notes.begin(), sf.notes.end());
  if (!sf.ok) {
    c.notes.push_back(sf.why);
    return {};
  }
  std::string from = names(scanned);
  bool rough = sf.too_few;
  c.stalls_too_few = rough;
  for (size_t k = 0; k < 2; ++k) {
    std::string pre = layer + (k == 0 ? "stall_" : "stall2_");
    if (k >= sf.pops.size()) {
      for (const char* key : {"interval_mb", "period_ms", "duration_ms", "duration_sigma"})
        out.add(pre + key, 0, 0, 0, sf.pauses, "pause fit: one population of pauses fits best (BIC)", from);
      continue;
    }
    const StallPopulation& p = sf.pops[k];
    std::string how = fmt::format("{}; population {} of {}, {} pauses", sf.method, k + 1, sf.pops.size(), p.pauses);
    // The ranges: a count's interval on the rate (band = value x 1.96/sqrt(n))
    // inverted into the time or bytes between pauses, unbounded above when the
    // count cannot exclude zero; the lengths' from the pause fit.
    auto between = [&](double v, double band) {
      Estimate& e = c.params.back();
      double rel = v > 0 ? band / v : 0;
      if (rel <= 0) return;
      e.lo = v / (1 + rel), e.hi = rel < 1 ? v / (1 - rel) : std::numeric_limits<double>::infinity();
    };
    out.add(pre + "interval_mb", p.interval_mb, p.interval_band, 0, p.pauses,
            p.interval_mb > 0 ? how : how + ": no byte-triggered arrivals", from, rough);
    between(p.interval_mb, p.interval_band);
    out.add(pre + "period_ms", p.period_ms, p.period_band, 0, p.pauses,
            p.period_ms > 0 ? how : how + ": no time-triggered arrivals", from, rough);
    between(p.period_ms, p.period_band);
    out.add(pre + "duration_ms", p.median_ms, p.median_band, 0, p.pauses, how + ": median", from, rough);
    c.params.back().lo = p.median_lo, c.params.back().hi = p.median_hi;
    out.add(pre + "duration_sigma", p.sigma, p.sigma_band, 0, p.pauses, how + ": sd of ln(duration)", from, rough);
    c.params.back().lo = p.sigma_lo, c.params.back().hi = p.sigma_hi;
  }
  if (std::any_of(sf.pops.begin(), sf.pops.end(), [](const StallPopulation& p) { return p.period_ms > 0; }))
    out.add(layer + "stall_period_jitter", sf.jitter, sf.jitter_band, 0, sf.pauses,
            sf.jitter_band > 0 ? "pause fit: coefficient of variation of the time between pauses"
                               : "pause fit: too few pauses in one trace to see their regularity: "
                                 "assumed Poisson in time",
            from, rough || sf.jitter_band == 0);
  if (std::any_of(sf.pops.begin(), sf.pops.end(), [](const StallPopulation& p) { return p.interval_mb > 0; }) &&
      sf.jitter_band > 0)
    out.add(layer + "stall_interval_jitter", sf.jitter, sf.jitter_band, 0, sf.pauses,
            "pause fit: coefficient of variation of the time between pauses in traces written at a steady rate "
            "(in proportion to the bytes between them)",
            from, rough);
  // Too few pauses to tell their distribution (the notes say so, and the
  // values are marked estimates): no ranges. Intervals from three or four
  // pauses, at their corners together (a long median, a wide sigma, a short
  // spacing), invent a heavy tail nothing measured shows: on a model with no
  // stalls at all, three jitter-sized "pauses" put the headline's low end at
  // a tenth of its value.
  if (rough)
    for (auto& e : c.params)
      if (e.key.starts_with(layer + "stall")) e.lo = e.hi = e.value;
  // What the device made up of its pauses (device.catchup_ms): from the
  // flat-out traces, where the device ran at its rate before and after each.
  if (in_fs) return {};
  std::vector<const Series*> flat;
  for (auto* x : s.timelines)
    if (!is_paced(*x) && !behind_cache(x)) flat.push_back(x);
  CatchupFit cf = fit_catchup(flat);
  c.notes.push_back(cf.why);
  if (!cf.ok || !cf.made_up) return {};
  out.add("device.catchup_ms", cf.ms, cf.band_ms, 0, cf.pauses,
          "pause catch-up: the writer's excess at each pause less what the pause cost the line of bytes against "
          "time (median over pauses)",
          names(flat), sf.too_few);
  return {cf.ms * 1e-3, flat};
}

// 3b. A device that makes up its pauses (device.catchup_ms) writes what it
// made up faster than its rate, right after each pause: the timeline's mean
// time per write counted those writes as speed, and the model makes the same
// time up again after each of its own pauses. So the sustained rate is the
// timeline's with the made-up time given back: at most catchup_ms per pause
// (no more than the pause lasted), spread over the sustained writes. Without
// it the rate came out 2-7 % high on every rig whose limiter makes up its
// pauses (btrfsgc 14.8 MB/s for 14, fusecache 10.7 for 10, stalls 25.7 for
// 25), and the answer, where a backlog must fit the page cache's headroom by
// the end of a recording, up to 12 % high (ext2stick, session 35).
void account_catchup(const TimelineStep& t, const SweepFit& sweep, const StallsStep& st, Calibration& c) {
  const TimelineFit& f = t.fit;
  if (st.catchup_s <= 0 || !f.ok || f.sustained_pauses_s.empty() || f.sustained_points == 0 ||
      std::find(st.flat.begin(), st.flat.end(), t.series) == st.flat.end())
    return;
  double made_up = 0;
  for (double p : f.sustained_pauses_s) made_up += std::min(st.catchup_s, p);
  // With a timeline fit, fit_cache took the sustained rate from it.
  Estimate* e = find_estimate(c, "device.sustained_mbps");
  if (!e || made_up <= 0) return;
  double busy = f.sustained_op_s - Overhead(sweep).t0;
  double op = busy + made_up / static_cast<double>(f.sustained_points);
  if (busy <= 0 || op <= 0) return;
  double before = e->value;
  e->value *= busy / op, e->band *= busy / op;
  e->method = "sustained-write timeline, less the catch-up after its pauses";
  c.notes.push_back(fmt::format(
      "sustained rate: the device made up {:.0f} ms of each of the {} pauses in {}'s sustained stretch "
      "(catch-up; of a shorter pause, its length), writing {:.2f} s of it faster than its rate; that time given "
      "back: {:.4g} MB/s, not {:.4g} (the model makes each pause up itself)",
      st.catchup_s * 1e3, f.sustained_pauses_s.size(), base_name(t.series->name), made_up, e->value, before));
}

// 4. Fill level: the first sustained write that ran into ENOSPC (or says its capacity).
void fit_fill_level(const Sorted& s, const TimelineStep& tl, const SweepFit& sweep, Calibration& c) {
  Builder out(c);
  for (auto* x : s.timelines) {
    if (meta_of(*x, "sweep") == "paced") continue;
    CleanWrites cw = x == tl.series ? tl.clean : clean_writes(x->ops);
    double prefill = meta_num(*x, "prefill_bytes", 0);
    double capacity = meta_num(*x, "capacity_bytes", 0);
    bool full = cw.last_error == ENOSPC;
    if (!full && capacity <= 0) continue;
    if (capacity <= 0) {
      capacity = prefill + cw.total_bytes;
      out.add("device.capacity_bytes", capacity, median(cw.bytes), 1, cw.bytes.size(), "bytes written until ENOSPC",
              base_name(x->name));
    }
    double skip = tl.fit.has_burst ? tl.fit.burst_bytes + 2 * tl.fit.block : 0;
    FillFit ff = fit_fill(cw, prefill, capacity, skip, Overhead(sweep).t0);
    if (ff.ok) {
      out.add("device.fill_knee", ff.knee, ff.knee_band, ff.r2, ff.points, "fill sweep (change point)", base_name(x->name));
      out.add("device.fill_floor", ff.floor, ff.floor_band, ff.r2, ff.points, "fill sweep", base_name(x->name));
    } else {
      c.notes.push_back(fmt::format("fill sweep {}: {}", base_name(x->name), ff.why));
    }
    break;
  }
}

// 4b. Seek penalty: the interleaved-files sweep against its one-file reference.
void fit_seek(const Sorted& s, Calibration& c) {
  if (s.one_file.empty() || s.interleaved.empty()) return;
  SeekFit sf = fit_seek_penalty(*s.one_file.front(), *s.interleaved.front());
  std::string from = base_name(s.one_file.front()->name) + " vs " + base_name(s.interleaved.front()->name);
  if (!sf.ok)
    c.notes.push_back("seek penalty: " + sf.why);
  else if (sf.penalty_s > sf.band)
    Builder(c).add("device.seek_penalty_us", sf.penalty_s * 1e6, sf.band * 1e6, 0, sf.points,
                   "interleaved files vs one file (median time per write)", from);
  else
    c.notes.push_back(fmt::format("seek penalty: none above the noise ({:.3g} ± {:.3g} us per write, {})",
                                  sf.penalty_s * 1e6, sf.band * 1e6, from));
}

// 5. Host page cache: the first buffered trace that fits.
void fit_host(const Sorted& s, Calibration& c) {
  for (auto* x : s.buffered) {
    HostFit hf = fit_host_cache(x->ops);
    if (!hf.ok) {
      c.notes.push_back(fmt::format("buffered {}: {}", base_name(x->name), hf.why));
      continue;
    }
    Builder out(c);
    out.add("host.dirty_limit_bytes", hf.dirty_limit, hf.dirty_band, hf.r2, hf.points, "buffered writes (fast phase)",
            base_name(x->name));
    out.add("host.memory_mbps", hf.memory_mbps, hf.memory_band, hf.r2, hf.points, "buffered writes (fast phase)",
            base_name(x->name));
    break;
  }
}

// 6. Reads: the read model over every read rate point.
void fit_reads(const std::vector<RatePoint>& rates, Calibration& c) {
  if (std::none_of(rates.begin(), rates.end(), [](const RatePoint& r) { return r.read; })) return;
  ReadFit rf = fit_read_table(rates);
  c.read_cells = rf.cells;
  if (!rf.ok) {
    c.notes.push_back("read table: " + rf.why);
    return;
  }
  Builder out(c);
  std::string from = "read table";
  out.add("device.read_latency_us", rf.p.latency_us, rf.latency_band, rf.r2, rf.points, "read model fit", from);
  out.add("device.read_mbps", rf.p.mbps, rf.mbps_band, rf.r2, rf.points, "read model fit", from);
  if (rf.ceiling)
    out.add("device.read_max_mbps", rf.p.max_mbps, rf.max_band, rf.r2, rf.points, "read model fit", from);
  else
    c.notes.push_back("no aggregate read ceiling visible in the table: read_max_mbps left out");
  out.add("device.read_queue_depth", rf.p.queue_depth, 0, rf.r2, rf.points, "read model fit (searched 1..threads)", from);
}

// 7. Filesystem overhead: the same sweep under two filesystems (`sweep`: the baseline's fit).
void fit_filesystem(const Sorted& s, const SweepFit& sweep, Calibration& c) {
  if (s.base_sweeps.empty() || s.sweeps.empty()) return;
  SweepFit target = sweep_from(s.sweeps, {});
  if (!target.ok || !sweep.ok) return;
  Builder out(c);
  double d0 = target.overhead_s - sweep.overhead_s, d0_b = std::hypot(target.overhead_band, sweep.overhead_band);
  double s_t = 1 / (target.mbps * 1e6), s_b = 1 / (sweep.mbps * 1e6);
  double ds = s_t - s_b, ds_b = std::hypot(s_t * target.mbps_band / target.mbps, s_b * sweep.mbps_band / sweep.mbps);
  std::string from = names(s.sweeps) + " vs " + names(s.base_sweeps);
  if (d0 > d0_b)
    out.add("filesystem.request_us", d0 * 1e6, d0_b * 1e6, target.r2, target.points, "sweep difference (intercept)", from);
  else
    c.notes.push_back(fmt::format("filesystem: no per-request cost above the noise ({:.3g} ± {:.3g} us)", d0 * 1e6, d0_b * 1e6));
  if (ds > ds_b)
    out.add("filesystem.driver_mbps", 1 / ds / 1e6, ds_b / ds / ds / 1e6, target.r2, target.points,
            "sweep difference (slope)", from);
  else
    c.notes.push_back(fmt::format("filesystem: no per-byte driver cost above the noise ({:.3g} ± {:.3g} ns/byte; sweeps {:.5g} ± {:.3g} and {:.5g} ± {:.3g} MB/s)", ds * 1e9, ds_b * 1e9, target.mbps, target.mbps_band, sweep.mbps, sweep.mbps_band));
}

// Which layers go in the profile (--layer, else those fitted), and what stays
// unfitted there. An error when nothing could be fitted.
Status choose_layers(const Options& o, Calibration& c) {
  std::set<Layer> present;
  for (const auto& e : c.params) present.insert(*layer_from_name(e.key.substr(0, e.key.find('.'))));
  if (o.layer) {
    c.layers = {*o.layer};
    std::erase_if(c.params, [&](const Estimate& e) { return !e.key.starts_with(std::string(layer_name(*o.layer)) + "."); });
  } else {
    for (Layer l : kLayers)
      if (present.count(l)) c.layers.push_back(l);
  }
  if (c.params.empty())
    return Status::error(fmt::format(
        "no parameter{} could be fitted from the inputs ({}): see `streamdisk calibrate --help` for the sweeps each needs",
        o.layer ? fmt::format(" of the {} layer", layer_name(*o.layer)) : "", fmt::join(c.notes, "; ")));
  for (Layer l : c.layers)
    for (const ParamSpec* s : params_of(l)) {
      std::string key = fmt::format("{}.{}", layer_name(l), s->key);
      if (std::none_of(c.params.begin(), c.params.end(), [&](const Estimate& e) { return e.key == key; }))
        c.missing.push_back({key, sweep_for(l, s->key)});
    }
  return {};
}

// --base: what the base profile sets is copied for the unfitted parameters,
// labelled so (explicit, never silent).
Status fill_from_base(const Options& o, Calibration& c) {
  if (o.base.empty()) return {};
  auto base = load_profile(o.base);
  if (!base) return Status::error(fmt::format("--base: {}", base.message()));
  std::erase_if(c.missing, [&](const Missing& m) {
    Layer l = *layer_from_name(m.key.substr(0, m.key.find('.')));
    std::string bare = m.key.substr(m.key.find('.') + 1);
    const LayerProfile* lp = base->layer(l);
    if (!lp || !lp->params.has(bare)) return false;
    const ParamValue& v = lp->params.entry(bare);
    c.params.push_back({m.key, v.value, 0, 0, 0, fmt::format("base profile {}", o.base),
                        v.source.empty() ? lp->name : v.source});
    return true;
  });
  return {};
}

}  // namespace

Estimate* find_estimate(Calibration& c, const std::string& key) {
  for (auto& e : c.params)
    if (e.key == key) return &e;
  return nullptr;
}

Result<Calibration> calibrate(const Options& o) {
  Calibration c;
  Work w;
  if (Status st = load_all(o, w, c); !st.ok()) return st;
  if (o.device_activity_file.empty()) return calibrate_loaded(std::move(w.series), std::move(w.rates), std::move(c.inputs), o);
  auto a = load_device_activity(o.device_activity_file);
  if (!a) return a.status();
  Options with = o;
  with.device_activity = std::move(a->samples), with.device_period_s = a->period_s;
  c.inputs.push_back(o.device_activity_file);
  return calibrate_loaded(std::move(w.series), std::move(w.rates), std::move(c.inputs), with);
}

// The steps in order; each adds its parameters and notes to `c` (their order
// is the output's).
Result<Calibration> calibrate_loaded(std::vector<Series> series, std::vector<RatePoint> rates,
                                     std::vector<std::string> inputs, const Options& o) {
  Calibration c;
  c.name = o.name;
  c.base = o.base;
  c.inputs = std::move(inputs);
  Work w{std::move(series), std::move(rates)};
  Sorted s = sort_series(w, c);
  if (Status st = check_read_fit_cost(w.rates); !st.ok()) return st;
  pool_single_size_files(s);
  SweepFit sweep = fit_overhead(s, w.rates, c);
  TimelineStep timeline = fit_cache(s, sweep, c);
  StallsStep stalls = fit_stalls(s, o.layer == Layer::Filesystem, o, c);
  account_catchup(timeline, sweep, stalls, c);
  fit_fill_level(s, timeline, sweep, c);
  fit_seek(s, c);
  fit_host(s, c);
  fit_reads(w.rates, c);
  fit_filesystem(s, sweep, c);
  if (Status st = choose_layers(o, c); !st.ok()) return st;
  if (Status st = fill_from_base(o, c); !st.ok()) return st;
  return c;
}

}  // namespace sd::cal
