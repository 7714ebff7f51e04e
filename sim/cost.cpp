#include "sim/cost.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/analytic.h"
#include "models/units.h"

namespace sd {
namespace {

double stall_draws(const LayerParams& lp, double bytes) {
  double interval = lp.get("stall_interval_mb") * 1e6;
  if (interval <= 0 || lp.get("stall_duration_ms") <= 0) return 0;
  return bytes / interval;
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

Status check_capacity_cost(const std::vector<const Profile*>& profiles, const RecorderConfig& base, int seeds,
                           const ModelOptions& mo, int candidates, const std::vector<const Profile*>& spread) {
  double steps = 0, runs = 0;
  RunCost worst;
  std::vector<std::pair<const Profile*, int>> searches;
  for (const Profile* p : profiles) searches.emplace_back(p, candidates);
  for (const Profile* p : spread) searches.emplace_back(p, kSpreadCandidates);
  for (const auto& [p, search_candidates] : searches) {
    // A search's recordings write at most what the device takes in the
    // duration; passing candidates write about that much.
    double block = static_cast<double>(base.block_bytes ? base.block_bytes : base.buffer_bytes / 2);
    double rate = write_rate(*p, std::max(block, 4096.0), Phase::Sustained, base.direct);
    RecorderConfig c = base;
    double per_ch = std::max(1.0, c.stream.bytes_per_second() / std::max<uint32_t>(1, c.stream.channels));
    if (std::isfinite(rate) && rate > 0) c.stream.channels = static_cast<uint32_t>(std::clamp(rate / per_ch, 1.0, 1e6));
    RunCost one = estimate_recording(*p, c, mo);
    bool stalls = false;
    for (Layer l : {Layer::Filesystem, Layer::Device})
      stalls |= p->params(l).get("stall_interval_mb") > 0 && p->params(l).get("stall_duration_ms") > 0;
    double n = static_cast<double>(search_candidates) * (stalls ? std::max(1, seeds) : 1);
    runs += n;
    steps += n * one.steps();
    if (one.steps() > worst.steps()) worst = one;
    if (Status st = check_cost(one); !st.ok()) return Status::error(fmt::format("profile '{}': {}", p->name, st.message()));
  }
  if (!(steps <= kMaxSteps))
    return Status::error(fmt::format(
        "this search would take {} ({:.3g} recordings: {} profile(s) x up to {} seed(s) x ~{} candidates{}); the "
        "limit is {}: give fewer profiles (a narrower glob) or fewer --seeds, or a shorter --duration",
        eta_text(steps), runs, profiles.size(), std::max(1, seeds), candidates,
        spread.empty() ? std::string()
                       : fmt::format(", and {} spread searches x ~{} candidates", spread.size(), kSpreadCandidates),
        format_duration(kMaxSeconds)));
  return {};
}

}  // namespace sd
