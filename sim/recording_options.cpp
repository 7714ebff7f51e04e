#include "sim/recording_options.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/model_args.h"
#include "models/units.h"
#include "sim/verdict.h"

namespace sd {

std::string stream_text(const StreamSpec& s) {
  std::string rate = s.sample_rate >= 1e6   ? fmt::format("{:g} MHz", s.sample_rate / 1e6)
                     : s.sample_rate >= 1e3 ? fmt::format("{:g} kHz", s.sample_rate / 1e3)
                                            : fmt::format("{:g} Hz", s.sample_rate);
  return fmt::format("{} ch x {} x {}-bit{} = {}", s.channels, rate, s.sample_bits, s.is_float ? " float" : "",
                     format_rate(s.bytes_per_second()));
}

namespace {

Result<uint64_t> whole(std::string_view text, std::string_view opt, double min) {
  auto v = parse_count(text);
  if (!v) return Result<uint64_t>::error(fmt::format("{} {}: {}", opt, text, v.message()));
  if (*v < min || *v != std::floor(*v) || *v > 1e15)
    return Result<uint64_t>::error(fmt::format("{} {} must be a whole number of at least {:g}", opt, text, min));
  return static_cast<uint64_t>(*v);
}

Result<uint64_t> size_opt(std::string_view text, std::string_view opt) {
  auto v = parse_size(text);
  if (!v) return Result<uint64_t>::error(fmt::format("{}: {}", opt, v.message()));
  if (*v < 1 || *v > 1e15)
    return Result<uint64_t>::error(fmt::format("{} {} is out of range: give 1 byte to 1 PB", opt, text));
  return static_cast<uint64_t>(*v);
}

}  // namespace

Result<RecorderConfig> recorder_config(const RecordingArgs& a, long channels_override) {
  using R = Result<RecorderConfig>;
  RecorderConfig c;
  if (channels_override >= 1) {
    c.stream.channels = static_cast<uint32_t>(channels_override);
  } else {
    auto ch = whole(a.channels, "--channels", 1);
    if (!ch) return ch.status();
    if (*ch > 1'000'000) return R::error("--channels must be at most 1000000");
    c.stream.channels = static_cast<uint32_t>(*ch);
  }
  auto rate = parse_count(a.sample_rate);
  if (!rate) return R::error(fmt::format("--sample-rate: {}", rate.message()));
  if (!(*rate > 0)) return R::error("--sample-rate must be greater than 0, such as 48k");
  c.stream.sample_rate = *rate;
  auto bits = whole(a.sample_bits, "--sample-bits", 1);
  if (!bits) return bits.status();
  c.stream.sample_bits = static_cast<uint32_t>(std::min<uint64_t>(*bits, 1024));
  c.stream.is_float = a.is_float;
  auto fk = format_from_name(a.format);
  if (!fk) return R::error(fmt::format("--format: {}", fk.message()));
  c.format = *fk;
  auto buf = size_opt(a.buffer, "--buffer");
  if (!buf) return buf.status();
  c.buffer_bytes = *buf;
  if (!a.block.empty()) {
    auto blk = size_opt(a.block, "--block");
    if (!blk) return blk.status();
    c.block_bytes = *blk;
  }
  if (!a.period.empty()) {
    auto p = whole(a.period, "--period", 1);
    if (!p) return p.status();
    c.period_frames = *p;
  }
  auto d = parse_duration(a.duration);
  if (!d) return R::error(fmt::format("--duration: {}", d.message()));
  c.duration_s = *d;
  if (!a.header_every.empty()) {
    auto h = parse_duration(a.header_every);
    if (!h) return R::error(fmt::format("--header-every: {}", h.message()));
    if (!(*h > 0)) return R::error("--header-every must be positive, such as 1s");
    c.header_every_frames = std::max<uint64_t>(1, static_cast<uint64_t>(*h * c.stream.sample_rate));
  }
  if (!a.split.empty()) {
    auto sp = size_opt(a.split, "--split");
    if (!sp) return sp.status();
    if (*sp < 65536 * 2) return R::error("--split must be at least 128 KiB (each part needs room for its header)");
    c.split_bytes = *sp;
  }
  c.direct = a.direct;
  c.fsync_at_end = a.fsync;
  if (auto st = check_recorder(c); !st.ok()) return st;
  return c;
}

Result<ModelOptions> model_options(const RecordingArgs& a, const Profile& p) {
  ModelArgs m;
  m.prefill = a.fill;
  m.seed = a.seed;
  m.prefill_option = "--fill";
  m.capacity_option = "";  // simulate has no --capacity: the fix is a --set
  return apply_model_args(m, p);
}

nlohmann::json recording_json(const RecorderConfig& c, const RecorderResult& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : r.files) files.push_back({{"name", f.name}, {"bytes", f.bytes}});
  return {{"channels", c.stream.channels},
          {"sample_rate", c.stream.sample_rate},
          {"sample_bits", c.stream.sample_bits},
          {"float", c.stream.is_float},
          {"file_format", std::string(format_name(c.format))},
          {"duration_s", c.duration_s},
          {"data_rate_bytes_per_s", r.data_rate},
          {"buffer_bytes", r.buffer_bytes},
          {"block_bytes", r.block_bytes},
          {"period_frames", r.period_frames},
          {"overrun_events", r.overrun_events},
          {"dropped_periods", r.dropped_periods},
          {"samples_lost", r.samples_lost()},
          {"first_overrun_s", opt(r.first_overrun_s)},
          {"peak_buffer_bytes", r.peak_buffer_bytes},
          {"frames_total", r.frames_total},
          {"frames_written", r.frames_written},
          {"frames_not_written", r.frames_not_written},
          {"writes", r.ops},
          {"payload_bytes", r.payload_bytes},
          {"header_bytes", r.other_bytes},
          {"longest_block_write_s", r.max_block_s},
          {"finish_s", r.end_s - r.start_s},
          {"files", files},
          {"stopped_reason", r.stopped_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stopped_reason)},
          {"stopped_s", opt(r.stopped_s)},
          {"warnings", recording_warnings(c, r)},
          {"verdict", verdict_line(c, r)},
          {"ok", recording_ok(r)}};
}

}  // namespace sd
