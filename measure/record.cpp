#include "measure/record.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "measure/cleanup.h"
#include "measure/real_device.h"
#include "models/units.h"
#include "sim/format.h"

namespace sd {

int64_t reference_sample(uint32_t channel, uint64_t frame, uint32_t bits) {
  uint64_t u = frame * (2 * uint64_t{channel} + 1) * 40503u + uint64_t{channel} * 7919u;
  if (bits >= 64) return static_cast<int64_t>(u);
  u &= (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>(u) - (int64_t{1} << (bits - 1));
}

double reference_sample_float(uint32_t channel, uint64_t frame) {
  return static_cast<double>(reference_sample(channel, frame, 24)) / 8388608.0;
}

namespace {

// Produces the recorder's payload bytes: the reference signal, little-endian,
// `stored` bytes per sample (TDMS keeps 24-bit samples in 32 bits).
class ReferencePayload final : public PayloadSource {
 public:
  ReferencePayload(const StreamSpec& s, uint32_t stored, bool unsigned8) : s_(s), stored_(stored), u8_(unsigned8) {}
  const void* fill(const FormatWrite& w) override {
    buf_.resize(w.bytes);
    uint64_t samples = w.bytes / stored_;
    uint8_t* p = buf_.data();
    if (w.channel == kAllChannels) {  // channel 0's frames, then channel 1's... (TDMS)
      uint64_t frames = samples / s_.channels;
      for (uint64_t i = 0; i < samples; ++i, p += stored_)
        put(p, static_cast<uint32_t>(i / frames), w.first_frame + i % frames);
      return buf_.data();
    }
    uint32_t first = w.channel < 0 ? 0 : static_cast<uint32_t>(w.channel);
    uint32_t per_frame = w.channel == kInterleaved ? s_.channels : 1;
    for (uint64_t i = 0; i < samples; ++i, p += stored_)
      put(p, first + static_cast<uint32_t>(i % per_frame), w.first_frame + i / per_frame);
    return buf_.data();
  }

 private:
  void put(uint8_t* p, uint32_t c, uint64_t n) const {
    if (s_.is_float) {
      double v = reference_sample_float(c, n);
      if (stored_ == 4) {
        float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);  // x86/ARM little-endian hosts
      } else {
        std::memcpy(p, &v, 8);
      }
      return;
    }
    int64_t v = reference_sample(c, n, s_.sample_bits);
    if (u8_) v += 128;
    auto u = static_cast<uint64_t>(v);  // two's complement, sign-extended to `stored` bytes
    for (uint32_t b = 0; b < stored_; ++b) p[b] = static_cast<uint8_t>(u >> (8 * b));
  }
  StreamSpec s_;
  uint32_t stored_;
  bool u8_;
  std::vector<uint8_t> buf_;
};

// Raw formats carry no header: a JSON sidecar says how to read them
// (docs/formats.md "Raw recording sidecar"). Written to .part, then renamed.
Status write_sidecar(const std::string& path, const RecorderConfig& c, const RecordReport& rep, uint64_t stored) {
  std::string files;
  for (size_t i = 0; i < rep.result.files.size(); ++i)
    files += fmt::format("{}\"{}\"", i ? ", " : "", rep.result.files[i].name);
  std::string text = fmt::format(
      "{{\n  \"format\": \"streamdisk-raw-sidecar\",\n  \"format_version\": 1,\n  \"files\": [{}],\n"
      "  \"layout\": \"{}\",\n  \"channels\": {},\n  \"sample_rate\": {},\n  \"sample_bits\": {},\n"
      "  \"bytes_per_sample\": {},\n  \"sample_type\": \"{}\",\n  \"byte_order\": \"little-endian\",\n"
      "  \"frames\": {}\n}}\n",
      files, c.format == FormatKind::Raw ? "interleaved" : "one file per channel", c.stream.channels,
      c.stream.sample_rate, c.stream.sample_bits, stored, c.stream.is_float ? "float" : "signed integer",
      rep.result.frames_written);
  std::string part = path + ".part";
  std::FILE* f = std::fopen(part.c_str(), "w");
  if (!f) return Status::error(fmt::format("cannot write {}: {}", part, std::strerror(errno)));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(part.c_str(), path.c_str()) != 0) {
    std::remove(part.c_str());
    return Status::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  return {};
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

Result<RecordReport> run_record(const RecordOptions& opt) {
  using R = Result<RecordReport>;
  if (auto st = check_recorder(opt.rec); !st.ok()) return st;
  LayoutOptions lo;
  lo.kind = opt.rec.format;
  lo.stream = opt.rec.stream;
  lo.base_name = opt.rec.base_name;
  lo.header_every_frames = opt.rec.header_every_frames;
  auto layout = make_layout(lo);  // the same layout run_recorder builds: for names and sample width
  if (!layout) return layout.status();
  RealClock clock;
  RealDeviceOptions dopt;
  dopt.dir = opt.dir;
  dopt.keep_files = true;
  dopt.cancel = opt.cancel;
  auto dev = RealDevice::open(dopt, clock);
  if (!dev) return dev.status();
  RecordReport rep;
  const auto& names = (*layout)->file_names();
  const bool raw = opt.rec.format == FormatKind::Raw || opt.rec.format == FormatKind::PerChannel;
  const std::string sidecar = opt.dir + "/" + opt.rec.base_name + ".json";
  if (raw && exists(sidecar)) return R::error(fmt::format("{} exists: give another --name or remove it", sidecar));
  for (size_t i = 0; i < names.size(); ++i) {
    (*dev)->name_file(opt.rec.first_file_id + i, names[i]);
    rep.paths.push_back((*dev)->path(opt.rec.first_file_id + i));
    if (exists(rep.paths.back()))
      return R::error(fmt::format("{} exists: give another --name or remove it", rep.paths.back()));
  }
  double need = opt.rec.stream.bytes_per_second() * opt.rec.duration_s * 1.01 + 16.0 * (1 << 20);
  double free_bytes = (*dev)->space().free_bytes;
  if (free_bytes < need)
    return R::error(fmt::format("{} has {} free; this recording needs about {}: shorten --duration or free some space",
                                opt.dir, format_size(free_bytes), format_size(need)));
  rep.direct_used = opt.rec.direct && (*dev)->direct_works();
  if (opt.rec.direct && !(*dev)->direct_works()) rep.notes.push_back((*dev)->direct_note());
  TraceWriter trace;
  if (!opt.trace_path.empty()) {
    Status st = trace.open(opt.trace_path, {{"tool", "streamdisk record"}, {"target", opt.dir},
                                            {"format", std::string(format_name(opt.rec.format))},
                                            {"buffer_bytes", std::to_string(opt.rec.buffer_bytes)},
                                            {"command", opt.command_line}});
    if (!st.ok()) return R::error(st.message());
  }
  uint64_t fb = (*layout)->payload_frame_bytes();
  bool wav8 = opt.rec.stream.sample_bits == 8 && !opt.rec.stream.is_float &&
              (opt.rec.format == FormatKind::Wav || opt.rec.format == FormatKind::Rf64 ||
               opt.rec.format == FormatKind::W64);
  ReferencePayload payload(opt.rec.stream, static_cast<uint32_t>(fb / opt.rec.stream.channels), wav8);
  RecorderHooks hooks;
  hooks.payload = &payload;
  hooks.progress = opt.progress;
  if (trace.is_open()) hooks.trace = &trace;
  if (opt.cancel) cleanup::install();
  auto r = run_recorder(**dev, clock, opt.rec, hooks);
  if (!r) {
    trace.abandon();
    return r.status();
  }
  rep.result = *r;
  rep.cancelled = opt.cancel && opt.cancel->load();
  if (rep.cancelled) {
    trace.abandon();
    (*dev)->remove_created();  // a half-written recording is not an output
    return rep;
  }
  if (trace.is_open())
    if (Status st = trace.close(); !st.ok()) return R::error(st.message());
  if (raw) {
    if (Status st = write_sidecar(sidecar, opt.rec, rep, fb / opt.rec.stream.channels); !st.ok())
      return R::error(st.message());
    rep.paths.push_back(sidecar);
  }
  return rep;
}

}  // namespace sd
