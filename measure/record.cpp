#include "measure/record.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "models/cleanup.h"
#include "measure/real_device.h"
#include "models/output_file.h"
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
// (docs/formats.md "Raw recording sidecar").
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
  return write_output_file(path, text, {"the sidecar", "rec.json", false, {}, true});
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::lstat(p.c_str(), &st) == 0;
}

// The trace must not be one of the recording's files, including the parts a
// split recording names as it goes (NAME_001..., in the same directory).
Status check_trace_path(const RecordOptions& opt, const std::vector<std::string>& paths) {
  for (const auto& p : paths)
    if (same_file(opt.trace_path, p))
      return Status::error(fmt::format("--trace {} is a file of the recording itself: give the trace another name",
                                       opt.trace_path));
  // The name the trace is written to: a symlink (also a dangling one) is
  // followed, as the output-file rules do, so a link to rec_003.raw is caught.
  std::string followed = follow_links(opt.trace_path);
  std::filesystem::path t(followed.empty() ? opt.trace_path : followed);  // (a loop: refused when opened)
  std::string dir = t.has_parent_path() ? t.parent_path().string() : ".";
  if (opt.rec.split_bytes > 0 && same_file(dir, opt.dir) && t.filename().string().rfind(opt.rec.base_name + "_", 0) == 0)
    return Status::error(fmt::format("--trace {} could be a part of the split recording ({}_NNN...): give the trace "
                                     "another name", opt.trace_path, opt.rec.base_name));
  return {};
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
  if (opt.cancel) cleanup::set_cooperative();  // Ctrl-C stops the recorder; its files are removed below
  RealClock clock;
  RealDeviceOptions dopt;
  dopt.dir = opt.dir;
  dopt.keep_files = true;
  dopt.cancel = opt.cancel;
  dopt.warn = opt.warn;
  auto dev = RealDevice::open(dopt, clock);
  if (!dev) return dev.status();
  RecordReport rep;
  const bool raw = opt.rec.format == FormatKind::Raw || opt.rec.format == FormatKind::PerChannel;
  const std::string sidecar = opt.dir + "/" + opt.rec.base_name + ".json";
  // The first files' names (a split recording names later parts as it goes;
  // those are created with O_EXCL too, so an existing file stops it instead).
  std::vector<std::string> first_paths;
  for (const auto& n : (*layout)->file_names()) first_paths.push_back(opt.dir + "/" + n);
  if (raw) first_paths.push_back(sidecar);
  for (const auto& p : first_paths)
    if (exists(p)) return R::error(fmt::format("{} exists: give another --name or remove it", p));
  if (opt.rec.direct && (*dev)->direct_works()) {
    uint64_t align = (*dev)->direct_alignment();
    uint64_t fbytes = opt.rec.stream.frame_bytes();
    uint64_t block = std::max<uint64_t>(1, (opt.rec.block_bytes ? opt.rec.block_bytes : opt.rec.buffer_bytes / 2) /
                                               fbytes) * fbytes;  // whole frames, as the recorder drains them
    if (block % align != 0)
      return R::error(fmt::format("--direct: O_DIRECT writes whole {}-byte blocks, and a {}-byte block is not a "
                                  "multiple of that: give --block a multiple of {} (e.g. {}) or drop --direct",
                                  align, block, align, std::max<uint64_t>(align, block / align * align)));
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
    if (Status st = check_trace_path(opt, first_paths); !st.ok()) return st;
    std::vector<std::string> inputs = first_paths;
    inputs.insert(inputs.end(), opt.trace_inputs.begin(), opt.trace_inputs.end());
    Status st = trace.open(opt.trace_path,
                           {{"tool", "streamdisk record"}, {"target", opt.dir},
                            {"format", std::string(format_name(opt.rec.format))},
                            {"buffer_bytes", std::to_string(opt.rec.buffer_bytes)}, {"command", opt.command_line}},
                           {"--trace", "trace.csv", true, inputs});
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
  hooks.cancel = opt.cancel;
  RealDevice* d = dev->get();
  FaultSchedule faults;
  for (const auto& f : opt.faults) faults.add(f);
  FaultDevice faulty(*d, faults);
  hooks.naming = [d, &faults](FileId f, const std::string& name) {
    d->name_file(f, name);
    faults.name_file(f, name);
  };
  if (trace.is_open()) hooks.trace = &trace;
  auto r = run_recorder(faults.empty() ? static_cast<Device&>(*d) : faulty, clock, opt.rec, hooks);
  rep.fault_events = faults.events();
  if (!r) {
    trace.abandon();
    (*dev)->remove_created();
    return r.status();
  }
  rep.result = *r;
  for (const auto& f : rep.result.files) rep.paths.push_back(opt.dir + "/" + f.name);
  rep.cancelled = opt.cancel && opt.cancel->load();
  // Interrupted, or failed before a single frame was stored: not an output.
  bool nothing = rep.result.frames_written == 0 && rep.result.stop_errno != 0;
  if (rep.cancelled || nothing) {
    trace.abandon();
    (*dev)->remove_created();
    if (nothing && !rep.cancelled) rep.notes.push_back("no frame was written: the files were removed");
    rep.paths.clear();
    rep.result.files.clear();
    return rep;
  }
  if (trace.is_open())
    if (Status st = trace.close(); !st.ok()) rep.output_error = st.message();
  if (raw) {
    if (Status st = write_sidecar(sidecar, opt.rec, rep, fb / opt.rec.stream.channels); !st.ok())
      rep.output_error = st.message();
    else
      rep.paths.push_back(sidecar);
  }
  return rep;
}

}  // namespace sd
