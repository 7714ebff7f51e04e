#include "measure/characterize.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <climits>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/regimes.h"
#include "models/cleanup.h"
#include "models/host_cache.h"
#include "models/output_file.h"
#include "measure/block_activity.h"
#include "measure/real_device.h"
#include "models/model_device.h"
#include "models/percentile.h"
#include "models/profile.h"
#include "models/stalls.h"
#include "models/trace.h"
#include "models/units.h"
#include "sim/capacity_spread.h"
#include "sim/cost.h"
#include "sim/sweeps.h"

namespace sd {


namespace {

using R = Result<CharacterizeReport>;
constexpr double kMiB = 1 << 20;

// ---- the target: real storage on the wall clock, or a model in virtual time ----

struct Target {
  RealClock real_clock;
  VirtualClock virtual_clock;
  std::unique_ptr<RealDevice> real;
  std::unique_ptr<ModelDevice> model;
  Device* dev = nullptr;
  Clock* clock = nullptr;
  std::function<SpaceInfo()> space;
  std::function<std::string(FileId)> drop_cache;
};

// ---- the kernel's side: dirty limit and device activity ----

double meminfo_bytes(const std::string& key) {
  std::ifstream f("/proc/meminfo");
  for (std::string line; std::getline(f, line);)
    if (line.starts_with(key + ":")) {
      std::istringstream in(line.substr(key.size() + 1));
      double kb = 0;
      in >> kb;
      return kb * 1024;
    }
  return -1;
}

// The kernel's hard dirty limit for one writer, from vm.dirty_bytes or
// vm.dirty_ratio x available memory (an estimate: the kernel counts
// "dirtyable" memory slightly differently).
double kernel_dirty_limit() {
  double bytes = read_number("/proc/sys/vm/dirty_bytes", 0);
  if (bytes > 0) return bytes;
  double ratio = read_number("/proc/sys/vm/dirty_ratio", 20);
  double avail = meminfo_bytes("MemAvailable");
  return avail > 0 ? ratio / 100 * avail : 0;
}

// The kernel's background level (vm.dirty_background_bytes or _ratio), with
// its rule that a level at or above the hard limit counts as half of it.
double kernel_dirty_background(double limit) {
  double bytes = read_number("/proc/sys/vm/dirty_background_bytes", 0);
  if (bytes <= 0) {
    double ratio = read_number("/proc/sys/vm/dirty_background_ratio", 10);
    double avail = meminfo_bytes("MemAvailable");
    bytes = avail > 0 ? ratio / 100 * avail : 0;
  }
  return HostCache::effective_background(bytes, limit);
}

// CPU time used on this machine, all processes and this one (seconds), from
// /proc/stat and /proc/self/stat; negative when unreadable. Other programs'
// CPU work during a measurement shows as pauses that are not the device's.
struct CpuTimes {
  double all = -1, self = -1;
};
double cpu_count() { return std::max(1.0, static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN))); }
CpuTimes cpu_times() {
  CpuTimes c;
  double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (tick <= 0) return c;
  std::ifstream st("/proc/stat");
  std::string cpu;
  double v[8] = {};
  if (st >> cpu && cpu == "cpu" && st >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6] >> v[7])
    c.all = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tick;  // user nice system irq softirq steal
  std::ifstream self("/proc/self/stat");
  std::string line;
  if (std::getline(self, line)) {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string f;
    std::vector<std::string> fields;
    while (rest >> f) fields.push_back(f);
    if (fields.size() > 12) c.self = (std::stod(fields[11]) + std::stod(fields[12])) / tick;
  }
  return c;
}

// The share of every CPU that other processes used between `a` and `b`,
// `seconds` apart; negative when either sample is unreadable.
double others_share(const CpuTimes& a, const CpuTimes& b, double seconds) {
  if (a.all < 0 || a.self < 0 || b.all < 0 || b.self < 0 || !(seconds > 0)) return -1;
  return std::max(0.0, (b.all - a.all) - (b.self - a.self)) / (seconds * cpu_count());
}

// Linux's writeback chunk (writeback_chunk_size()): half a second of the
// device's bandwidth, at most an eighth of the dirty limit, plus 4 MiB,
// rounded down to 4 MiB.
double kernel_writeback_chunk(double device_bps, double limit) {
  const double mib4 = 4 * 1048576.0;
  double pages = std::min(device_bps / 2, limit > 0 ? limit / 8 : device_bps / 2);
  return std::max(mib4, std::floor((pages + mib4) / mib4) * mib4);
}

// What the kernel's settings say about the page cache's writeback and the
// block queue under the filesystem. On real storage they are read from
// /proc/sys/vm and /sys/block; on a model (characterize -p, in virtual time)
// from the model's host layer, which is that model's kernel. Either way only
// what a real run reads from the kernel comes from here, the dirty limits
// included (the buffered phase's knee is only checked against them).
struct KernelSettings {
  double dirty_limit = 0;  // the hard limit (0: unknown)
  double background = 0;   // the background level, Linux's halving rule applied
  double expire_ms = 30000, interval_ms = 5000;
  double chunk = -1;       // the writeback chunk (< 0: the kernel's rule from the sustained rate)
  BlockQueue queue;        // depth 0: not found
  std::string queue_source;  // "/sys/block" or the model
  std::string dev_dir;     // real storage: the block device's sysfs directory ("" if none, or a model)
  bool marks_background = true;  // the driver marks its writeback as background I/O
  std::string source;      // "/proc/sys/vm" or the model
  bool model = false;
  // The text each parameter's source gives: "kernel setting (vm.dirty_expire_centisecs)".
  std::string how(const char* kernel_name, const char* host_key) const {
    return model ? fmt::format("the model's host.{} (its kernel setting)", host_key)
                 : fmt::format("kernel setting ({})", kernel_name);
  }
  // The same for the block queue's parameters (`more`: what a real run adds).
  std::string queue_how(const char* more = "") const {
    return model ? queue.how : fmt::format("kernel setting ({}{})", queue.how, more);
  }
};

KernelSettings real_kernel_settings(const std::string& dev_dir, std::string_view fstype) {
  KernelSettings k;
  k.dirty_limit = kernel_dirty_limit();
  k.background = kernel_dirty_background(k.dirty_limit);
  k.expire_ms = read_number("/proc/sys/vm/dirty_expire_centisecs", 3000) * 10;
  k.interval_ms = read_number("/proc/sys/vm/dirty_writeback_centisecs", 500) * 10;
  k.dev_dir = dev_dir;
  if (!dev_dir.empty()) k.queue = block_queue(dev_dir);
  k.queue_source = "/sys/block";
  k.marks_background = marks_background_writeback(fstype);
  k.source = "/proc/sys/vm";
  return k;
}

KernelSettings model_kernel_settings(const Profile& p) {
  KernelSettings k;
  const LayerParams& h = p.params(Layer::Host);
  k.model = true;
  k.dirty_limit = h.get("dirty_limit_bytes");
  k.background = HostCache::effective_background(h.get("dirty_background_bytes"), k.dirty_limit);
  k.expire_ms = h.get("dirty_expire_ms");
  k.interval_ms = h.get("writeback_interval_ms");
  k.chunk = h.get("writeback_chunk_bytes");
  if (h.get("wbt_queue_depth") > 0) {
    k.queue = {h.get("wbt_queue_depth"), h.get("writeback_request_bytes"), true, "the model's host.wbt_queue_depth"};
  } else if (h.get("writeback_queue_bytes") > 0) {
    k.queue = {1, h.get("writeback_queue_bytes"), false, "the model's host.writeback_queue_bytes"};
  }
  k.marks_background = p.params(Layer::Filesystem).get("writeback_background") != 0;
  k.source = k.queue_source = "the model's host layer";
  return k;
}

// A device's share of the dirty limit below this after characterize's own
// writes means another disk wrote meanwhile (Linux's split follows recent
// writeback: a device that alone wrote converges to all of it).
constexpr double kWholeShare = 0.9;

// /sys/dev/block/MAJ:MIN of the device holding `dir` (for a FUSE filesystem
// on a block device: its mount source) when its stat file is readable, or "".
std::string block_dev_dir(const std::string& dir, const FsInfo& fs) {
  struct stat st{};
  auto try_dev = [](dev_t d) {
    std::string p = fmt::format("/sys/dev/block/{}:{}", major(d), minor(d));
    return ::access((p + "/stat").c_str(), R_OK) == 0 ? p : std::string();
  };
  if (::stat(dir.c_str(), &st) == 0)
    if (std::string p = try_dev(st.st_dev); !p.empty()) return p;
  if (fs.source.starts_with("/dev/") && ::stat(fs.source.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
    return try_dev(st.st_rdev);
  return "";
}

// Waits until the device has written nothing for `need` seconds (at most
// `limit` in all). Real storage: syncs the filesystem, then watches the block
// device's counters (or, without one, the kernel's dirty and writeback
// totals). A model in virtual time: waits `need` on its clock.
void wait_idle(Target& t, const std::string& dir, const FsInfo& fs, double need, double limit,
               const std::atomic<bool>* cancel, const std::function<void(double, double)>& tick,
               CharacterizeReport& rep) {
  double t0 = t.clock->now();
  if (!t.real) {
    t.clock->sleep_until(t0 + need);
    rep.idle_waited_s = rep.idle_quiet_s = need;
    rep.idle_how = "a fresh model: idle from the start";
    return;
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::syncfs(fd);
    ::close(fd);
  }
  std::string stat = block_dev_dir(dir, fs);
  if (!stat.empty()) stat += "/stat";
  rep.idle_how = stat.empty() ? "the kernel's Dirty + Writeback totals (no block device found)"
                              : "the block device's written sectors (" + stat + ")";
  double quiet_since = t.clock->now(), last_w = -1, inflight = 0;
  while (!(cancel && cancel->load())) {
    double now = t.clock->now();
    bool busy;
    if (!stat.empty()) {
      double w = 0;
      busy = !read_block_stat(stat, w, inflight) || (last_w >= 0 && w != last_w) || inflight > 0;
      last_w = w;
    } else {
      busy = meminfo_bytes("Dirty") + meminfo_bytes("Writeback") > 4 * kMiB;
    }
    if (busy) quiet_since = now;
    rep.idle_quiet_s = now - quiet_since;
    rep.idle_waited_s = now - t0;
    if (rep.idle_quiet_s >= need || rep.idle_waited_s >= limit) break;
    if (tick) tick(rep.idle_quiet_s, need);
    t.clock->sleep_until(now + 0.25);
  }
}

// ---- traces: one per phase, kept in memory, optionally written out ----

struct PhaseTrace {
  std::string file;  // "cache.csv"
  Trace trace;
};

std::string phase_of(const std::string& from) {
  // "cache.csv" -> "cache", "paced-0.5.csv, paced-0.3.csv" -> "paced"; "x vs y" -> first
  std::string f = from.substr(0, from.find_first_of(", "));
  if (f.ends_with(".csv")) f.resize(f.size() - 4);
  if (f.starts_with("paced")) return "paced";
  if (f.starts_with("interleaved")) return "interleaved";
  return f;
}

std::string unit_of(const std::string& key) {
  auto dot = key.find('.');
  auto l = layer_from_name(key.substr(0, dot));
  const ParamSpec* s = l ? find_param(*l, key.substr(dot + 1)) : nullptr;
  return s ? std::string(unit_name(s->unit)) : "";
}

void drop_estimate(cal::Calibration& c, const std::string& key) {
  std::erase_if(c.params, [&](const cal::Estimate& e) { return e.key == key; });
}

// The device's own stops, beside the pause fit's lengths (which calibrate
// took from those stops where the writes met them, and scanned them for:
// Calibration::device_lengths): what lasted more than half the fitted
// pauses' median (or, without pauses, more than the scan's threshold).
void compare_device_pauses(CharacterizeReport& rep) {
  auto& d = rep.device_pauses;
  const auto& scan = rep.calibration.device_lengths;
  d.busy_gaps = scan.busy_gaps, d.busy_s = scan.busy_s, d.rate = scan.rate;
  for (const char* key : {"device.stall_duration_ms", "filesystem.stall_duration_ms"})
    if (const auto* e = cal::find_estimate(rep.calibration, key)) d.fit_median_s = e->value * 1e-3;
  d.threshold_s = std::max(scan.threshold_s, d.fit_median_s / 2);
  for (const auto& s : scan.stops)
    if (s.length_s > d.threshold_s) d.lengths_s.push_back(s.length_s), d.at_s.push_back(s.at_s);
  d.median_s = d.lengths_s.empty() ? 0 : cal::median(d.lengths_s);
  if (scan.busy_gaps == 0) {
    d.text = fmt::format("not measured: the device ({}) completed too few requests while busy", d.device);
    return;
  }
  std::string fit = d.fit_median_s > 0 ? fmt::format("; the pause fit's median: {}", format_duration(d.fit_median_s))
                                       : "; the profile has no pauses";
  std::string what = fmt::format(
      "stops of more than {} ({}) with requests in flight", format_duration(d.threshold_s),
      d.threshold_s > scan.threshold_s ? "half the fitted pauses' median"
                                       : "what its ordinary completions' unevenness leaves to tell a stop by");
  if (d.lengths_s.empty()) {
    d.text = fmt::format("no {} in {:.0f} s busy at {}{}", what, d.busy_s, format_rate(d.rate), fit);
  } else {
    auto [lo, hi] = std::minmax_element(d.lengths_s.begin(), d.lengths_s.end());
    d.text = fmt::format("{} {} in {:.0f} s busy at {}: {} to {}, median {}{}", d.lengths_s.size(), what, d.busy_s,
                         format_rate(d.rate), format_duration(*lo), format_duration(*hi), format_duration(d.median_s),
                         fit);
  }
}

// Every trace file a run may write (--keep-traces checks them all first).
constexpr const char* kTraceFiles[] = {"cache.csv",     "blocksize.csv",   "interleaved-one.csv", "interleaved.csv",
                                       "reads.csv",     "buffered.csv",    "paced-0.3.csv",       "paced-0.5.csv",
                                       "paced-0.7.csv", "fill.csv"};
// The block device's own activity (not a trace: calibrate DIR/*.csv skips it).
constexpr const char* kDeviceActivityFile = "device-activity.log";

}  // namespace

std::vector<std::string> characterize_trace_paths(const std::string& dir) {
  std::vector<std::string> v;
  for (const char* name : kTraceFiles) v.push_back(dir + "/" + name);
  v.push_back(dir + "/" + kDeviceActivityFile);
  return v;
}

namespace {

// What each phase had planned (seconds), from the budget.
struct Plan {
  double idle, cache, refill, blocksize_point, interleaved, reads, buffered, paced, check;
};
Plan plan_for(double budget) {
  Plan p;
  p.idle = std::clamp(0.08 * budget, 3.0, 30.0);
  p.cache = 0.30 * budget;
  p.refill = std::clamp(0.03 * budget, 3.0, 8.0);
  p.blocksize_point = std::max(0.3, 0.06 * budget / 6);
  p.interleaved = std::max(0.5, 0.025 * budget);
  p.reads = std::max(1.0, 0.04 * budget);
  p.buffered = 0.12 * budget;
  p.paced = 0.05 * budget;  // + the fsync of what the page cache held: ~0.5 x this
  p.check = std::clamp(0.05 * budget, 10.0, 60.0);  // the headline held against the target
  return p;
}

}  // namespace

CharacterizeReport::HeadlineCheck judge_headline_check(const PacedResult& r, double rate, uint64_t buffer_bytes,
                                                       uint64_t block, double recording_s, bool cancelled) {
  CharacterizeReport::HeadlineCheck c;
  c.ran = !r.latencies.empty();
  c.rate = rate;
  c.seconds = r.seconds;
  c.writes = r.latencies.size();
  c.late = r.late;
  c.max_lag = r.max_lag;
  c.room = static_cast<double>(buffer_bytes) - static_cast<double>(block);
  double waiting = c.max_lag * c.rate;
  c.fell_behind = c.ran && c.late > 0 && waiting > c.room;
  if (!c.ran)
    c.text = cancelled ? "not run (interrupted)" : fmt::format("not run ({})", r.error ? errno_name(r.error) : "no write");
  else if (c.fell_behind)
    c.text = fmt::format(
        "{} writes as the recorder writes them, paced at the headline's {} for {:.0f} s, fell up to {} behind: {} "
        "waiting, more than the {} the ring holds beside the block being written. The recorder would have "
        "overrun: the headline is optimistic on this storage, and its highest clean rate is below {}",
        c.writes, format_rate(c.rate), c.seconds, format_duration(c.max_lag), format_size(waiting), format_size(c.room),
        format_rate(c.rate));
  else
    c.text = fmt::format(
        "{} writes as the recorder writes them, paced at the headline's {} for {:.0f} s: {}; the ring holds {} beside "
        "the block being written, so no overrun. A check this short against a {} recording catches gross errors only",
        c.writes, format_rate(c.rate), c.seconds,
        c.late ? fmt::format("{} late, at most {} behind ({} waiting)", c.late, format_duration(c.max_lag),
                             format_size(waiting))
               : "none late",
        format_size(c.room), format_duration(recording_s));
  return c;
}

R run_characterize(const CharacterizeConfig& cfg) {
  CharacterizeReport rep;
  rep.safe_fill = cfg.safe_fill;
  if (cfg.budget_s <= 0) return R::error("--budget must be positive: e.g. --budget 5min");
  if (Status st = check_recorder(cfg.recorder); !st.ok()) return R::error(st.message());
  if (!cfg.keep_traces.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(cfg.keep_traces, ec)) {
      // A name that exists and is not a directory cannot be made one.
      if (std::filesystem::symlink_status(cfg.keep_traces, ec).type() != std::filesystem::file_type::not_found)
        return R::error(fmt::format("--keep-traces {}: exists and is not a directory; give a directory for the traces",
                                    cfg.keep_traces));
      return R::error(fmt::format("--keep-traces {}: not a directory; create it first (mkdir -p {})", cfg.keep_traces,
                                  cfg.keep_traces));
    }
    if (::access(cfg.keep_traces.c_str(), W_OK) != 0)
      return R::error(fmt::format("--keep-traces {}: not writable; pick a directory you may write to", cfg.keep_traces));
    // The traces have fixed names: never replace a file this run did not
    // write (an earlier run's traces, or anything else of that name).
    for (const std::string& path : characterize_trace_paths(cfg.keep_traces))
      if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
        return R::error(fmt::format("--keep-traces {}: {} exists (an earlier run's traces?) and would be replaced; "
                                    "give an empty directory or move those files away",
                                    cfg.keep_traces, path));
  }

  // The target, and what its kernel's settings say.
  Target t;
  KernelSettings kernel;
  CpuTimes cpu_at_start;  // real storage only
  if (!cfg.profile.empty()) {
    auto p = load_profile(cfg.profile, cfg.sets);
    if (!p) return R::error(p.message());
    t.model = std::make_unique<ModelDevice>(*p);
    t.dev = t.model.get();
    t.clock = &t.virtual_clock;
    ModelDevice* m = t.model.get();
    double cap = m->files().capacity() > 0 ? m->files().capacity() : 64e9;  // unlimited: a 64 GB stand-in
    t.space = [m, cap] { return SpaceInfo{cap, cap - m->files().used_bytes()}; };
    rep.target = "model:" + cfg.profile;
    rep.fs.userspace = p->params(Layer::Filesystem).get("userspace") != 0;
    rep.fs.journal_commit_s = p->params(Layer::Filesystem).get("journal_commit_ms") * 1e-3;
    rep.fs.fstype = rep.fs.userspace ? "model (userspace driver)" : "model (kernel driver)";
    rep.fs.how = "the profile's filesystem.userspace";
    // What a real run reads from the driver's open flags (measure/fs_info.h):
    // the model's userspace driver writes to its device through the host's
    // page cache whenever it has one (models/model_device.cpp).
    if (rep.fs.userspace && m->host_cache().enabled()) rep.fs.driver_io = DriverIo::PageCache;
    kernel = model_kernel_settings(*p);
  } else {
    RealDeviceOptions dopt{cfg.path, "streamdisk-characterize"};
    dopt.warn = cfg.warn;
    auto d = RealDevice::open(dopt, t.real_clock);
    if (!d) return R::error(d.message());
    t.real = std::move(*d);
    t.dev = t.real.get();
    t.clock = &t.real_clock;
    RealDevice* rd = t.real.get();
    t.space = [rd] { return rd->space(); };
    t.drop_cache = [rd](FileId f) { return rd->drop_cache(f); };
    rep.target = cfg.path;
    rep.fs = rd->fs();
    cpu_at_start = cpu_times();
    if (!rd->direct_bypasses()) rep.notes.push_back(rd->direct_note());
    kernel = real_kernel_settings(block_dev_dir(cfg.path, rep.fs), rep.fs.fstype);
    cleanup::set_cooperative();
  }
  const std::atomic<bool>* cancel = cfg.cancel ? cfg.cancel : (t.real ? cleanup::cancel_flag() : nullptr);
  auto cancelled = [&] { return cancel && cancel->load(); };

  // The safe level: the run never takes the filesystem above safe_fill.
  SpaceInfo sp = t.space();
  rep.total_bytes = sp.total_bytes;
  rep.free_bytes = sp.free_bytes;
  double used = sp.total_bytes - sp.free_bytes;
  rep.max_bytes = std::floor(std::min(sp.free_bytes - 16 * kMiB, cfg.safe_fill * sp.total_bytes - used) / kMiB) * kMiB;
  const double min_bytes = 64 * kMiB;
  if (sp.total_bytes <= 0 || rep.max_bytes < min_bytes)
    return R::error(fmt::format(
        "{} has {} free of {} ({:.0f} % full): characterize needs at least {} it may write while staying below "
        "{:.0f} % full; free some space or use a larger device",
        rep.target, format_size(std::max(0.0, sp.free_bytes)), format_size(std::max(0.0, sp.total_bytes)),
        sp.total_bytes > 0 ? used / sp.total_bytes * 100 : 100, format_size(min_bytes), cfg.safe_fill * 100));

  // Progress: phase, bytes written, rate, ETA from the plan.
  Plan plan = plan_for(cfg.budget_s);
  double t_start = t.clock->now(), written = 0;
  std::string phase_name;
  double phase_end_plan = 0, later_plan = 0;
  auto report = [&](const std::string& what, double rate) {
    if (!cfg.progress) return;
    double now = t.clock->now();
    cfg.progress({phase_name + (what.empty() ? "" : ": " + what), written, rate, now - t_start,
                  std::max(0.0, phase_end_plan - now) + later_plan});
  };
  std::vector<PhaseTrace> traces;
  PhaseTrace* cur = nullptr;
  // ENOSPC although the safe level left room: the device holds less than it
  // reported, or something else fills it. No later phase runs, and the run
  // fails (a profile from cut-short phases would be wrong without saying so).
  std::string full_in;
  auto go = [&] { return !cancelled() && full_in.empty(); };
  // A new trace, its header the phase's keys and what every trace says of the target.
  auto new_trace = [&](const std::string& file, std::map<std::string, std::string> meta) {
    meta["tool"] = "streamdisk characterize";
    meta["target"] = rep.target;
    meta["userspace"] = rep.fs.userspace ? "1" : "0";
    if (rep.fs.driver_io != DriverIo::Unknown) meta["driver_io"] = driver_io_name(rep.fs.driver_io);
    if (std::string j = journal_commit_meta(rep.fs); !j.empty()) meta["journal_commit_ms"] = j;
    traces.push_back({file, {std::move(meta), {}}});
    cur = &traces.back();
  };
  auto begin_phase = [&](const std::string& name, double planned, double after,
                         std::map<std::string, std::string> meta) {
    phase_name = name;
    phase_end_plan = t.clock->now() + planned;
    later_plan = after;
    new_trace(name + ".csv", std::move(meta));
    report("", 0);
  };
  auto env_for = [&]() {
    SweepEnv env;
    env.dev = t.dev;
    env.clock = t.clock;
    env.cancel = cancel;
    env.space = t.space;
    env.drop_cache = t.drop_cache;
    env.trace = [&](const TraceRecord& r) {
      if (r.op == OpKind::Write) written += static_cast<double>(r.bytes);
      if (r.error == ENOSPC && full_in.empty()) full_in = phase_name;
      cur->trace.records.push_back(r);
    };
    env.progress = [&](const SweepProgress& p) { report(p.phase, p.rate); };
    // Real storage on a block device: its own written count, so a sustained
    // write tells the device's rate from a page cache's in between.
    if (t.real && !kernel.dev_dir.empty())
      env.device_written = [stat = kernel.dev_dir + "/stat"] {
        double bytes = 0, in_flight = 0;
        return read_block_stat(stat, bytes, in_flight) ? bytes : -1.0;
      };
    return env;
  };
  auto add_phase = [&](const std::string& name, double t0, double b0, std::string result) {
    rep.phases.push_back({name, t.clock->now() - t0, written - b0, std::move(result)});
  };
  const double check_s = std::min(cfg.check_s >= 0 ? cfg.check_s : plan.check, cfg.recorder.duration_s);
  const double remaining_after_idle = plan.cache + 3 * plan.refill + 6 * plan.blocksize_point + plan.reads +
                                      2 * plan.interleaved + plan.buffered + 3 * plan.paced + check_s;

  // A FUSE driver that writes its block device through a page cache large
  // enough to hide the device for seconds (its freerun ceiling at 64 MiB or
  // more; the test rigs' 16 MiB is not): what the "direct" phases measure is
  // mostly that cache (below).
  const double kernel_ceiling =
      kernel.dirty_limit > 0 ? HostCache::freerun_ceiling(kernel.background, kernel.dirty_limit) : 0.0;
  const bool big_page_cache = t.real && rep.fs.driver_io == DriverIo::PageCache && kernel_ceiling >= 64 * kMiB;
  if (big_page_cache && kernel_ceiling >= 1024 * kMiB) {
    // Every "direct" phase fills that cache before the device is seen and
    // waits in its fsync for the device to drain it: minutes per GB on a stick.
    std::string warn = fmt::format(
        "the FUSE driver writes its device through a page cache that takes {} before the kernel throttles it "
        "(vm.dirty_*): the phases fill it at the driver's pace and then wait for the device to drain it, so this "
        "run will take well over its budget (on a 15 MB/s stick {:.0f} s of draining per phase). For a run that "
        "keeps to it, lower the limit while measuring (sysctl vm.dirty_bytes=268435456 "
        "vm.dirty_background_bytes=134217728) and restore it after",
        format_size(kernel_ceiling), kernel_ceiling / 15e6);
    rep.notes.push_back(warn);
    if (cfg.warn) cfg.warn(warn);
  }

  // 1. Idle: let a write cache recover before the burst is measured.
  {
    double need = cfg.idle_s > 0 ? cfg.idle_s : plan.idle;
    phase_name = "idle";
    phase_end_plan = t.clock->now() + need;
    later_plan = remaining_after_idle;
    CpuTimes before = t.real ? cpu_times() : CpuTimes{};
    wait_idle(t, cfg.path, rep.fs, need, 1.5 * need, cancel,
              [&](double quiet, double n) { report(fmt::format("quiet for {:.0f} of {:.0f} s", quiet, n), 0); }, rep);
    std::string busy;
    double share = t.real ? others_share(before, cpu_times(), rep.idle_waited_s) : -1;
    if (share >= 0 && rep.idle_waited_s >= 1) {
      rep.cpu_busy_idle = std::min(share, 1.0);
      busy = fmt::format("; other processes used {:.0f} % of the CPUs meanwhile", rep.cpu_busy_idle * 100);
      // Before any write of ours: this is load from elsewhere, and the
      // measurement will see it as pauses. Said now, on the progress line's
      // stream, so the user can stop and rerun on a quieter machine.
      if (rep.cpu_busy_idle > 0.25) {
        std::string warn = fmt::format(
            "other processes kept {:.0f} % of the {:.0f} CPUs busy before the first write (while characterize waited "
            "for the device to be idle): CPU contention slows writes and is fitted as the device's pauses, which "
            "makes the headline pessimistic; for the storage's own figures stop them (or wait) and run again",
            rep.cpu_busy_idle * 100, cpu_count());
        rep.notes.push_back(warn);
        if (cfg.warn) cfg.warn(warn);
      }
    }
    rep.phases.push_back({"idle", rep.idle_waited_s, 0,
                          fmt::format("waited {:.1f} s, the device was quiet for the last {:.1f} s ({}){}",
                                      rep.idle_waited_s, rep.idle_quiet_s, rep.idle_how, busy)});
    if (rep.idle_quiet_s < need && !cancelled())
      rep.notes.push_back(fmt::format("the device never stayed quiet for {:.0f} s (something else writes to it?): "
                                      "the burst below may come from a partly refilled cache",
                                      need));
  }

  // From here to the last paced phase: the device's own completions, for
  // the pauses it shows itself (compared with the fit's below).
  BlockActivityLog activity;
  if (t.real && !kernel.dev_dir.empty() && go())
    rep.device_pauses.measured = activity.start(kernel.dev_dir + "/stat", [clock = t.clock] { return clock->now(); });
  rep.device_pauses.device = kernel.dev_dir;

  // 2. Cache: sustained direct write past the write cache, then idle gaps.
  CacheResult cache;
  if (go()) {
    double t0 = t.clock->now(), b0 = written;
    CacheSweep s;
    s.max_bytes = static_cast<uint64_t>(rep.max_bytes);
    s.max_seconds = plan.cache;
    s.refill_seconds = plan.refill;
    s.first_file = 100;
    if (big_page_cache) {
      // A FUSE driver writing its block device through the page cache: the
      // cliff these writes meet first is that cache's, which idle gaps only
      // refill (each then waits ~20 s in its fsync on the fuse rig under a
      // 400 MB cache). The flat-out part runs its whole time instead, so the
      // device's own written count (device_written) has a long stretch past
      // the cliff to give the device's rate from.
      s.until_steady = false;
      s.gaps.clear();
    }
    begin_phase("cache", plan.cache + 7 + 3 * plan.refill, remaining_after_idle - plan.cache - 3 * plan.refill,
                {{"sweep", "sustained"}, {"direct", "1"}, {"block_bytes", "1048576"}});
    SweepEnv env = env_for();
    cache = run_cache_sweep(env, s);
    const SustainedResult& f = cache.first;
    add_phase("cache", t0, b0,
              f.cliff_bytes ? fmt::format("{} then {} after {} ({:.1f} s); {} idle gap(s)", format_rate(f.initial_rate),
                                          format_rate(f.final_rate), format_size(*f.cliff_bytes), *f.cliff_seconds,
                                          cache.gaps_done.size())
                            : fmt::format("{} throughout {} ({:.0f} s): no write cache seen (or one larger than that)",
                                          format_rate(f.rate), format_size(f.bytes), f.seconds));
    if (cache.error) rep.notes.push_back(fmt::format("cache phase stopped by {}", errno_name(cache.error)));
  }
  double sustained = cache.first.final_rate > 0 ? cache.first.final_rate : cache.first.rate;
  // A FUSE driver that writes its block device through the page cache: the
  // "direct" writes were taken at the driver's pace into that cache, and
  // after the cache's cliff at a rate the kernel's pacing sets while the
  // dirty level still climbs, above the device's. The device's own count
  // says what it wrote (the fuse test rig under a 400 MB cache: the writes'
  // fit 18.3 MB/s for a 15 MB/s device, bench/rig_truth.md session 27).
  const bool device_counted = big_page_cache && cache.first.device_rate > 0;
  if (device_counted) sustained = cache.first.device_rate;
  // Through such a driver every "direct" phase first fills that page cache
  // at the driver's pace and then waits in its fsync for the device to drain
  // it: on the fuse rig under a 400 MB cache each block-size point wrote
  // 360 MB in 2.4 s and then spent 22 s in fsync (2.4 min for a 14 s plan).
  // So those phases write no more than the device drains in their planned time.
  auto drained_in = [&](double seconds, double cap) {
    if (!big_page_cache || !(sustained > 0)) return cap;
    return std::min(cap, std::max(8.0 * kMiB, std::floor(sustained * seconds / kMiB) * kMiB));
  };

  // 3. Block sizes, right after the cache ran out: one regime (the reads come
  // later, so the cache gets no idle time to recover between the points).
  if (go()) {
    double t0 = t.clock->now(), b0 = written;
    BlockSizeSweep s;
    s.blocks = {4096, 16384, 65536, 262144, 1 << 20, 4 << 20};
    s.seconds = plan.blocksize_point;
    s.max_bytes = static_cast<uint64_t>(drained_in(plan.blocksize_point, std::min(rep.max_bytes / 2, 1024 * kMiB)));
    s.read = false;
    s.direct = true;
    s.first_file = 200;
    begin_phase("blocksize", 6 * plan.blocksize_point, plan.reads + 2 * plan.interleaved + plan.buffered + 3 * plan.paced,
                {{"sweep", "blocksize"}, {"direct", "1"}});
    SweepEnv env = env_for();
    BlockSizeResult r = run_blocksize_sweep(env, s);
    std::vector<cal::IoOp> writes;
    for (const auto& x : cur->trace.records)
      if (x.op == OpKind::Write && x.bytes > 0) writes.push_back({x.start, x.end, x.bytes, false, 0, x.error});
    cal::SweepRegimes reg = cal::sweep_regimes(writes);
    std::vector<std::string> rates;
    for (const auto& p : r.points) rates.push_back(fmt::format("{} {}", format_size(static_cast<double>(p.block)), format_rate(p.write_rate)));
    add_phase("blocksize", t0, b0,
              fmt::format("{}; {}", fmt::join(rates, ", "),
                          reg.cliff ? cal::regimes_text(reg) : "all points past the write cache (one regime)"));
  }

  // 4. Interleaved files: the seek penalty.
  if (go()) {
    double t0 = t.clock->now(), b0 = written;
    InterleavedSweep s;
    s.seconds = plan.interleaved;
    s.max_bytes = static_cast<uint64_t>(drained_in(plan.interleaved, std::min(rep.max_bytes / 2, 512 * kMiB)));
    s.first_file = 300;
    begin_phase("interleaved-one", 2 * plan.interleaved, plan.reads + plan.buffered + 3 * plan.paced,
                {{"sweep", "interleaved"}, {"phase", "sequential"}, {"direct", "1"}});
    SweepEnv env = env_for();
    InterleavedResult r = run_interleaved_write(env, s, [&] {
      new_trace("interleaved.csv", {{"sweep", "interleaved"},
                                    {"phase", "interleaved"},
                                    {"files", std::to_string(s.files)},
                                    {"direct", "1"}});
    });
    add_phase("interleaved", t0, b0,
              fmt::format("{} per write to one file, {} round-robin to {} files", format_duration(r.sequential_op_s),
                          format_duration(r.interleaved_op_s), s.files));
  }

  // 4b. Reads: a file written once, read back at three block sizes (cache dropped first).
  if (go()) {
    double t0 = t.clock->now(), b0 = written;
    ThreadsSweep s;
    s.blocks = {4096, 65536, 1 << 20, 4 << 20};  // the read fit needs 4+ cells
    s.threads = {1};
    s.file_bytes = static_cast<uint64_t>(std::clamp(sustained * plan.reads / 2, 16 * kMiB, std::min(rep.max_bytes / 2, 512 * kMiB)));
    s.seconds = plan.reads / 5;
    s.direct = true;
    s.file = 350;
    begin_phase("reads", plan.reads, plan.buffered + 3 * plan.paced, {{"sweep", "threads"}, {"direct", "1"}});
    SweepEnv env = env_for();
    if (t.real) env.thread_devices = {t.real.get()};  // one real thread on the device itself
    ThreadsResult r = run_threads_sweep(env, s);
    std::string how = "cache dropped before each point";
    std::vector<std::string> rates;
    for (const auto& p : r.points) {
      rates.push_back(fmt::format("{} {}", format_size(static_cast<double>(p.block)), format_rate(p.rate)));
      if (p.cache.starts_with("not ") && !p.cache.starts_with("not needed")) how = "NOT from the device: " + p.cache;
    }
    add_phase("reads", t0, b0, fmt::format("{}; {}", fmt::join(rates, ", "), how));
    if (how.starts_with("NOT")) rep.notes.push_back("read figures left out of the profile: reads " + how);
  }

  // 5. Buffered: the host page cache.
  double buffered_bytes = 0, buffered_write_s = 0, buffered_end_rate = 0;
  if (go()) {
    double t0 = t.clock->now(), b0 = written;
    SustainedSweep s;
    s.block = 1 << 20;
    s.max_seconds = plan.buffered;
    // Past the dirty limit, but no more than the device drains in the phase's
    // time: the fsync at the end must not take longer than the writes did.
    double want = 1.5 * kernel.dirty_limit + std::max(sustained, 1e6) * plan.buffered;
    double drainable = std::max(sustained, 1e6) * plan.buffered;
    s.max_bytes = static_cast<uint64_t>(std::min({rep.max_bytes, want, std::max(drainable, 64 * kMiB)}));
    s.window = 0.25;
    s.direct = false;
    s.file = 400;
    begin_phase("buffered", plan.buffered, 3 * plan.paced, {{"sweep", "buffered"}, {"direct", "0"}});
    SweepEnv env = env_for();
    SustainedResult r = run_sustained_sweep(env, s);
    add_phase("buffered", t0, b0,
              fmt::format("{} in {:.1f} s (+ {:.1f} s fsync): {} at first, {} at the end", format_size(r.bytes),
                          r.seconds - r.fsync_seconds, r.fsync_seconds, format_rate(r.initial_rate),
                          format_rate(r.final_rate)));
    if (kernel.dirty_limit > 0.9 * static_cast<double>(s.max_bytes))
      rep.notes.push_back(fmt::format("the kernel's dirty limit (~{}) is more than the buffered phase could write "
                                      "here ({}: the safe level, or what the device drains in {:.0f} s): the "
                                      "kernel's setting is used instead of a measurement",
                                      format_size(kernel.dirty_limit), format_size(static_cast<double>(s.max_bytes)),
                                      plan.buffered));
    buffered_bytes = r.bytes;
    buffered_write_s = r.seconds - r.fsync_seconds;
    buffered_end_rate = r.final_rate;
  }

  // 6. Paced writes at fractions of the sustained rate, as a recorder's writer.
  uint64_t block = cfg.recorder.block_bytes ? cfg.recorder.block_bytes : cfg.recorder.buffer_bytes / 2;
  block = std::max<uint64_t>(4096, block / 4096 * 4096);
  const double fractions[] = {0.3, 0.5, 0.7};
  // For the headline's cross-check: each phase written as the recorder
  // writes, judged as the headline's own check is (judge_headline_check).
  std::vector<CharacterizeReport::HeadlineCheck> paced;
  // The paced phases take what the budget has left (at least their planned
  // share; a third of it kept for their fsyncs and the headline): whether a
  // recorder meets the device's pauses is a count of rare events, and rare
  // pauses (one every 10 s) need a minute or more of paced writes to tell.
  double paced_s = std::max(plan.paced, (cfg.budget_s - check_s - (t.clock->now() - t_start)) / 3 / 1.5);
  for (size_t i = 0; i < 3 && go() && sustained > 0; ++i) {
    double t0 = t.clock->now(), b0 = written;
    PacedSweep s;
    s.block = block;
    s.rate = fractions[i] * sustained;
    s.seconds = paced_s;
    s.max_bytes = static_cast<uint64_t>(rep.max_bytes);
    // Through a kernel filesystem the paced writes go direct: their pauses are
    // then the device's own, at a recorder's rates, and the model adds the page
    // cache and the journal commits a buffered recorder meets on top. Through a
    // userspace driver they go as the recorder writes: its pauses are in-call.
    s.direct = cfg.recorder.direct || !rep.fs.userspace;
    s.file = 500 + i;
    std::string name = fmt::format("paced-{}", fractions[i]);
    begin_phase(name, paced_s, (2 - static_cast<double>(i)) * paced_s + check_s,
                {{"sweep", "paced"},
                 {"direct", s.direct ? "1" : "0"},
                 {"pace_fraction", fmt::format("{}", fractions[i])},
                 {"pace_bytes_per_s", fmt::format("{:.0f}", s.rate)},
                 {"block_bytes", std::to_string(block)}});
    SweepEnv env = env_for();
    PacedResult r = run_paced_write(env, s);
    double mx = r.latencies.empty() ? 0 : *std::max_element(r.latencies.begin(), r.latencies.end());
    double p99 = percentile(r.latencies, 0.99);
    add_phase(name, t0, b0,
              fmt::format("{} x {}: latency p99 {}, max {}; {} of {} writes late{}", format_rate(s.rate),
                          format_size(static_cast<double>(block)), format_duration(p99), format_duration(mx), r.late,
                          r.latencies.size(),
                          r.late ? fmt::format(", up to {} behind", format_duration(r.max_lag)) : ""));
    if (s.direct == cfg.recorder.direct)  // written as the recorder writes
      paced.push_back(judge_headline_check(r, s.rate, cfg.recorder.buffer_bytes, block, cfg.recorder.duration_s, false));
  }

  activity.stop();

  // 7. Fill (only when asked): up to the safe level.
  if (cfg.fill && go()) {
    double t0 = t.clock->now(), b0 = written;
    SpaceInfo now = t.space();
    FillSweep s;
    s.fill_to = cfg.safe_fill;
    s.direct = true;
    s.first_file = 1000;
    begin_phase("fill", 0, 0,
                {{"sweep", "fill"},
                 {"direct", "1"},
                 {"capacity_bytes", fmt::format("{:.0f}", now.total_bytes)},
                 {"prefill_bytes", fmt::format("{:.0f}", now.total_bytes - now.free_bytes)}});
    SweepEnv env = env_for();
    auto r = run_fill_sweep(env, s);
    if (!r) rep.notes.push_back("fill sweep: " + r.message());
    else
      add_phase("fill", t0, b0,
                r->points.empty() ? "nothing written"
                                  : fmt::format("{:.0f} % -> {:.0f} % full: {} -> {}", r->points.front().fill_before * 100,
                                                r->points.back().fill_after * 100, format_rate(r->points.front().rate),
                                                format_rate(r->points.back().rate)));
  }
  rep.seconds = t.clock->now() - t_start;
  rep.cancelled = cancelled();
  if (double share = t.real ? others_share(cpu_at_start, cpu_times(), rep.seconds) : -1; share >= 0) {
    rep.cpu_busy_others = share;
    // Half the machine busy elsewhere: the fit's pauses may be other programs'
    // (a userspace driver's own work counts here too; on 2 CPUs a busy driver
    // alone can reach half).
    if (rep.cpu_busy_others > 0.5)
      rep.notes.push_back(fmt::format(
          "other processes kept {:.0f} % of the {:.0f} CPUs busy during the measurement{}: slow writes and pauses "
          "from CPU contention are fitted as the device's, which makes the headline pessimistic; for the storage's "
          "own figures run characterize on an otherwise idle machine",
          rep.cpu_busy_others * 100, cpu_count(), rep.fs.userspace ? " (the userspace driver's own work included)" : ""));
  }
  if (t.real) t.real->remove_created();
  if (rep.cancelled) return rep;
  if (!full_in.empty())
    return R::error(fmt::format(
        "{}: the device filled up (ENOSPC) in the {} phase although it had {} free at the start and the run "
        "stays below {:.0f} % full: something else is filling it, or it holds less than it reports; free some "
        "space or stop the other writer, then run again (test files removed, no profile written)",
        rep.target, full_in, format_size(rep.free_bytes), cfg.safe_fill * 100));

  // Keep the traces if asked (each written whole or not at all; a file of
  // that name that appeared meanwhile is left alone, and said).
  for (const auto& pt : traces) {
    if (cfg.keep_traces.empty() || pt.trace.records.empty()) continue;
    std::string path = cfg.keep_traces + "/" + pt.file;
    assert(std::find(std::begin(kTraceFiles), std::end(kTraceFiles), pt.file) != std::end(kTraceFiles));
    auto appeared = [&] {
      rep.notes.push_back(fmt::format("trace {} not kept: {} appeared during the run and was left as it is", pt.file, path));
    };
    if (std::error_code ec; std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) {
      appeared();
      continue;
    }
    TraceWriter w;
    if (Status st = w.open(path, pt.trace.meta, {"--keep-traces", "traces", false, {}, true}); !st.ok())
      return R::error(st.message());
    for (const auto& r : pt.trace.records) w.write(r);
    if (Status st = w.close(); !st.ok()) {
      // Put in place only if the name is still free: one that appeared
      // between the check above and here is the user's, and stays.
      if (std::error_code ec; std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) {
        appeared();
        continue;
      }
      return R::error(st.message());
    }
    rep.traces.push_back(path);
  }

  // The device's own activity, kept beside the traces (never replacing a
  // file: one that appeared meanwhile stays, and is said).
  if (!cfg.keep_traces.empty() && rep.device_pauses.measured && !activity.samples().empty()) {
    std::string path = cfg.keep_traces + "/" + kDeviceActivityFile;
    std::string text = fmt::format(
        "# streamdisk-device-activity 1\n# device={}\n# sample_period_s={}\n# clock=the traces' own (their "
        "start_s and end_s)\nt_s,written_bytes,in_flight\n",
        rep.device_pauses.device, activity.period());
    for (const auto& x : activity.samples()) text += fmt::format("{:.6f},{:.0f},{:.0f}\n", x.t, x.written, x.in_flight);
    if (Status st = write_output_file(path, text, {"--keep-traces", "traces", false, {}, true}); st.ok())
      rep.traces.push_back(path);
    else if (std::error_code ec; std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found)
      rep.notes.push_back(fmt::format("{} not kept: {} appeared during the run and was left as it is",
                                      kDeviceActivityFile, path));
    else
      return R::error(st.message());
  }

  // Calibrate from the traces.
  std::vector<cal::Series> series;
  std::vector<std::string> names;
  for (const auto& pt : traces) {
    auto s = cal::series_from_trace(pt.trace, pt.file);
    if (!s) continue;  // a phase cut short before its first write
    if (pt.file == "reads.csv" && std::any_of(rep.notes.begin(), rep.notes.end(), [](const std::string& n) {
          return n.starts_with("read figures left out");
        }))
      std::erase_if(s->ops, [](const cal::IoOp& op) { return op.read; });
    names.push_back(pt.file);
    series.push_back(std::move(*s));
  }
  cal::Options opt;
  opt.name = cfg.name;
  if (rep.device_pauses.measured) opt.device_activity = activity.samples(), opt.device_period_s = activity.period();
  auto c = cal::calibrate_loaded(std::move(series), {}, names, opt);
  if (!c) return R::error(fmt::format("calibrating the measured traces failed: {}", c.message()));
  rep.calibration = std::move(*c);
  cal::Calibration& cal = rep.calibration;
  if (device_counted) {
    // The device's long-run rate L counts its pauses; the profile models
    // them apart (the pause fit above), so its rate between them S is what
    // gives L back with those pauses, by the model's own long-run rule
    // (models/analytic.cpp: L = (1 - time-triggered share) / (1/S + seconds
    // per byte of byte-triggered ones), the catch-up taken off each pause).
    const SustainedResult& f = cache.first;
    LayerParams stalls(Layer::Device);
    stalls.set("sustained_mbps", 1, Origin::Profile);  // required; not used here
    for (const auto& x : cal.params)  // a value outside the table's range stays at its default
      if (x.key.starts_with("device.stall") || x.key == "device.catchup_ms")
        (void)stalls.set(x.key.substr(7), x.value, Origin::Profile);
    (void)stalls.finish("characterize");
    StallProcess pauses(stalls, 0);
    double catchup = stalls.get("catchup_ms") * 1e-3;
    double paused_share = pauses.time_fraction(catchup), byte_pause_s = pauses.mean_seconds_per_byte(catchup);
    double L = f.device_rate, S = L;
    std::string out = "no pauses modelled";
    if ((1 - paused_share) / L > byte_pause_s) S = 1 / ((1 - paused_share) / L - byte_pause_s);
    if (S != L) out = fmt::format("the profile's pauses take {:.1f} % of the time", 100 * (1 - L / S));
    auto* e = cal::find_estimate(cal, "device.sustained_mbps");
    std::string was = e ? fmt::format("{:.2f} MB/s", e->value) : "none";
    if (!e) {
      cal.params.push_back({"device.sustained_mbps", 0, 0, 0, 0, "", ""});
      e = &cal.params.back();
    }
    e->value = S / 1e6;
    e->band = f.device_rate_band * S / L / 1e6;
    e->lo = 1, e->hi = 0;  // value ± band
    e->r2 = 0;
    e->points = f.device_spans;
    e->method = fmt::format("the device's own written count ({}) past the cliff", kernel.dev_dir + "/stat");
    e->from = "cache.csv";
    cal.notes.push_back(fmt::format(
        "sustained rate: {} between pauses, from the device's own written count ({}: {} in the long run, pauses "
        "and all; {}; {}), not the {} the 'direct' writes' fit gave: the FUSE driver writes its device through a "
        "page cache of {}, so those writes ran at the driver's pace into that cache and then as the kernel paced "
        "them",
        format_rate(S), kernel.dev_dir + "/stat", format_rate(L), out,
        f.payload_share_measured
            ? fmt::format("the filesystem's own writes were {:.1f} % of what the device took", 100 * (1 - f.payload_share))
            : "the fsync did not reach the device, so the filesystem's own writes are counted as payload",
        was, format_size(kernel.dirty_limit)));
  }

  // The whole stack in one profile, the filesystem counted once.
  std::string how = rep.fs.how + (rep.fs.fstype.empty() ? "" : ", " + rep.fs.fstype);
  cal.params.push_back({"filesystem.userspace", rep.fs.userspace ? 1.0 : 0.0, 0, 0, 0, "detected", how});
  if (rep.fs.journal_commit_s > 0 && !rep.fs.userspace)
    cal.params.push_back({"filesystem.journal_commit_ms", rep.fs.journal_commit_s * 1e3, 0, 0, 0,
                          "the mount's journal commit interval (commit= option, else ext4's default 5 s)", how});
  if (!kernel.marks_background)
    cal.params.push_back({"filesystem.writeback_background", 0, 0, 0, 0,
                          "the driver's writeback is not marked as background (ext4's own requests): writeback "
                          "throttling allows it its normal depth",
                          how});
  // A userspace driver's pauses land inside the writer's call, unless paced
  // writes showed a cache in between (the driver writes through the block
  // device's page cache): then they are the device's.
  if (rep.fs.userspace && cal.stalls_behind_cache)
    rep.notes.push_back(fmt::format("the pauses are behind a cache ({}): the profile puts them in the device layer, "
                                    "under the host's page cache, not in the userspace driver's call. After a pause "
                                    "Linux paces the driver's writes at a rate that lags the device's "
                                    "(dirty_ratelimit), which the model does not have (it paces them at writeback's "
                                    "own rate), and a flat-out writer meets each pause late and so measures it short "
                                    "(the lengths are the device's own where its stat file showed them: the stalls "
                                    "note says how many). On the ntfs-3g test rig the headline was 33 % too high with "
                                    "a 4 MiB ring from the writes' lengths, and with the device's 0 % with 4 MiB and "
                                    "22 % too low with 1 MiB, where the real recorder does equally well with either "
                                    "(bench/rig_truth.md, sessions 27 and 30): treat it as a rough figure",
                                    rep.fs.driver_io == DriverIo::PageCache
                                        ? "the driver writes to its device through the page cache"
                                        : "paced writes did not meet them"));
  else if (rep.fs.userspace)
    for (auto& e : cal.params)
      if (e.key.starts_with("device.stall") && find_param(Layer::Filesystem, e.key.substr(7)))
        e.key = "filesystem." + e.key.substr(7);
  if (rep.device_pauses.measured) compare_device_pauses(rep);
  if (rep.total_bytes > 0 && t.real)
    cal.params.push_back({"device.capacity_bytes", rep.total_bytes, 0, 0, 0, "statvfs of the filesystem", rep.target});
  else if (t.model && t.model->files().capacity() > 0)
    cal.params.push_back({"device.capacity_bytes", t.model->files().capacity(), 0, 0, 0, "the model's capacity", rep.target});
  auto* dirty = cal::find_estimate(cal, "host.dirty_limit_bytes");
  bool had_fit = dirty != nullptr;
  if (dirty && kernel.dirty_limit > 0) {
    // The kernel's settings say where it throttles; where the buffered
    // writes slowed down is only a cross-check. Their knee moves with what
    // the device took meanwhile (a driver that takes data at a device's pace,
    // such as ntfs-3g or exfat-fuse, slows gradually as writeback drains
    // it), with a device's write cache, and with a journal commit that held
    // a write: on the rigs of session 13 the fit said 20 MB and then 15 MB
    // for ntfs-3g's 12.6 MB ceiling, and 10 MB on ext4 for a 604 MB one.
    // Where the kernel throttles a writer: the freerun ceiling, halfway
    // between the background level and the limit (the limit without one).
    bool halfway = kernel.background > 0 && kernel.background < kernel.dirty_limit;
    rep.notes.push_back(fmt::format("the buffered writes slowed after {} ({:.0f} % of where the kernel throttles, {}: "
                                    "{}); the profile uses the kernel's settings",
                                    format_size(dirty->value), 100 * dirty->value / kernel_ceiling,
                                    format_size(kernel_ceiling),
                                    halfway ? "halfway between the background level and the limit" : "the dirty limit"));
    drop_estimate(cal, "host.dirty_limit_bytes");
    dirty = nullptr;
  }
  if (dirty && buffered_write_s > 0) {
    // No kernel settings: whatever the fit says, the cache held at least what
    // was written less what the device can have taken meanwhile: at most its
    // burst rate, its sustained rate, or the rate the buffered writes ended
    // at (throttled to what the device took then).
    auto* bm = cal::find_estimate(cal, "device.burst_mbps");
    double fastest = std::max({sustained, bm ? bm->value * 1e6 : 0.0, buffered_end_rate});
    double held = buffered_bytes - fastest * buffered_write_s;
    if (dirty->value < 0.7 * held) {
      rep.notes.push_back(fmt::format("the fitted dirty limit ({}) is less than the page cache held in the buffered "
                                      "phase (at least {}: {} written in {:.1f} s, the device takes at most {}): not "
                                      "used",
                                      format_size(dirty->value), format_size(held), format_size(buffered_bytes),
                                      buffered_write_s, format_rate(fastest)));
      drop_estimate(cal, "host.dirty_limit_bytes");
      dirty = nullptr;
    }
  }
  if (!dirty && kernel.dirty_limit > 0) {
    cal.params.push_back({"host.dirty_limit_bytes", kernel.dirty_limit, 0, 0, 0,
                          kernel.how("vm.dirty_bytes or dirty_ratio x available memory", "dirty_limit_bytes") +
                              (had_fit ? ": the buffered phase's fit is not used (see the notes)"
                                       : ": the buffered phase did not reach it"),
                          kernel.source});
    dirty = &cal.params.back();
  }
  if (dirty && kernel.dirty_limit > 0) {
    // Linux's writeback policy below the hard limit: when dirty data goes
    // down and in what chunks (a journal commit waits for the chunk in
    // flight). Read from the kernel's settings.
    const std::string& sysvm = kernel.source;
    cal.params.push_back({"host.dirty_background_bytes", kernel.background, 0, 0, 0,
                          kernel.how("vm.dirty_background_bytes or dirty_background_ratio x available memory",
                                     "dirty_background_bytes"),
                          sysvm});
    cal.params.push_back({"host.dirty_expire_ms", kernel.expire_ms, 0, 0, 0,
                          kernel.how("vm.dirty_expire_centisecs", "dirty_expire_ms"), sysvm});
    cal.params.push_back({"host.writeback_interval_ms", kernel.interval_ms, 0, 0, 0,
                          kernel.how("vm.dirty_writeback_centisecs", "writeback_interval_ms"), sysvm});
    if (kernel.chunk >= 0)
      cal.params.push_back({"host.writeback_chunk_bytes", kernel.chunk, 0, 0, 0,
                            kernel.how("the kernel's writeback chunk", "writeback_chunk_bytes"), sysvm});
    else
      cal.params.push_back({"host.writeback_chunk_bytes", kernel_writeback_chunk(sustained, kernel.dirty_limit), 0, 0, 0,
                            "kernel setting (the kernel's writeback chunk: half a second of the sustained rate, at "
                            "most 1/8 of the dirty limit, plus 4 MiB)",
                            sysvm});
    // The block queue under the filesystem: how much writeback it holds
    // submitted at once, which a journal commit waits for.
    const std::string& dev_dir = kernel.dev_dir;
    const BlockQueue& q = kernel.queue;
    if (q.depth > 0) {
      const std::string& sys = kernel.queue_source;
      cal.params.push_back({"host.writeback_request_bytes", q.request_bytes, 0, 0, 0, kernel.queue_how(), sys});
      if (q.wbt) {
        cal.params.push_back({"host.wbt_queue_depth", q.depth, 0, 0, 0, kernel.queue_how(), sys});
        cal.params.push_back({"host.writeback_queue_bytes", 0, 0, 0, 0,
                              "not used: writeback throttling (host.wbt_queue_depth) sets the queue", sys});
      } else
        cal.params.push_back({"host.writeback_queue_bytes", q.depth * q.request_bytes, 0, 0, 0,
                              kernel.queue_how("; writeback throttling off: the whole queue"), sys});
    } else if (!rep.fs.userspace && !kernel.model) {
      rep.notes.push_back("the block queue under the filesystem was not found in /sys: a journal commit is taken to "
                          "wait for one writeback chunk (host.writeback_queue_bytes)");
    }
    dirty = cal::find_estimate(cal, "host.dirty_limit_bytes");  // push_back moved it
    // The model gives the device the whole limit, which it has after its own
    // writes only if nothing else on the machine wrote meanwhile.
    DirtyShare share = dev_dir.empty() ? DirtyShare{} : dirty_share(dev_dir);
    if (share.share >= 0 && share.share < kWholeShare)
      rep.notes.push_back(fmt::format(
          "the kernel gave this device {:.0f} % of the dirty limit at the end ({} of {}, {}): Linux splits it "
          "among disks by their recent writeback, so another disk wrote meanwhile. The profile gives the device the "
          "whole limit, as on a quiet machine: measure again with nothing else writing, or expect a recording to be "
          "throttled earlier while other disks write",
          100 * share.share, format_size(share.device_kb * 1024), format_size(share.total_kb * 1024), share.path));
  }
  if (rep.fs.userspace && dirty) {
    // "Direct" writes through a FUSE driver went through the page cache below
    // it: a burst the size of the dirty limit is that cache, not the device's.
    auto* burst = cal::find_estimate(cal, "device.burst_bytes");
    if (burst && std::fabs(burst->value - dirty->value) < 0.3 * dirty->value) {
      cal.notes.push_back(fmt::format("the burst the 'direct' writes saw ({}) matches the host dirty limit ({}): "
                                      "it is the page cache below the FUSE driver, not a device cache; left out",
                                      format_size(burst->value), format_size(dirty->value)));
      for (const char* k : {"device.burst_bytes", "device.burst_mbps", "device.recover_mbps"}) drop_estimate(cal, k);
    }
  }
  cal.layers = {Layer::Host, Layer::Filesystem, Layer::Device};
  cal.missing.clear();
  for (Layer l : cal.layers)
    for (const ParamSpec* s : params_of(l)) {
      std::string key = fmt::format("{}.{}", layer_name(l), s->key);
      if (!cal::find_estimate(cal, key)) cal.missing.push_back({key, cal::sweep_for(l, s->key)});
    }
  auto toml = cal::profile_toml(cal, "characterize");
  if (!toml) return R::error(toml.message());
  rep.profile_toml = *toml;
  for (const auto& e : cal.params) {
    std::string sure = e.method == "detected" ? "detected: " + e.from
                       : e.band > 0           ? fmt::format("± {:.3g} (95 %), {} points", e.band, e.points)
                       : e.points > 0         ? fmt::format("{} points", e.points)
                                              : e.method;
    std::string phase = e.method == "detected"                   ? "filesystem"
                        : e.key == "device.capacity_bytes"          ? "space"
                        : e.method.starts_with("kernel setting") || e.from == kernel.source ? "kernel"
                                                                    : phase_of(e.from);
    rep.found.push_back({e.key, e.value, unit_of(e.key), phase, sure});
  }
  for (const auto& n : cal.notes) rep.notes.push_back(n);

  // Whether the first burst looks like a full cache.
  auto* burst = cal::find_estimate(cal, "device.burst_bytes");
  auto* recover = cal::find_estimate(cal, "device.recover_mbps");
  if (!burst)
    rep.burst_verdict = "no write cache seen";
  else if (!recover || recover->value <= 0)
    rep.burst_verdict = fmt::format("burst {}: the recovery rate was not measured, so whether {:.0f} s of quiet "
                                    "refilled the cache cannot be said",
                                    format_size(burst->value), rep.idle_quiet_s);
  else {
    auto* quiet = cal::find_estimate(cal, "device.recover_idle_ms");  // it starts to empty only after that
    double needs = burst->value / (recover->value * 1e6) + (quiet ? quiet->value / 1e3 : 0);
    rep.burst_verdict =
        rep.idle_quiet_s >= needs
            ? fmt::format("burst {} looks like a full cache: {:.0f} s of quiet before it, the measured recovery "
                          "({}) refills it in {:.1f} s",
                          format_size(burst->value), rep.idle_quiet_s, format_rate(recover->value * 1e6), needs)
            : fmt::format("burst {} may be a partly refilled cache: {:.0f} s of quiet before it, the measured "
                          "recovery ({}) needs {:.1f} s; rerun with --idle {:.0f}s",
                          format_size(burst->value), rep.idle_quiet_s, format_rate(recover->value * 1e6), needs,
                          std::ceil(needs * 1.2));
  }

  // The headline: the highest clean data rate for the stated recorder.
  auto prof = parse_profile_text(rep.profile_toml, cfg.name + ".toml");
  if (!prof) return R::error("internal: the characterized profile does not load: " + prof.message());
  if (Status st = prof->finish(); !st.ok()) return R::error("internal: the characterized profile is incomplete: " + st.message());
  rep.recorder = cfg.recorder;
  CapacityQuery q;
  q.base = cfg.recorder;
  q.target = CapacityTarget::SampleRate;
  q.criterion = cfg.criterion;
  auto capr = find_capacity(*prof, q);
  if (!capr) return R::error(capr.message());
  rep.capacity = *capr;
  rep.headline_bytes_per_s = capr->found ? capr->best * static_cast<double>(cfg.recorder.stream.frame_bytes()) : 0;
  // The same answer over what the measurement allows: each fitted value with
  // a 95 % interval (the profile's ranges) at either end, then the corners.
  // Not when the guard says it would take long (wide pause intervals make
  // slow searches): `capacity` on the profile gives it then.
  if (!ranged_params(*prof).empty()) {
    if (Status cost = check_capacity_cost({&*prof}, cfg.recorder, q.criterion.max_seeds, true, q.model, q.target);
        !cost.ok()) {
      rep.notes.push_back(fmt::format("the headline's spread over the measured values' intervals was not computed "
                                      "({}); `streamdisk capacity -p PROFILE` computes it",
                                      cost.message()));
    } else {
      std::vector<Result<CapacityResult>> nominal{*capr};
      auto sp = capacity_spreads({&*prof}, {q}, &nominal);
      if (!sp) return R::error(sp.message());
      rep.spread = sp->front();
    }
  }
  // Cross-check against what the paced writes met: a writer that fell L s
  // behind a schedule of R bytes/s had L x R bytes waiting, which a recorder's
  // ring must hold (less the block being written).
  for (const auto& p : paced) {
    if (p.fell_behind && rep.headline_bytes_per_s >= p.rate)
      rep.notes.push_back(fmt::format(
          "the headline ({}) may be optimistic: writes paced at {} fell up to {} behind, {} waiting, more than the "
          "recorder's {} buffer holds; the model does not reproduce that (see docs/characterize.md, limitations)",
          format_rate(rep.headline_bytes_per_s), format_rate(p.rate), format_duration(p.max_lag),
          format_size(p.max_lag * p.rate), format_size(static_cast<double>(cfg.recorder.buffer_bytes))));
  }
  // The headline held against the target: writes as the recorder writes
  // them, paced at the headline's rate. Short next to a recording, so it
  // catches gross errors only (a clean check is not a proof), but it is the
  // storage's own answer, not the model's.
  // What the budget has left (its end flushes what the page cache holds: a
  // third of it kept for that).
  const double check_left = std::min(check_s, (cfg.budget_s - (t.clock->now() - t_start)) / 1.5);
  if (check_s <= 0)
    rep.check.text = "not run (--check 0)";
  else if (rep.headline_bytes_per_s > 0 && go() && check_left < 5)
    rep.check.text = "not run: the budget was used up before it (a longer --budget leaves it time)";
  else if (rep.headline_bytes_per_s > 0 && go()) {
    double t0 = t.clock->now(), b0 = written;
    PacedSweep s;
    s.block = block;
    s.rate = rep.headline_bytes_per_s;
    s.seconds = check_left;
    s.max_bytes = static_cast<uint64_t>(rep.max_bytes);
    s.direct = cfg.recorder.direct;
    s.file = 600;
    begin_phase("check", check_left, 0,
                {{"sweep", "paced"},
                 {"direct", s.direct ? "1" : "0"},
                 {"pace_bytes_per_s", fmt::format("{:.0f}", s.rate)},
                 {"block_bytes", std::to_string(block)}});
    SweepEnv env = env_for();
    PacedResult r = run_paced_write(env, s);
    if (t.real) t.real->remove_created();
    auto& c = rep.check;
    c = judge_headline_check(r, s.rate, cfg.recorder.buffer_bytes, block, cfg.recorder.duration_s, cancelled());
    if (c.fell_behind) {
      // The check comes right after the measurement, with the device's write
      // cache used up, where the headline's recording starts from an idle,
      // recovered device. The model's account of the same check from that
      // state: if it falls behind too, the lag is the cache's, and says
      // nothing about the headline.
      ModelDevice m(*prof);
      if (double burst = m.device_layer().burst_bytes(); burst > 0) {
        m.device_layer().set_burst_level(burst);
        VirtualClock vc;
        SweepEnv me;
        me.dev = &m;
        me.clock = &vc;
        PacedResult mr = run_paced_write(me, s);
        auto mc = judge_headline_check(mr, s.rate, cfg.recorder.buffer_bytes, block, cfg.recorder.duration_s, false);
        if (mc.fell_behind) {
          c.fell_behind = false;
          c.cache_used_up = true;
          c.text = fmt::format(
              "{} writes as the recorder writes them, paced at the headline's {} for {:.0f} s, fell up to {} behind "
              "({} waiting; the ring holds {} beside the block being written), but the check began with the write "
              "cache used up by the measurement and the profile falls behind there too (up to {} in the model): the "
              "cache's lag, not a verdict on the headline, whose recording starts from an idle device",
              c.writes, format_rate(c.rate), c.seconds, format_duration(c.max_lag),
              format_size(c.max_lag * c.rate), format_size(c.room), format_duration(mc.max_lag));
        }
      }
    }
    add_phase("check", t0, b0,
              c.fell_behind      ? "fell behind: the headline is optimistic here"
              : c.cache_used_up ? "fell behind with the write cache used up, as the model does"
              : c.ran            ? "clean"
                                 : c.text);
    if (c.fell_behind) rep.notes.push_back("the headline failed its check on the storage itself: " + c.text);
    if (!full_in.empty())
      rep.notes.push_back("the check stopped on a full device (ENOSPC): something else is filling it");
  }
  rep.seconds = t.clock->now() - t_start;
  rep.cancelled = cancelled();
  if (rep.cancelled) return rep;
  const CandidateStats& at = capr->at_best;
  rep.criterion =
      capr->stalls
          ? fmt::format("clean = {}; at the headline {} of {} seeded runs overran: P(>=1 overrun) in [{:.3g}, {:.3g}] "
                        "(Clopper-Pearson, {:g} % confidence)",
                        criterion_text(cfg.criterion, cfg.recorder.duration_s), at.seeds_with_overrun, at.seeds,
                        at.p.low, at.p.high, 100 * cfg.criterion.confidence)
          : fmt::format("clean = no overrun in a {} run; the profile has no random stalls, so P(>=1 overrun) is 0 or 1",
                        format_duration(cfg.recorder.duration_s));
  return rep;
}

}  // namespace sd
