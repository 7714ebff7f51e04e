// The layout base class, raw interleaved and one-file-per-channel layouts,
// the factory, and the byte builders. RIFF-family layouts (WAV, RF64, W64)
// are in format_riff.cpp; CAF and TDMS in format_caf_tdms.cpp.
#include "sim/format.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace sd {

// Defined in format_riff.cpp and format_caf_tdms.cpp.
Result<std::unique_ptr<Layout>> make_riff_layout(const LayoutOptions& opt);
Result<std::unique_ptr<Layout>> make_caf_layout(const LayoutOptions& opt);
Result<std::unique_ptr<Layout>> make_tdms_layout(const LayoutOptions& opt);

namespace {

const std::pair<FormatKind, const char*> kNames[] = {
    {FormatKind::Raw, "raw"}, {FormatKind::PerChannel, "channels"}, {FormatKind::Wav, "wav"},
    {FormatKind::Rf64, "rf64"}, {FormatKind::W64, "w64"},           {FormatKind::Caf, "caf"},
    {FormatKind::Tdms, "tdms"},
};

// Interleaved frames appended to one headerless file.
class RawLayout final : public Layout {
 public:
  explicit RawLayout(const LayoutOptions& opt) : Layout(opt) { add_file(opt.base_name + ".raw"); }
  void begin(std::vector<FormatWrite>&) override {}
  void finish(std::vector<FormatWrite>&) override {}

 private:
  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    uint64_t fb = payload_frame_bytes();
    put_payload(out, 0, frames_ * fb, frames * fb, -1, frames_);
  }
  bool plain_payload(uint32_t& file, uint64_t& offset) const override {
    file = 0, offset = frames_ * payload_frame_bytes();
    return true;
  }
};

// One headerless file per channel; each block becomes one write per file, so
// the device sees N interleaved streams (the pattern cheap flash hates).
class PerChannelLayout final : public Layout {
 public:
  explicit PerChannelLayout(const LayoutOptions& opt) : Layout(opt) {
    int width = opt.stream.channels >= 100 ? 3 : 2;
    for (uint32_t c = 0; c < opt.stream.channels; ++c)
      add_file(fmt::format("{}_ch{:0{}}.raw", opt.base_name, c + 1, width));
  }
  void begin(std::vector<FormatWrite>&) override {}
  void finish(std::vector<FormatWrite>&) override {}

 private:
  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    uint64_t sb = stored_sample_bytes_;
    for (uint32_t c = 0; c < opt_.stream.channels; ++c)
      put_payload(out, c, frames_ * sb, frames * sb, static_cast<int32_t>(c), frames_);
  }
};

Result<std::unique_ptr<Layout>> make_single_layout(const LayoutOptions& opt);

}  // namespace

// A recording split over several sets of files: each part is a complete
// layout of its own (headers included) named base_NNN.
class SplitLayout final : public Layout {
 public:
  explicit SplitLayout(const LayoutOptions& opt) : Layout(opt) { start_part(); }
  void begin(std::vector<FormatWrite>& out) override { relay(out, [&](auto& w) { part_->begin(w); }); }
  void finish(std::vector<FormatWrite>& out) override {
    // truncate_frames() on this layout: the frames cut are the last part's.
    uint64_t cut = std::min(appended_ - frames_, part_->frames_written());
    part_->truncate_frames(part_->frames_written() - cut);
    relay(out, [&](auto& w) { part_->finish(w); });
  }
  std::string limit_name() const override { return {}; }

 private:
  void start_part() {
    LayoutOptions o = opt_;
    o.split_bytes = 0;
    o.base_name = fmt::format("{}_{:03}", opt_.base_name, ++parts_);
    part_ = std::move(*make_single_layout(o));  // the options were checked by make_layout
    base_ = static_cast<uint32_t>(file_names().size());
    for (const auto& n : part_->file_names()) add_file(n);
  }
  template <class F>
  void relay(std::vector<FormatWrite>& out, F&& f) {
    scratch_.clear();
    f(scratch_);
    for (auto& w : scratch_) forward(out, std::move(w), base_);
  }
  // Frames the current part still takes before its main file passes the split size.
  uint64_t room() const {
    uint64_t used = part_->file_size(0), fb = part_->payload_frame_bytes();
    uint64_t reserve = 64 * 1024;  // closing patches, TDMS lead-ins, padding
    uint64_t fit = used + reserve >= opt_.split_bytes ? 0 : (opt_.split_bytes - used - reserve) / fb;
    return std::min(fit, part_->frames_left());
  }
  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    while (frames > 0) {
      uint64_t n = std::min(frames, room());
      if (n == 0 && part_->frames_written() == 0) n = std::min<uint64_t>(frames, 1);  // split smaller than a frame
      if (n == 0) {
        relay(out, [&](auto& w) { part_->finish(w); });
        start_part();
        relay(out, [&](auto& w) { part_->begin(w); });
        continue;
      }
      relay(out, [&](auto& w) { part_->append(n, w); });
      frames -= n;
      appended_ += n;
    }
  }

  std::unique_ptr<Layout> part_;
  uint32_t base_ = 0;
  int parts_ = 0;
  uint64_t appended_ = 0;  // frames handed to parts
  std::vector<FormatWrite> scratch_;
};

void Layout::forward(std::vector<FormatWrite>& out, FormatWrite w, uint32_t file_base) {
  w.file += file_base;
  sizes_[w.file] = std::max(sizes_[w.file], w.offset + w.bytes);
  if (w.what != FormatWrite::What::Payload) header_bytes_ += w.bytes;
  out.push_back(std::move(w));
}

std::string_view format_name(FormatKind k) {
  for (auto& [kind, name] : kNames)
    if (kind == k) return name;
  return "?";
}

std::string format_names() {
  std::string s;
  for (auto& [kind, name] : kNames) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

Result<FormatKind> format_from_name(std::string_view name) {
  for (auto& [kind, n] : kNames)
    if (name == n) return kind;
  return Result<FormatKind>::error(fmt::format("unknown format '{}': use one of {}", name, format_names()));
}

Status check_stream(const StreamSpec& s) {
  if (s.channels < 1 || s.channels > 1'000'000)
    return Status::error(fmt::format("--channels {} is out of range: give 1 to 1000000", s.channels));
  if (!(s.sample_rate > 0) || !std::isfinite(s.sample_rate) || s.sample_rate > 1e11)
    return Status::error("--sample-rate must be a positive rate such as 48k or 160M");
  bool int_ok = s.sample_bits == 8 || s.sample_bits == 16 || s.sample_bits == 24 || s.sample_bits == 32 ||
                s.sample_bits == 64;
  if (!s.is_float && !int_ok)
    return Status::error(fmt::format("--sample-bits {} is not supported: use 8, 16, 24, 32 or 64", s.sample_bits));
  if (s.is_float && s.sample_bits != 32 && s.sample_bits != 64)
    return Status::error(fmt::format("float samples are 32 or 64 bits, not {}: use --sample-bits 32 or 64",
                                     s.sample_bits));
  return {};
}

Layout::Layout(const LayoutOptions& opt) : opt_(opt), stored_sample_bytes_(opt.stream.sample_bytes()) {}

void Layout::append(uint64_t frames, std::vector<FormatWrite>& out) {
  if (frames == 0) return;
  append_frames(frames, out);
  frames_ += frames;
  if (opt_.header_every_frames > 0) {
    since_header_ += frames;
    if (since_header_ >= opt_.header_every_frames) {
      since_header_ = 0;
      rewrite_header(out);
    }
  }
}

bool Layout::plain_appends(PlainAppends& p) const {
  if (!plain_payload(p.file, p.offset)) return false;
  p.max_frames = frames_left();
  // A header rewrite comes once since_header_ reaches header_every_frames.
  if (opt_.header_every_frames > 0) {
    uint64_t due = opt_.header_every_frames > since_header_ ? opt_.header_every_frames - since_header_ : 0;
    p.max_frames = std::min(p.max_frames, due > 0 ? due - 1 : 0);
  }
  return true;
}

uint64_t Layout::frames_left() const {
  uint64_t m = max_frames();
  return m == UINT64_MAX ? m : (m > frames_ ? m - frames_ : 0);
}

void Layout::put(std::vector<FormatWrite>& out, FormatWrite::What what, uint32_t file, uint64_t offset,
                 std::vector<uint8_t> data) {
  FormatWrite& w = out.emplace_back();
  w.what = what;
  w.file = file;
  w.offset = offset;
  w.bytes = data.size();
  w.data = std::move(data);
  sizes_[file] = std::max(sizes_[file], offset + w.bytes);
  header_bytes_ += w.bytes;
}

void Layout::put_payload(std::vector<FormatWrite>& out, uint32_t file, uint64_t offset, uint64_t bytes,
                         int32_t channel, uint64_t first_frame) {
  FormatWrite& w = out.emplace_back();
  w.what = FormatWrite::What::Payload;
  w.file = file;
  w.offset = offset;
  w.bytes = bytes;
  w.channel = channel;
  w.first_frame = first_frame;
  w.data.clear();
  sizes_[file] = std::max(sizes_[file], offset + bytes);
}

namespace {
Result<std::unique_ptr<Layout>> make_single_layout(const LayoutOptions& opt) {
  switch (opt.kind) {
    case FormatKind::Raw: return std::unique_ptr<Layout>(new RawLayout(opt));
    case FormatKind::PerChannel: return std::unique_ptr<Layout>(new PerChannelLayout(opt));
    case FormatKind::Wav:
    case FormatKind::Rf64:
    case FormatKind::W64: return make_riff_layout(opt);
    case FormatKind::Caf: return make_caf_layout(opt);
    case FormatKind::Tdms: return make_tdms_layout(opt);
  }
  return Result<std::unique_ptr<Layout>>::error("unknown format");
}
}  // namespace

Result<std::unique_ptr<Layout>> make_layout(const LayoutOptions& opt) {
  if (auto st = check_stream(opt.stream); !st.ok()) return st;
  auto single = make_single_layout(opt);
  if (!single || opt.split_bytes == 0) return single;
  return std::unique_ptr<Layout>(new SplitLayout(opt));
}

// ---- byte builders ----

Bytes& Bytes::raw(std::string_view s) {
  v.insert(v.end(), s.begin(), s.end());
  return *this;
}
Bytes& Bytes::zeros(size_t n) {
  v.insert(v.end(), n, 0);
  return *this;
}
Bytes& Bytes::u16le(uint16_t x) {
  for (int i = 0; i < 2; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u32le(uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u64le(uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u16be(uint16_t x) {
  for (int i = 1; i >= 0; --i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u32be(uint32_t x) {
  for (int i = 3; i >= 0; --i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::u64be(uint64_t x) {
  for (int i = 7; i >= 0; --i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  return *this;
}
Bytes& Bytes::f64be(double x) { return u64be(std::bit_cast<uint64_t>(x)); }

}  // namespace sd
