// CAF (Apple Core Audio Format) and TDMS (NI's segmented format).
//
// CAF, big-endian chunk headers, little-endian LPCM samples (format flag 2):
//   caff u16 1 u16 0 | desc i64 32 | f64 rate 'lpcm' u32 flags u32 bytesPerPacket
//   u32 framesPerPacket=1 u32 channels u32 bits | data i64 size u32 editCount | PCM
// The data size is -1 ("to the end of the file") while recording, so a CAF
// recorder never needs to go back to the header; finish() patches it.
//
// TDMS (version 4713), one segment per appended block, LabVIEW-8.6-like:
//   lead-in 28 B: 'TDSm' u32 ToC u32 4713 u64 next-segment u64 raw-data-offset
//   metadata: u32 objects; per object u32 len path, raw index, u32 properties...
//   raw data, non-interleaved: all of channel 1's values, then channel 2's, ...
// The first segment lists "/", the group and every channel with a full raw
// index and its waveform properties (wf_increment, wf_start_time); later
// segments list every channel again with raw index 0x00000000 ("same as the
// previous segment") when the block length is unchanged, and the channel's
// new wf_start_time, as LabVIEW does for waveform data. The library gathers
// the channels' arrays into one raw-data write. Per block TDMS thus issues
// three writes where raw binary issues one (lead-in + metadata, raw data,
// the same lead-in + metadata to the .tdms_index file, 'TDSh'), plus
// metadata bytes that grow with the channel count: its cost comes from the
// host's per-call and the device's per-request, per-byte and seek costs,
// which is document 000's finding, with no format factor.
#include <bit>

#include <fmt/format.h>

#include "sim/format.h"

namespace sd {
namespace {

class CafLayout final : public Layout {
 public:
  explicit CafLayout(const LayoutOptions& opt) : Layout(opt) { add_file(opt.base_name + ".caf"); }
  static constexpr uint64_t kHeader = 68;

  void begin(std::vector<FormatWrite>& out) override { put(out, FormatWrite::What::Header, 0, 0, header(-1)); }
  void finish(std::vector<FormatWrite>& out) override {
    // Only the data chunk's size changes: patch those 8 bytes.
    Bytes b;
    b.u64be(static_cast<uint64_t>(data_size()));
    put(out, FormatWrite::What::Header, 0, 56, b.v);
  }

 private:
  int64_t data_size() const { return static_cast<int64_t>(frames_ * payload_frame_bytes() + 4); }
  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    uint64_t fb = payload_frame_bytes();
    put_payload(out, 0, kHeader + frames_ * fb, frames * fb, -1, frames_);
  }
  // A data size of -1 already means "to the end of the file": a reader can
  // open a CAF cut short at any point, so crash-safe recorders need no header
  // rewrites (unlike WAV, RF64 and W64) -- one reason document 003 found CAF
  // smoother than W64.
  void rewrite_header(std::vector<FormatWrite>&) override {}

  std::vector<uint8_t> header(int64_t size) const {
    const StreamSpec& s = opt_.stream;
    Bytes b;
    b.raw("caff").u16be(1).u16be(0);
    b.raw("desc").u64be(32).f64be(s.sample_rate).raw("lpcm");
    b.u32be((s.is_float ? 1u : 0u) | 2u).u32be(static_cast<uint32_t>(s.frame_bytes())).u32be(1);
    b.u32be(s.channels).u32be(s.sample_bits);
    b.raw("data").u64be(static_cast<uint64_t>(size)).u32be(0);
    return b.v;
  }
};

constexpr uint32_t kTocMetaData = 1u << 1, kTocNewObjList = 1u << 2, kTocRawData = 1u << 3;

class TdmsLayout final : public Layout {
 public:
  explicit TdmsLayout(const LayoutOptions& opt) : Layout(opt) {
    const StreamSpec& s = opt.stream;
    // TDMS has no 24-bit type: such samples are stored as I32.
    stored_sample_bytes_ = s.sample_bytes() == 3 ? 4 : s.sample_bytes();
    if (s.is_float) type_ = s.sample_bits == 32 ? 9 : 10;
    else type_ = stored_sample_bytes_ == 1 ? 1 : stored_sample_bytes_ == 2 ? 2 : stored_sample_bytes_ == 4 ? 3 : 4;
    add_file(opt.base_name + ".tdms");
    if (opt.tdms_index) add_file(opt.base_name + ".tdms_index");
  }
  void begin(std::vector<FormatWrite>&) override {}
  void finish(std::vector<FormatWrite>&) override {}

 private:
  static void str(Bytes& b, std::string_view s) { b.u32le(static_cast<uint32_t>(s.size())).raw(s); }
  std::string channel_path(uint32_t c) const { return fmt::format("/'Group'/'Channel {}'", c + 1); }

  std::vector<uint8_t> metadata(uint64_t frames, bool first) const {
    Bytes b;
    uint32_t n = opt_.stream.channels;
    b.u32le(first ? n + 2 : n);
    if (first) {
      str(b, "/");
      b.u32le(0xFFFFFFFF).u32le(0);
      str(b, "/'Group'");
      b.u32le(0xFFFFFFFF).u32le(0);
    }
    bool same = !first && frames == last_frames_;
    for (uint32_t c = 0; c < n; ++c) {
      str(b, channel_path(c));
      if (same) {
        b.u32le(0);
      } else {
        b.u32le(20).u32le(type_).u32le(1).u64le(frames);
      }
      // Waveform properties: the start time changes every segment.
      b.u32le(first ? 2 : 1);
      if (first) {
        str(b, "wf_increment");
        b.u32le(10).u64le(std::bit_cast<uint64_t>(1.0 / opt_.stream.sample_rate));
      }
      str(b, "wf_start_time");
      double t = static_cast<double>(frames_) / opt_.stream.sample_rate;
      auto secs = static_cast<int64_t>(t);
      b.u32le(0x44).u64le(static_cast<uint64_t>((t - static_cast<double>(secs)) * 18446744073709551616.0));
      b.u64le(static_cast<uint64_t>(secs));
    }
    return b.v;
  }

  std::vector<uint8_t> lead_in(std::string_view tag, uint32_t toc, uint64_t meta, uint64_t raw) const {
    Bytes b;
    b.raw(tag).u32le(toc).u32le(4713).u64le(meta + raw).u64le(meta);
    return b.v;
  }

  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    bool first = frames_ == 0;
    auto meta = metadata(frames, first);
    uint64_t raw = frames * payload_frame_bytes();
    uint32_t toc = kTocMetaData | kTocRawData | (first ? kTocNewObjList : 0);
    uint64_t seg = file_size(0);
    std::vector<uint8_t> head = lead_in("TDSm", toc, meta.size(), raw);
    head.insert(head.end(), meta.begin(), meta.end());
    uint64_t at = seg + head.size();
    std::vector<uint8_t> index;
    if (opt_.tdms_index) {
      index = lead_in("TDSh", toc, meta.size(), raw);
      index.insert(index.end(), meta.begin(), meta.end());
    }
    put(out, FormatWrite::What::Metadata, 0, seg, std::move(head));
    put_payload(out, 0, at, raw, kAllChannels, frames_);
    if (opt_.tdms_index) put(out, FormatWrite::What::Metadata, 1, file_size(1), std::move(index));
    last_frames_ = frames;
  }

  uint32_t type_ = 2;
  uint64_t last_frames_ = 0;
};

}  // namespace

Result<std::unique_ptr<Layout>> make_caf_layout(const LayoutOptions& opt) {
  return std::unique_ptr<Layout>(new CafLayout(opt));
}

Result<std::unique_ptr<Layout>> make_tdms_layout(const LayoutOptions& opt) {
  return std::unique_ptr<Layout>(new TdmsLayout(opt));
}

}  // namespace sd
