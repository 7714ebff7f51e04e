// WAV, RF64 and Sony Wave64: one file, a header with the sizes, interleaved
// little-endian PCM. The header is written when the file opens (sizes zero),
// rewritten whole at the start of the file on header_every_frames and at the
// end (libsndfile rewrites the whole header the same way). Layouts:
//   WAV  RIFF u32 size | WAVE | fmt  u32 16|18|40 fmt | data u32 size | PCM [pad]
//   RF64 RF64 FFFFFFFF | WAVE | ds64 u32 28 u64 riff u64 data u64 frames u32 0 |
//        fmt ... | data FFFFFFFF | PCM [pad]
//   W64  riff-GUID u64 filesize wave-GUID | fmt-GUID u64 24+fmt fmt |
//        data-GUID u64 24+payload | PCM [pad to 8]
// fmt is PCMWAVEFORMAT (16 bytes) or, for floats, WAVEFORMATEX (18 bytes,
// cbSize 0) up to 2 channels, and WAVEFORMATEXTENSIBLE (40 bytes) for more,
// as libsndfile writes them.
#include <fmt/format.h>

#include "sim/format.h"

namespace sd {
namespace {

// W64 GUIDs as stored on disk: a FourCC then 12 fixed bytes.
const uint8_t kRiffTail[12] = {0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00};
const uint8_t kWaveTail[12] = {0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A};
// KSDATAFORMAT_SUBTYPE_{PCM,IEEE_FLOAT} after their first two bytes.
const uint8_t kSubtypeTail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                  0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};

void guid(Bytes& b, std::string_view fourcc, const uint8_t (&tail)[12]) {
  b.raw(fourcc);
  b.v.insert(b.v.end(), tail, tail + 12);
}

class RiffLayout final : public Layout {
 public:
  RiffLayout(const LayoutOptions& opt, bool extensible) : Layout(opt), extensible_(extensible) {
    std::string_view ext = opt.kind == FormatKind::Wav ? ".wav" : opt.kind == FormatKind::Rf64 ? ".rf64" : ".w64";
    add_file(opt.base_name + std::string(ext));
    header_size_ = header(0).size();
  }

  void begin(std::vector<FormatWrite>& out) override { put(out, FormatWrite::What::Header, 0, 0, header(0)); }

  void finish(std::vector<FormatWrite>& out) override {
    uint64_t data = data_bytes();
    uint64_t pad = padding(data);
    if (pad) put(out, FormatWrite::What::Metadata, 0, header_size_ + data, std::vector<uint8_t>(pad, 0));
    put(out, FormatWrite::What::Header, 0, 0, header(data));
  }

  std::string limit_name() const override {
    return opt_.kind == FormatKind::Wav ? "WAV 4 GiB limit (32-bit RIFF sizes)" : "";
  }

 private:
  uint64_t data_bytes() const { return frames_ * payload_frame_bytes(); }
  uint64_t padding(uint64_t data) const {
    if (opt_.kind == FormatKind::W64) return (8 - data % 8) % 8;
    return data % 2;
  }

  void append_frames(uint64_t frames, std::vector<FormatWrite>& out) override {
    uint64_t fb = payload_frame_bytes();
    put_payload(out, 0, header_size_ + frames_ * fb, frames * fb, -1, frames_);
  }
  bool plain_payload(uint32_t& file, uint64_t& offset) const override {
    file = 0, offset = header_size_ + frames_ * payload_frame_bytes();
    return true;
  }

  void rewrite_header(std::vector<FormatWrite>& out) override {
    put(out, FormatWrite::What::Header, 0, 0, header(data_bytes()));
  }

  uint64_t max_frames() const override {
    if (opt_.kind != FormatKind::Wav) return UINT64_MAX;
    // RIFF size = file length - 8 must fit in 32 bits, pad byte included.
    uint64_t max_data = 0xFFFFFFFFull - (header_size_ - 8) - 1;
    return max_data / payload_frame_bytes();
  }

  std::vector<uint8_t> fmt_chunk() const {
    const StreamSpec& s = opt_.stream;
    uint32_t fb = static_cast<uint32_t>(s.frame_bytes());
    auto rate = static_cast<uint32_t>(std::llround(s.sample_rate));
    Bytes b;
    uint16_t tag = s.is_float ? 3 : 1;
    b.u16le(extensible_ ? 0xFFFE : tag).u16le(static_cast<uint16_t>(s.channels)).u32le(rate);
    b.u32le(rate * fb).u16le(static_cast<uint16_t>(fb)).u16le(static_cast<uint16_t>(8 * s.sample_bytes()));
    if (extensible_) {
      b.u16le(22).u16le(static_cast<uint16_t>(s.sample_bits)).u32le(0).u16le(tag);
      b.v.insert(b.v.end(), kSubtypeTail, kSubtypeTail + 14);
    } else if (s.is_float) {
      b.u16le(0);  // cbSize: non-PCM WAVEFORMATEX carries it
    }
    return b.v;
  }

  std::vector<uint8_t> header(uint64_t data) const {
    auto fmtc = fmt_chunk();
    uint64_t pad = padding(data);
    Bytes b;
    switch (opt_.kind) {
      case FormatKind::Wav: {
        uint64_t riff = 4 + (8 + fmtc.size()) + 8 + data + pad;
        b.raw("RIFF").u32le(static_cast<uint32_t>(riff)).raw("WAVE");
        b.raw("fmt ").u32le(static_cast<uint32_t>(fmtc.size())).raw({reinterpret_cast<char*>(fmtc.data()), fmtc.size()});
        b.raw("data").u32le(static_cast<uint32_t>(data));
        break;
      }
      case FormatKind::Rf64: {
        uint64_t riff = 4 + (8 + 28) + (8 + fmtc.size()) + 8 + data + pad;
        b.raw("RF64").u32le(0xFFFFFFFF).raw("WAVE");
        b.raw("ds64").u32le(28).u64le(riff).u64le(data).u64le(frames_).u32le(0);
        b.raw("fmt ").u32le(static_cast<uint32_t>(fmtc.size())).raw({reinterpret_cast<char*>(fmtc.data()), fmtc.size()});
        b.raw("data").u32le(0xFFFFFFFF);
        break;
      }
      default: {  // W64
        uint64_t fmt_pad = (8 - (24 + fmtc.size()) % 8) % 8;  // chunks start 8-byte aligned
        uint64_t head = 40 + 24 + fmtc.size() + fmt_pad + 24;
        guid(b, "riff", kRiffTail);
        b.u64le(head + data + pad);
        guid(b, "wave", kWaveTail);
        guid(b, "fmt ", kWaveTail);
        b.u64le(24 + fmtc.size()).raw({reinterpret_cast<char*>(fmtc.data()), fmtc.size()}).zeros(fmt_pad);
        guid(b, "data", kWaveTail);
        b.u64le(24 + data);
        break;
      }
    }
    return b.v;
  }

  bool extensible_;
  uint64_t header_size_ = 0;
};

}  // namespace

Result<std::unique_ptr<Layout>> make_riff_layout(const LayoutOptions& opt) {
  const StreamSpec& s = opt.stream;
  std::string_view name = format_name(opt.kind);
  if (s.channels > 65535)
    return Result<std::unique_ptr<Layout>>::error(
        fmt::format("{} holds at most 65535 channels: use --format tdms or channels", name));
  if (s.frame_bytes() > 65535)
    return Result<std::unique_ptr<Layout>>::error(
        fmt::format("{} frames are at most 65535 bytes: use fewer channels or --format channels", name));
  if (s.sample_rate * static_cast<double>(s.frame_bytes()) > 4294967295.0)
    return Result<std::unique_ptr<Layout>>::error(
        fmt::format("{} stores the byte rate in 32 bits and {:.0f} B/s does not fit: use --format raw or tdms", name,
                    s.bytes_per_second()));
  bool extensible = s.channels > 2;
  return std::unique_ptr<Layout>(new RiffLayout(opt, extensible));
}

}  // namespace sd
