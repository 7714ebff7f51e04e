#include "sim/cost.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/analytic.h"
#include "models/device.h"
#include "models/units.h"
#include "sim/capacity.h"
#include "sim/spread.h"

namespace sd {
namespace {

double stall_draws(const LayerParams& lp, double bytes) {
  double interval = lp.get("stall_interval_mb") * 1e6;
  if (interval <= 0 || lp.get("stall_duration_ms") <= 0) return 0;
  return bytes / interval;
}


// The data rate at which a long pause in the writer's path (median x
// e^(2 sigma), 1 in 40) fills the ring's room; infinity if none reaches it.
double stall_room_rate(const Profile& p, const RecorderConfig& c) {
  bool cached = !c.direct && p.params(Layer::Host).get("dirty_limit_bytes") > 0;
  double block = static_cast<double>(c.block_bytes ? c.block_bytes : c.buffer_bytes / 2);
  double room = std::max(static_cast<double>(c.buffer_bytes) - block, block);
  double longest = 0;
  for (Layer l : {Layer::Filesystem, Layer::Device}) {
    const LayerParams& lp = p.params(l);
    // Behind a page cache only a userspace driver's pauses block the writer's call.
    if (cached && !(l == Layer::Filesystem && lp.get("userspace") != 0)) continue;
    for (const char* pre : {"stall_", "stall2_"}) {
      std::string k = pre;
      double median = lp.get(k + "duration_ms") * 1e-3;
      if (median <= 0 || (lp.get(k + "interval_mb") <= 0 && lp.get(k + "period_ms") <= 0)) continue;
      longest = std::max(longest, median * std::exp(2 * lp.get(k + "duration_sigma")));
    }
  }
  return longest > 0 ? room / longest : INFINITY;
}

}  // namespace

std::string RunCost::dominant() const {
  struct Term {
    double v;
    const char* what;
  } terms[] = {
      {recorder_writes, "recorder writes (raise --block or --buffer, or shorten --duration)"},
      {device_requests, "device requests (filesystem.request_bytes or host.writeback_chunk_bytes is small)"},
      {metadata_writes, "metadata writes (filesystem.meta_every_bytes is small)"},
      {stall_draws, "stalls (stall_interval_mb is tiny: raise it, or shorten --duration)"},
  };
  const Term* best = &terms[0];
  for (const auto& t : terms)
    if (t.v > best->v) best = &t;
  return fmt::format("{:.3g} {}", best->v, best->what);
}

RunCost estimate_recording(const Profile& p, const RecorderConfig& cfg, const ModelOptions& mo) {
  RunCost c;
  const StreamSpec& s = cfg.stream;
  double data = cfg.duration_s * s.bytes_per_second();
  // The run stops when the device is full (or a single file reaches the
  // filesystem's limit), so it cannot write more than that.
  double cap = mo.capacity_bytes >= 0 ? mo.capacity_bytes : p.params(Layer::Device).get("capacity_bytes");
  if (cap > 0) data = std::min(data, std::max(0.0, cap - mo.prefill_bytes));
  double max_file = p.params(Layer::Filesystem).get("max_file_bytes");
  bool per_channel = cfg.format == FormatKind::PerChannel;
  if (max_file > 0 && cfg.split_bytes == 0) data = std::min(data, max_file * (per_channel ? s.channels : 1));
  c.data_bytes = data;
  double block = static_cast<double>(cfg.block_bytes ? cfg.block_bytes : cfg.buffer_bytes / 2);
  block = std::max(block, static_cast<double>(s.frame_bytes()));
  double blocks = data / block;
  c.recorder_writes = blocks * (per_channel ? s.channels : 1);
  if (cfg.header_every_frames > 0)
    c.recorder_writes += cfg.duration_s * s.sample_rate / static_cast<double>(cfg.header_every_frames);
  double files = per_channel ? s.channels : 1;
  if (cfg.split_bytes > 0) files *= std::max(1.0, std::ceil(data / (per_channel ? s.channels : 1) /
                                                         static_cast<double>(cfg.split_bytes)));
  c.files = files;
  c.recorder_writes += 2 * files;  // create, close
  // Inside the model: the page cache writes back in chunks; the filesystem
  // splits requests; metadata every meta_every_bytes; stalls per byte.
  const LayerParams& host = p.params(Layer::Host);
  const LayerParams& fsl = p.params(Layer::Filesystem);
  double piece = block / (per_channel ? s.channels : 1);
  if (!cfg.direct && host.get("dirty_limit_bytes") > 0) piece = std::min(piece, host.get("writeback_chunk_bytes"));
  if (fsl.get("request_bytes") > 0) piece = std::min(piece, fsl.get("request_bytes"));
  c.device_requests = data / std::max(piece, 1.0);
  if (fsl.get("meta_every_bytes") > 0) c.metadata_writes = data / fsl.get("meta_every_bytes");
  c.stall_draws = stall_draws(fsl, data) + stall_draws(p.params(Layer::Device), data);
  return c;
}

std::string eta_text(double steps) {
  double s = steps / kStepsPerSecond;
  if (s > 3.15e9) return "longer than a century";
  return "about " + format_duration(s);
}

Status check_cost(const RunCost& one, double runs, const std::string& runs_text) {
  double steps = one.steps() * runs;
  std::string times = runs > 1 ? fmt::format(" x {:.3g} runs ({})", runs, runs_text) : "";
  if (!(steps <= kMaxSteps))
    return Status::error(fmt::format(
        "this request would take {} to simulate ({:.3g} model steps{}, mostly {}); the limit is {}: "
        "make it smaller",
        eta_text(steps), one.steps(), times, one.dominant(), format_duration(kMaxSeconds)));
  if (!(one.files <= kMaxFiles))
    return Status::error(fmt::format(
        "this recording would create {:.3g} files (about {} of memory to track them); the limit is {:.0f}: "
        "raise --split, or shorten --duration",
        one.files, format_size(one.files * kBytesPerFile), kMaxFiles));
  return {};
}


SearchEstimate estimate_capacity_search(const Profile& p, const RecorderConfig& base, int max_seeds,
                                        bool spread_search, const ModelOptions& mo, CapacityTarget target,
                                        double enough) {
  double block = static_cast<double>(base.block_bytes ? base.block_bytes : base.buffer_bytes / 2);
  double rate = std::min(write_rate(p, std::max(block, 4096.0), Phase::Sustained, base.direct), stall_room_rate(p, base));
  RecorderConfig c = base;
  double per_ch = std::max(1.0, c.stream.bytes_per_second() / std::max<uint32_t>(1, c.stream.channels));
  // The search tries nothing above what is enough.
  if (enough > 0 && target == CapacityTarget::Channels) rate = std::min(rate, enough_limit(target, enough, 0) * per_ch);
  if (enough > 0 && target == CapacityTarget::SampleRate)
    rate = std::min(rate, enough_limit(target, enough, 0) * static_cast<double>(c.stream.frame_bytes()));
  if (std::isfinite(rate) && rate > 0) c.stream.channels = static_cast<uint32_t>(std::clamp(rate / per_ch, 1.0, 1e6));
  SearchEstimate e;
  e.one = estimate_recording(p, c, mo);
  e.recording = c;
  bool real = target != CapacityTarget::Channels;
  if (has_stalls(p))
    e.recordings = std::max(1, max_seeds) * (real            ? kStallRealSearchSeedShare
                                             : spread_search ? kStallSpreadSearchSeedShare
                                                             : kStallSearchSeedShare);
  else  // the spread's searches start from the analytic rate too
    e.recordings = real ? kPlainRealSearchRecordings : kPlainSearchRecordings;
  return e;
}

double SearchEstimate::cpu_seconds() const { return steps() / kSearchStepsPerSecond; }

double piloted_steps(const Profile& p, const RecorderConfig& c, const RunCost& one, const ModelOptions& mo) {
  double all = one.steps();
  double rate = c.stream.bytes_per_second();
  if (!(all > 0) || !(one.recorder_writes > 0) || !(rate > 0) || !(one.data_bytes > 0)) return all;
  RecorderConfig pc = c;
  double block = static_cast<double>(c.block_bytes ? c.block_bytes : c.buffer_bytes / 2);
  // About kPilotSteps of the estimate, and at least a few blocks.
  double seconds = std::max(c.duration_s * std::min(1.0, kPilotSteps / all), 8 * block / rate);
  pc.duration_s = std::min(c.duration_s, std::min(seconds, one.data_bytes / rate));
  pc.stop_at_first_overrun = false;
  if (!check_recorder(pc).ok()) return all;
  ModelOptions pmo = mo;
  pmo.seed = 1;
  ModelDevice dev(p, pmo);
  VirtualClock clock;
  auto r = run_recorder(dev, clock, pc);
  if (!r || r->ops == 0 || r->payload_bytes == 0) return all;
  double per_write = all / one.recorder_writes;  // the requests, metadata and stalls a write brings
  double through = static_cast<double>(r->ops - r->stepped_ops);
  double pilot = through * per_write + static_cast<double>(r->stepped_ops) * kSteppedWriteSteps;
  double scale = std::max(1.0, one.data_bytes / static_cast<double>(r->payload_bytes));
  return std::min(all, pilot * scale + one.stall_draws * kStallEventWrites * per_write);
}

double capacity_command_seconds(const std::vector<const Profile*>& profiles, const RecorderConfig& base,
                                int max_seeds, bool spread, const ModelOptions& mo, CapacityTarget target, bool pilot,
                                double stop_above, bool* partial, double enough) {
  if (partial) *partial = false;
  // Each profile's searches, priced with `one_steps` for its recording.
  auto cost = [&](const Profile& p, SearchEstimate& own) {
    double s = own.cpu_seconds();
    if (!spread) return s;
    SearchEstimate sp = estimate_capacity_search(p, base, max_seeds, true, mo, target, enough);
    sp.one_steps = own.one_steps;  // the same recording: only the number of recordings differs
    return s + static_cast<double>(2 + 2 * ranged_params(p).size()) * sp.cpu_seconds();
  };
  std::vector<SearchEstimate> own;
  std::vector<std::pair<double, size_t>> order;  // plain cost, profile: dearest first
  for (size_t i = 0; i < profiles.size(); ++i) {
    own.push_back(estimate_capacity_search(*profiles[i], base, max_seeds, false, mo, target, enough));
    order.emplace_back(cost(*profiles[i], own.back()), i);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  double s = 0;
  for (auto [plain, i] : order) {
    if (pilot) own[i].one_steps = piloted_steps(*profiles[i], own[i].recording, own[i].one, mo);
    s += pilot ? cost(*profiles[i], own[i]) : plain;
    if (s > stop_above) {
      if (partial) *partial = true;
      return s;
    }
  }
  return s;
}

Status check_capacity_cost(const std::vector<const Profile*>& profiles, const RecorderConfig& base, int max_seeds,
                           bool spread, const ModelOptions& mo, CapacityTarget target, double enough) {
  double searches = 0;
  for (const Profile* p : profiles) {
    SearchEstimate e = estimate_capacity_search(*p, base, max_seeds, false, mo, target, enough);
    if (Status st = check_cost(e.one); !st.ok()) return Status::error(fmt::format("profile '{}': {}", p->name, st.message()));
    searches += 1 + (spread ? static_cast<double>(2 + 2 * ranged_params(*p).size()) : 0);
  }
  double seconds = capacity_command_seconds(profiles, base, max_seeds, spread, mo, target, false, INFINITY, nullptr,
                                            enough);
  bool partial = false;  // the piloted sum stopped once over the limit: a lower bound
  if (!(seconds <= kMaxSeconds))
    seconds = capacity_command_seconds(profiles, base, max_seeds, spread, mo, target, true, kMaxSeconds, &partial,
                                       enough);
  if (!(seconds <= kMaxSeconds))
    return Status::error(fmt::format(
        "this search would take {} of CPU ({} profile(s), {:.0f} searches{}, up to {} seed(s) per candidate with "
        "random stalls); the limit is {}: give fewer profiles (a narrower glob), fewer --seeds, a shorter "
        "--duration{}{}",
        seconds > 3.15e9 ? "longer than a century"
                         : (partial ? "more than about " : "about ") + format_duration(seconds),
        profiles.size(), searches,
        spread ? " with the spread's 2k + 2 per profile" : "", std::max(1, max_seeds), format_duration(kMaxSeconds),
        target != CapacityTarget::Buffer && !(enough > 0) ? ", --enough (the most you need)" : "",
        spread ? ", or --no-spread (one search per profile)" : ""));
  return {};
}

}  // namespace sd
