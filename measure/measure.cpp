#include "measure/measure.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "calibrate/regimes.h"
#include "models/cleanup.h"
#include "measure/real_device.h"
#include "models/model_device.h"
#include "models/percentile.h"
#include "models/profile.h"
#include "models/trace.h"
#include "models/units.h"
#include "sim/cost.h"

namespace sd {

std::string_view sweep_name(SweepKind k) {
  switch (k) {
    case SweepKind::BlockSize: return "blocksize";
    case SweepKind::Threads: return "threads";
    case SweepKind::Sustained: return "sustained";
    case SweepKind::Fill: return "fill";
    case SweepKind::Formats: return "formats";
  }
  return "?";
}

std::optional<SweepKind> sweep_from_name(std::string_view s) {
  for (SweepKind k : {SweepKind::BlockSize, SweepKind::Threads, SweepKind::Sustained, SweepKind::Fill,
                      SweepKind::Formats})
    if (s == sweep_name(k)) return k;
  return std::nullopt;
}

namespace {

using R = Result<MeasureReport>;

// Quick defaults: each sweep finishes in well under a minute on any storage
// fast enough to record to (slow sticks: pass --direct or a smaller --size).
MeasureConfig with_defaults(MeasureConfig c) {
  bool thr = c.sweep == SweepKind::Threads, sus = c.sweep == SweepKind::Sustained;
  if (c.seconds <= 0) c.seconds = thr ? 0.5 : sus ? 30 : 1;
  if (c.size <= 0) c.size = thr ? 256.0 * (1 << 20) : sus ? 1024.0 * (1 << 20) : 128.0 * (1 << 20);
  if (c.blocks.empty()) c.blocks = c.sweep == SweepKind::BlockSize || thr ? default_sweep_blocks()
                                                                          : std::vector<uint64_t>{1 << 20};
  if (c.threads.empty()) c.threads = {1, 2, 3, 4};
  if (c.formats.empty()) c.formats = {FormatKind::Raw, FormatKind::Tdms, FormatKind::W64};
  if (c.channels.empty()) c.channels = {4, 8, 16, 32};
  return c;
}

// Bytes the sweep may have on disk at once (one point's file at a time).
double bytes_needed(const MeasureConfig& c) { return c.sweep == SweepKind::Fill ? 0 : c.size; }

std::string point_error(int e, uint64_t block, bool direct) {
  std::string s = fmt::format("{} at {} blocks", errno_name(e), format_size(static_cast<double>(block)));
  if (e == EINVAL && direct) s += " (O_DIRECT needs sizes and offsets aligned to the device's block size)";
  return s;
}

void add_unique(std::vector<std::string>& notes, const std::string& s) {
  if (!s.empty() && std::find(notes.begin(), notes.end(), s) == notes.end()) notes.push_back(s);
}

// `writes`: the sweep's write operations in issue order (for the cliff check).
void report_blocksize(const BlockSizeResult& r, bool direct, const std::vector<cal::IoOp>& writes, MeasureReport& out) {
  out.table = blocksize_table(r);
  double best_w = 0, best_r = 0, best_b = 0;
  for (const auto& p : r.points) {
    if (p.write_rate > best_w) best_w = p.write_rate, best_b = static_cast<double>(p.block);
    best_r = std::max(best_r, p.read_rate);
    if (!p.cache.empty()) add_unique(out.notes, "page cache before each read: " + p.cache);
    if (p.error) {
      add_unique(out.notes, point_error(p.error, p.block, direct));
      if (!out.error) out.error = p.error;
    }
  }
  double knee = 0;  // smallest block reaching 90 % of the best write rate (document 000's "at least 1 MB")
  for (const auto& p : r.points)
    if (p.write_rate >= 0.9 * best_w) {
      knee = static_cast<double>(p.block);
      break;
    }
  out.summary = {{"best_write_mbps", best_w / 1e6}, {"best_write_block_bytes", best_b},
                 {"knee_block_bytes", knee}, {"best_read_mbps", best_r / 1e6}};
  // Reads far faster than the writes came from a cache, whatever was dropped.
  if (best_w > 0 && best_r > 10 * best_w)
    add_unique(out.notes, fmt::format("reads ran {:.0f}x faster than the writes ({} vs {}): they most likely came "
                                      "from a cache, not the device; do not read them as the device's read rate",
                                      best_r / best_w, format_rate(best_r), format_rate(best_w)));
  // A write cache running out inside the sweep: say which points are on which side.
  cal::SweepRegimes reg = cal::sweep_regimes(writes);
  out.summary.push_back({"cliff_bytes", reg.cliff ? reg.cliff_bytes : NAN});
  if (reg.cliff) {
    add_unique(out.notes, cal::regimes_text(reg));
    add_unique(out.notes, "points on different sides of the cliff measure different things (write cache vs "
                          "sustained): run `measure --sweep sustained` first to exhaust the cache, or use "
                          "`streamdisk characterize`");
  }
}

void report_threads(const ThreadsResult& r, bool direct, MeasureReport& out) {
  out.table = threads_table(r);
  const ThreadsPoint* best = nullptr;
  for (const auto& p : r.points) {
    if (!best || p.rate > best->rate) best = &p;
    if (!p.cache.empty()) add_unique(out.notes, "page cache before each point: " + p.cache);
    if (p.error) {
      add_unique(out.notes, point_error(p.error, p.block, direct));
      if (!out.error) out.error = p.error;
    }
  }
  out.summary = {{"setup_write_mbps", r.setup_write_rate / 1e6}};
  if (best)
    out.summary.insert(out.summary.end(), {{"best_read_mbps", best->rate / 1e6},
                                           {"best_block_bytes", static_cast<double>(best->block)},
                                           {"best_threads", static_cast<double>(best->threads)}});
}

void report_sustained(const SustainedResult& r, MeasureReport& out) {
  out.table = sustained_table(r);
  out.summary = {{"bytes", r.bytes},
                 {"seconds", r.seconds},
                 {"mean_mbps", r.rate / 1e6},
                 {"initial_mbps", r.initial_rate / 1e6},
                 {"final_mbps", r.final_rate / 1e6},
                 {"cliff_seconds", r.cliff_seconds.value_or(NAN)},
                 {"cliff_bytes", r.cliff_bytes.value_or(NAN)},
                 {"latency_p50_s", percentile(r.latencies, 0.5)},
                 {"latency_p99_s", percentile(r.latencies, 0.99)},
                 {"latency_max_s", r.latencies.empty() ? 0 : *std::max_element(r.latencies.begin(), r.latencies.end())},
                 {"fsync_seconds", r.fsync_seconds}};
  if (r.error) {
    out.notes.push_back(fmt::format("stopped by {}", errno_name(r.error)));
    out.error = r.error;
  }
  out.notes.push_back(r.cliff_seconds ? fmt::format("write cliff after {:.1f} s ({} written): {} -> {}",
                                                    *r.cliff_seconds, format_size(*r.cliff_bytes),
                                                    format_rate(r.initial_rate), format_rate(r.final_rate))
                                      : "no write cliff: the rate never fell below 70 % of its start");
}

void report_fill(const FillResult& r, MeasureReport& out) {
  out.table = fill_table(r);
  if (!r.points.empty())
    out.summary = {{"fill_start", r.points.front().fill_before},
                   {"fill_end", r.points.back().fill_after},
                   {"first_step_mbps", r.points.front().rate / 1e6},
                   {"last_step_mbps", r.points.back().rate / 1e6}};
  if (r.error) {
    out.notes.push_back(fmt::format("stopped by {}", errno_name(r.error)));
    out.error = r.error;
  }
}

void report_formats(const FormatsResult& r, MeasureReport& out) {
  out.table = formats_table(r);
  // Document 000's comparison: each format's rate relative to raw binary at the same channel count.
  for (const auto& p : r.points) {
    if (p.error) {
      add_unique(out.notes, fmt::format("{} at {} channels: {}", format_name(p.format), p.channels, errno_name(p.error)));
      if (!out.error) out.error = p.error;
    }
    if (p.format == FormatKind::Raw) continue;
    for (const auto& q : r.points)
      if (q.format == FormatKind::Raw && q.channels == p.channels && q.rate > 0)
        out.summary.push_back({fmt::format("{}_vs_raw_{}ch", format_name(p.format), p.channels), p.rate / q.rate});
  }
}

// Bad input found before any file is created: the fill sweep's target, and
// the cost guard (issue 11 §5): the points times their seconds on real
// storage, the operations on a model (virtual time runs as fast as the CPU).
Status check_config(const MeasureConfig& c) {
  if (c.sweep == SweepKind::Fill) {
    if (c.fill_to <= 0)
      return Status::error("the fill sweep fills the filesystem: say how far with --fill-to (e.g. --fill-to 85%, at most 95%)");
    if (c.fill_to > kMaxFillTo)
      return Status::error(fmt::format("--fill-to {:.0f}% is above the {:.0f}% the fill sweep allows: pick a lower target",
                                       c.fill_to * 100, kMaxFillTo * 100));
  }
  double points = c.sweep == SweepKind::BlockSize ? static_cast<double>(c.blocks.size())
                  : c.sweep == SweepKind::Threads ? static_cast<double>(c.blocks.size() * c.threads.size())
                  : c.sweep == SweepKind::Formats ? static_cast<double>(c.formats.size() * c.channels.size())
                                                  : 1.0;
  double smallest = static_cast<double>(*std::min_element(c.blocks.begin(), c.blocks.end()));
  double ops = points * c.size / smallest;
  if (!c.profile.empty() && c.sweep != SweepKind::Fill && ops > kMaxSteps)
    return Status::error(fmt::format("this sweep would simulate {:.3g} operations ({}); the limit is {:.3g}: give a "
                                     "smaller --size or larger --blocks",
                                     ops, eta_text(ops), kMaxSteps));
  if (c.profile.empty() && points * c.seconds > 86400)
    return Status::error(fmt::format("this sweep would run for {} ({:.0f} points x {}): give fewer points or a "
                                     "shorter --seconds (at most a day in all)",
                                     format_duration(points * c.seconds), points, format_duration(c.seconds)));
  return {};
}

// Where a sweep runs: real storage on the wall clock, or the model in
// virtual time; `env` points into it, so it stays where it was made.
struct Target {
  RealClock real_clock;
  VirtualClock virtual_clock;
  std::unique_ptr<RealDevice> real;
  std::vector<std::unique_ptr<RealDevice>> siblings;  // the threads sweep's readers
  std::unique_ptr<ModelDevice> model;
  SweepEnv env;
  Target() = default;
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;
};

// Opens the model of c.profile, or the directory c.path (checking its free
// space); says in `out` what the target is and whether O_DIRECT bypasses caching there.
Status open_target(const MeasureConfig& c, Target& t, MeasureReport& out) {
  SweepEnv& env = t.env;
  if (!c.profile.empty()) {
    auto p = load_profile(c.profile, c.sets);
    if (!p) return p.status();
    t.model = std::make_unique<ModelDevice>(*p);
    out.target = "model:" + c.profile;
    out.direct_used = c.direct;
    env.dev = t.model.get();
    env.clock = &t.virtual_clock;
    ModelDevice* m = t.model.get();
    env.space = [m] { return SpaceInfo{m->files().capacity(), m->files().capacity() - m->files().used_bytes()}; };
    return {};
  }
  RealDeviceOptions dopt{c.path};
  dopt.warn = c.warn;
  auto d = RealDevice::open(dopt, t.real_clock);
  if (!d) return d.status();
  t.real = std::move(*d);
  RealDevice* rd = t.real.get();
  out.target = c.path;
  out.direct_used = c.direct && rd->direct_bypasses();
  if (c.direct && !rd->direct_bypasses()) out.notes.push_back(rd->direct_note());
  if (rd->fs().userspace && !rd->fs().driver_how.empty())
    out.notes.push_back("the driver's device I/O: " + rd->fs().driver_how);
  SpaceInfo sp = rd->space();
  double need = bytes_needed(c) + 16.0 * (1 << 20);
  if (c.sweep != SweepKind::Fill && sp.free_bytes < need)
    return Status::error(fmt::format("{} has {} free; the {} sweep writes up to {}: pass a smaller --size or free some space",
                                     c.path, format_size(sp.free_bytes), sweep_name(c.sweep), format_size(need)));
  env.dev = rd;
  env.clock = &t.real_clock;
  env.space = [rd] { return rd->space(); };
  env.drop_cache = [rd](FileId f) { return rd->drop_cache(f); };
  if (c.sweep == SweepKind::Threads) {
    int n = *std::max_element(c.threads.begin(), c.threads.end());
    for (int i = 0; i < n; ++i) t.siblings.push_back(i == 0 ? nullptr : rd->sibling());
    env.thread_devices.push_back(rd);
    for (int i = 1; i < n; ++i) env.thread_devices.push_back(t.siblings[i].get());
  }
  cleanup::set_cooperative();
  return {};
}

// The trace's header: the sweep, the target and what O_DIRECT did there.
std::map<std::string, std::string> trace_meta(const MeasureConfig& c, const Target& t, const MeasureReport& out) {
  const bool direct_flag = c.direct && (!t.real || t.real->direct_works());
  return {{"tool", "streamdisk measure"},
          {"sweep", std::string(sweep_name(c.sweep))},
          {"target", out.target},
          // direct: opened with O_DIRECT (accepted); userspace: a FUSE
          // filesystem, where that does not bypass the driver's caching
          {"direct", direct_flag ? "1" : "0"},
          {"userspace", t.real && t.real->fs().userspace ? "1" : "0"},
          // how that driver writes to its device (fs_info.h): "" if not known
          {"driver_io", t.real ? driver_io_name(t.real->fs().driver_io) : ""},
          // a kernel filesystem's journal commit interval (ext3/ext4), "" if none
          {"journal_commit_ms", t.real ? journal_commit_meta(t.real->fs()) : ""},
          {"fsync", out.fsync},
          {"command", c.command_line}};
}

// Runs the sweep c.sweep on `env` and puts its table, figures and notes in
// `out`; `writes` is filled by env.trace as the block-size sweep runs.
Status run_sweep(const MeasureConfig& c, SweepEnv& env, const std::vector<cal::IoOp>& writes, MeasureReport& out) {
  switch (c.sweep) {
    case SweepKind::BlockSize: {
      BlockSizeSweep s{c.blocks, c.seconds, static_cast<uint64_t>(c.size), true, c.direct, c.fsync};
      report_blocksize(run_blocksize_sweep(env, s), c.direct, writes, out);
      break;
    }
    case SweepKind::Threads: {
      ThreadsSweep s{c.blocks, c.threads, static_cast<uint64_t>(c.size), c.seconds, c.direct};
      report_threads(run_threads_sweep(env, s), c.direct, out);
      break;
    }
    case SweepKind::Sustained: {
      SustainedSweep s{c.blocks.front(), static_cast<uint64_t>(c.size), c.seconds,
                       c.window, c.until_steady, c.direct, c.fsync};
      report_sustained(run_sustained_sweep(env, s), out);
      break;
    }
    case SweepKind::Formats: {
      FormatsSweep s{.formats = c.formats,
                     .channels = c.channels,
                     .block_bytes = c.blocks.front(),
                     .sample_bits = c.sample_bits,
                     .sample_rate = 48000,
                     .seconds = c.seconds,
                     .max_bytes = static_cast<uint64_t>(c.size),
                     .direct = c.direct,
                     .fsync = c.fsync};
      auto r = run_formats_sweep(env, s);
      if (!r) return r.status();
      report_formats(*r, out);
      break;
    }
    case SweepKind::Fill: {
      FillSweep s{c.fill_to, c.fill_step, c.blocks.front(), c.direct, c.fsync};
      auto r = run_fill_sweep(env, s);
      if (!r) return r.status();
      report_fill(*r, out);
      break;
    }
  }
  return {};
}

}  // namespace

R run_measure(const MeasureConfig& in) {
  MeasureConfig c = with_defaults(in);
  MeasureReport out;
  out.sweep = c.sweep;
  out.direct_requested = c.direct;
  out.fsync = std::string(fsync_mode_name(c.fsync));
  if (Status st = check_config(c); !st.ok()) return st;
  Target target;
  if (Status st = open_target(c, target, out); !st.ok()) return st;
  SweepEnv& env = target.env;
  env.progress = c.progress;
  env.cancel = c.cancel ? c.cancel : (target.real ? cleanup::cancel_flag() : nullptr);
  TraceWriter trace;
  if (!c.trace_path.empty())
    if (Status st = trace.open(c.trace_path, trace_meta(c, target, out), {"--trace", "trace.csv", true, c.trace_inputs}); !st.ok()) return st;
  std::vector<cal::IoOp> writes;  // the block-size sweep's writes, for its cliff check
  env.trace = [&](const TraceRecord& r) {
    if (c.sweep == SweepKind::BlockSize && r.op == OpKind::Write && r.bytes > 0)
      writes.push_back({r.start, r.end, r.bytes, false, r.thread.value_or(0), r.error});
    if (trace.is_open()) trace.write(r);
  };
  if (Status st = run_sweep(c, env, writes, out); !st.ok()) return st;
  out.cancelled = env.cancel && env.cancel->load();
  if (trace.is_open()) {
    if (out.cancelled) {
      trace.abandon();
    } else if (Status st = trace.close(); !st.ok()) {
      out.output_error = st.message();
    }
  }
  return out;
}

}  // namespace sd
