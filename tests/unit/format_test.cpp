// File-format layouts: the bytes they ask for must make valid files. Each
// test applies the layout's writes to in-memory files (payload as zeros) and
// parses the result the way a reader would.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>

#include "sim/format.h"

using namespace sd;

namespace {

using Files = std::map<uint32_t, std::vector<uint8_t>>;

void apply_writes(Files& files, const std::vector<FormatWrite>& ws) {
  for (const auto& w : ws) {
    auto& f = files[w.file];
    if (f.size() < w.offset + w.bytes) f.resize(w.offset + w.bytes, 0);
    if (w.what != FormatWrite::What::Payload) {
      REQUIRE(w.data.size() == w.bytes);
      std::memcpy(f.data() + w.offset, w.data.data(), w.bytes);
    } else {
      REQUIRE(w.data.empty());
    }
  }
}

// Records `blocks` blocks of `frames` frames; returns the finished files.
Files record(Layout& l, int blocks, uint64_t frames) {
  Files files;
  std::vector<FormatWrite> w;
  l.begin(w);
  for (int i = 0; i < blocks; ++i) l.append(frames, w);
  l.finish(w);
  apply_writes(files, w);
  return files;
}

std::unique_ptr<Layout> layout(FormatKind k, uint32_t ch, uint32_t bits, uint64_t header_every = 0) {
  LayoutOptions o;
  o.kind = k;
  o.stream.channels = ch;
  o.stream.sample_bits = bits;
  o.stream.sample_rate = 48000;
  o.header_every_frames = header_every;
  auto r = make_layout(o);
  REQUIRE(r.ok());
  return std::move(*r);
}

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | b[at + i];
  return v;
}
uint64_t le64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + i];
  return v;
}
uint64_t be64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | b[at + i];
  return v;
}
std::string tag(const std::vector<uint8_t>& b, size_t at) { return std::string(b.begin() + at, b.begin() + at + 4); }

}  // namespace

TEST_CASE("WAV: canonical 44-byte header for stereo 16-bit, sizes patched at the end", "[format]") {
  auto l = layout(FormatKind::Wav, 2, 16);
  Files f = record(*l, 3, 1000);
  const auto& b = f[0];
  REQUIRE(b.size() == 44 + 3 * 1000 * 4);
  CHECK(tag(b, 0) == "RIFF");
  CHECK(le32(b, 4) == b.size() - 8);
  CHECK(tag(b, 8) == "WAVE");
  CHECK(tag(b, 12) == "fmt ");
  CHECK(le32(b, 16) == 16);
  CHECK((b[20] | b[21] << 8) == 1);      // PCM
  CHECK((b[22] | b[23] << 8) == 2);      // channels
  CHECK(le32(b, 24) == 48000);
  CHECK(le32(b, 28) == 48000 * 4);       // byte rate
  CHECK(tag(b, 36) == "data");
  CHECK(le32(b, 40) == 12000);
  CHECK(l->file_size(0) == b.size());
}

TEST_CASE("WAV: WAVEFORMATEXTENSIBLE for many channels of 24-bit, and the 4 GiB limit", "[format]") {
  auto l = layout(FormatKind::Wav, 48, 24);
  Files f = record(*l, 1, 7);  // 7 frames x 144 B = 1008 B: even, no pad
  const auto& b = f[0];
  CHECK(le32(b, 16) == 40);
  CHECK((b[20] | b[21] << 8) == 0xFFFE);
  CHECK(tag(b, 60) == "data");
  CHECK(le32(b, 64) == 1008);
  CHECK(b.size() == 68 + 1008);
  // RIFF size = header - 8 + data must fit in 32 bits.
  uint64_t max_frames = (0xFFFFFFFFull - 60 - 1) / 144;
  CHECK(l->frames_left() == max_frames - 7);
  CHECK_FALSE(l->limit_name().empty());
  auto w64 = layout(FormatKind::W64, 48, 24);
  CHECK(w64->frames_left() == UINT64_MAX);
}

TEST_CASE("WAV: an odd data size gets its pad byte", "[format]") {
  auto l = layout(FormatKind::Wav, 1, 8);
  Files f = record(*l, 1, 5);
  CHECK(f[0].size() == 44 + 5 + 1);
  CHECK(le32(f[0], 40) == 5);
  CHECK(le32(f[0], 4) == f[0].size() - 8);
}

TEST_CASE("RF64: ds64 holds the 64-bit sizes and the frame count", "[format]") {
  auto l = layout(FormatKind::Rf64, 2, 16);
  Files f = record(*l, 2, 500);
  const auto& b = f[0];
  CHECK(tag(b, 0) == "RF64");
  CHECK(le32(b, 4) == 0xFFFFFFFF);
  CHECK(tag(b, 12) == "ds64");
  CHECK(le64(b, 20) == b.size() - 8);
  CHECK(le64(b, 28) == 4000);
  CHECK(le64(b, 36) == 1000);
  CHECK(tag(b, 72) == "data");
  CHECK(le32(b, 76) == 0xFFFFFFFF);
  CHECK(b.size() == 80 + 4000);
}

TEST_CASE("W64: GUID chunks, 64-bit sizes including the 24-byte chunk header, 8-byte padding", "[format]") {
  auto l = layout(FormatKind::W64, 3, 16);  // 6-byte frames
  Files f = record(*l, 1, 3);               // 18 bytes of data -> 6 bytes of pad
  const auto& b = f[0];
  CHECK(tag(b, 0) == "riff");
  CHECK(b[4] == 0x2E);
  CHECK(le64(b, 16) == b.size());
  CHECK(tag(b, 24) == "wave");
  CHECK(tag(b, 40) == "fmt ");
  CHECK(le64(b, 56) == 24 + 40);  // extensible fmt for 3 channels
  CHECK(tag(b, 104) == "data");
  CHECK(le64(b, 120) == 24 + 18);
  CHECK(b.size() == 128 + 18 + 6);
  CHECK(b.size() % 8 == 0);
}

TEST_CASE("CAF: data size -1 while recording, patched at the end", "[format]") {
  auto l = layout(FormatKind::Caf, 2, 24);
  std::vector<FormatWrite> w;
  l->begin(w);
  Files f;
  apply_writes(f, w);
  CHECK(tag(f[0], 0) == "caff");
  CHECK(tag(f[0], 8) == "desc");
  CHECK(tag(f[0], 52) == "data");
  CHECK(be64(f[0], 56) == UINT64_MAX);  // -1: "until the end of the file"
  w.clear();
  l->append(100, w);
  l->finish(w);
  apply_writes(f, w);
  CHECK(be64(f[0], 56) == 100 * 6 + 4);
  CHECK(f[0].size() == 68 + 600);
  // bytes per packet and channels, big-endian
  CHECK(f[0][39] == 6);
  CHECK(f[0][47] == 2);
  CHECK(f[0][51] == 24);
}

TEST_CASE("TDMS: segments chain to the end of the file, the index file mirrors the lead-ins", "[format]") {
  auto l = layout(FormatKind::Tdms, 4, 16);
  std::vector<FormatWrite> w;
  l->begin(w);
  for (int i = 0; i < 5; ++i) l->append(256, w);
  size_t writes_per_block = w.size() / 5;
  CHECK(writes_per_block == 3);  // lead-in + metadata, raw data, index
  l->finish(w);
  Files f;
  apply_writes(f, w);
  const auto& b = f[0];
  size_t at = 0, segments = 0;
  uint64_t raw_total = 0;
  while (at < b.size()) {
    REQUIRE(tag(b, at) == "TDSm");
    CHECK(le32(b, at + 8) == 4713);
    uint64_t next = le64(b, at + 12), meta = le64(b, at + 20);
    raw_total += next - meta;
    at += 28 + next;
    ++segments;
  }
  CHECK(at == b.size());
  CHECK(segments == 5);
  CHECK(raw_total == 5 * 256 * 4 * 2);
  CHECK(tag(f[1], 0) == "TDSh");
  CHECK(f[1].size() == b.size() - raw_total);
  // Metadata grows with the channel count.
  auto l32 = layout(FormatKind::Tdms, 32, 16);
  std::vector<FormatWrite> w32;
  l32->append(256, w32);
  l32->append(256, w32);
  CHECK(w32[3].bytes > w[3].bytes);
}

TEST_CASE("TDMS stores 24-bit samples as I32", "[format]") {
  auto l = layout(FormatKind::Tdms, 2, 24);
  CHECK(l->payload_frame_bytes() == 8);
}

TEST_CASE("one file per channel: one write per channel file per block", "[format]") {
  auto l = layout(FormatKind::PerChannel, 12, 16);
  REQUIRE(l->file_names().size() == 12);
  CHECK(l->file_names()[0] == "rec_ch01.raw");
  std::vector<FormatWrite> w;
  l->append(100, w);
  l->append(100, w);
  CHECK(w.size() == 24);
  CHECK(w[12].offset == 200);
  CHECK(w[12].channel == 0);
  CHECK(l->file_size(11) == 400);
}

TEST_CASE("header rewrites land at offset 0 on schedule", "[format]") {
  auto l = layout(FormatKind::W64, 2, 16, /*header_every=*/1000);
  std::vector<FormatWrite> w;
  l->begin(w);
  for (int i = 0; i < 4; ++i) l->append(500, w);
  int rewrites = 0;
  for (size_t i = 1; i < w.size(); ++i)
    if (w[i].what == FormatWrite::What::Header) {
      ++rewrites;
      CHECK(w[i].offset == 0);
    }
  CHECK(rewrites == 2);
  // CAF never needs one: its data size is -1 ("to the end of the file") while recording.
  auto caf = layout(FormatKind::Caf, 2, 16, 1000);
  std::vector<FormatWrite> wc;
  for (int i = 0; i < 4; ++i) caf->append(500, wc);
  CHECK(wc.size() == 4);
}

TEST_CASE("formats refuse streams they cannot hold, naming the fix", "[format]") {
  LayoutOptions o;
  o.kind = FormatKind::Wav;
  o.stream.channels = 70000;
  auto r = make_layout(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().find("tdms") != std::string::npos);
  o.stream.channels = 2;
  o.stream.sample_bits = 12;
  CHECK_FALSE(make_layout(o).ok());
  CHECK_FALSE(format_from_name("mp3").ok());
  CHECK(format_from_name("w64").ok());
}

TEST_CASE("split recordings: each part is a complete file under the split size", "[format]") {
  LayoutOptions o;
  o.kind = FormatKind::Wav;
  o.stream = {2, 48000, 16, false};
  o.split_bytes = 1 << 20;
  auto r = make_layout(o);
  REQUIRE(r.ok());
  Layout& l = **r;
  std::vector<FormatWrite> w;
  l.begin(w);
  for (int i = 0; i < 10; ++i) l.append(48000, w);  // 10 blocks of 192 kB: 1.92 MB in all
  l.finish(w);
  Files f;
  apply_writes(f, w);
  REQUIRE(l.file_names().size() == 2);
  CHECK(l.file_names()[0] == "rec_001.wav");
  CHECK(l.file_names()[1] == "rec_002.wav");
  uint64_t data = 0;
  for (auto& [i, b] : f) {
    CHECK(b.size() <= (1u << 20));
    CHECK(tag(b, 0) == "RIFF");
    CHECK(le32(b, 4) == b.size() - 8);
    CHECK(le32(b, 40) == b.size() - 44);
    data += le32(b, 40);
  }
  CHECK(data == 10 * 48000 * 4);
}
