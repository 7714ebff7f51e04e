// `record` (measure/record.h) writes real files that independent readers
// accept, holding exactly the reference signal: libsndfile for
// WAV/RF64/W64/CAF, a reader written from NI's TDMS spec (tdms_reader.h) for
// TDMS, and the sidecar's description for raw. Short recordings in a temp dir.
#include <catch2/catch.hpp>

#include <sndfile.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "measure/record.h"
#include "tdms_reader.h"
#include "temp_dir.h"

using namespace sd;
namespace fs = std::filesystem;

namespace {


RecordReport record(const std::string& dir, FormatKind kind, uint32_t channels, uint32_t bits, bool is_float = false,
                    double seconds = 0.3) {
  RecordOptions o;
  o.dir = dir;
  o.rec.format = kind;
  o.rec.stream = {channels, 48000, bits, is_float};
  o.rec.duration_s = seconds;
  // These cases check the files, not the rate: the ring holds the whole
  // recording twice over, so no delay of the writer in wall-clock time (a
  // loaded 2-core machine, other tests beside it) can drop a frame, and the
  // zero-overrun check below is deterministic. Keeping up is what simulate,
  // record_agreement and the benchmarks check.
  double total = o.rec.stream.bytes_per_second() * seconds;
  o.rec.buffer_bytes = std::max<uint64_t>(256 << 10, static_cast<uint64_t>(2 * total));
  o.rec.block_bytes = 128 << 10;  // several blocks (TDMS: several segments), as with a 256 KiB ring
  o.rec.base_name = "t";
  auto r = run_record(o);
  REQUIRE(r.ok());
  REQUIRE(r->result.overrun_events == 0);
  REQUIRE(r->result.frames_written == r->result.frames_total);
  return *r;
}

std::vector<uint8_t> slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("record: WAV, RF64, W64 and CAF files read back through libsndfile sample for sample", "[record]") {
  struct Case {
    FormatKind kind;
    int major;
    uint32_t bits;
  };
  for (Case k : {Case{FormatKind::Wav, SF_FORMAT_WAVEX, 16}, Case{FormatKind::Wav, SF_FORMAT_WAVEX, 24},
                 Case{FormatKind::Rf64, SF_FORMAT_RF64, 24}, Case{FormatKind::W64, SF_FORMAT_W64, 24},
                 Case{FormatKind::Caf, SF_FORMAT_CAF, 16}, Case{FormatKind::Caf, SF_FORMAT_CAF, 24}}) {
    TempDir tmp;
    const uint32_t ch = 5;
    RecordReport rep = record(tmp.path, k.kind, ch, k.bits);
    INFO(rep.paths[0]);
    SF_INFO info{};
    SNDFILE* sf = sf_open(rep.paths[0].c_str(), SFM_READ, &info);
    REQUIRE(sf != nullptr);
    CHECK((info.format & SF_FORMAT_TYPEMASK) == k.major);
    CHECK((info.format & SF_FORMAT_SUBMASK) == (k.bits == 16 ? SF_FORMAT_PCM_16 : SF_FORMAT_PCM_24));
    CHECK(info.channels == static_cast<int>(ch));
    CHECK(info.samplerate == 48000);
    CHECK(static_cast<uint64_t>(info.frames) == rep.result.frames_written);
    std::vector<int> buf(static_cast<size_t>(info.frames) * ch);
    CHECK(sf_readf_int(sf, buf.data(), info.frames) == info.frames);
    sf_close(sf);
    size_t bad = 0;
    for (uint64_t n = 0; n < static_cast<uint64_t>(info.frames); ++n)
      for (uint32_t c = 0; c < ch; ++c)  // libsndfile scales integers to 32 bits
        bad += buf[n * ch + c] != static_cast<int>(reference_sample(c, n, k.bits) * (int64_t{1} << (32 - k.bits)));
    CHECK(bad == 0);
  }
}

TEST_CASE("record: TDMS parses with a reader written from NI's spec, channel data intact", "[record]") {
  for (bool is_float : {false, true}) {
    TempDir tmp;
    const uint32_t ch = 4, bits = is_float ? 32 : 24;
    RecordReport rep = record(tmp.path, FormatKind::Tdms, ch, bits, is_float);
    INFO("float " << is_float);
    auto bytes = slurp(tmp.path + "/t.tdms");
    tdms::File f = tdms::Reader(bytes).parse();
    CHECK(f.segments >= 2);  // one segment per block: later ones reuse the raw index
    REQUIRE(f.find("/") != nullptr);
    REQUIRE(f.find("/'Group'") != nullptr);
    for (uint32_t c = 0; c < ch; ++c) {
      tdms::Channel* chan = f.find(fmt::format("/'Group'/'Channel {}'", c + 1));
      REQUIRE(chan != nullptr);
      CHECK(chan->type == (is_float ? 9u : 3u));  // SGL, or I32 holding 24-bit samples
      CHECK(chan->num_props["wf_increment"] == Approx(1.0 / 48000));
      REQUIRE(chan->values.size() == rep.result.frames_written);
      size_t bad = 0;
      for (uint64_t n = 0; n < chan->values.size(); ++n) {
        double want = is_float ? static_cast<float>(reference_sample_float(c, n))
                               : static_cast<double>(reference_sample(c, n, 24));
        bad += chan->values[n] != want;
      }
      CHECK(bad == 0);
    }
    // The index file: the same segments' lead-ins and metadata, no raw data.
    tdms::File ix = tdms::Reader(slurp(tmp.path + "/t.tdms_index")).parse();
    CHECK(ix.index_file);
    CHECK(ix.segments == f.segments);
    CHECK(ix.objects.size() == f.objects.size());
  }
}

TEST_CASE("record: raw formats write the reference signal and a sidecar that describes it", "[record]") {
  TempDir tmp;
  RecordReport rep = record(tmp.path, FormatKind::Raw, 3, 16);
  std::ifstream side(tmp.path + "/t.json");
  std::string json((std::istreambuf_iterator<char>(side)), {});
  CHECK(json.find("\"format\": \"streamdisk-raw-sidecar\"") != std::string::npos);
  CHECK(json.find("\"channels\": 3") != std::string::npos);
  CHECK(json.find(fmt::format("\"frames\": {}", rep.result.frames_written)) != std::string::npos);
  auto raw = slurp(tmp.path + "/t.raw");
  REQUIRE(raw.size() == rep.result.frames_written * 3 * 2);
  size_t bad = 0;
  for (uint64_t i = 0; i < raw.size() / 2; ++i) {
    auto v = static_cast<int16_t>(raw[2 * i] | (raw[2 * i + 1] << 8));
    bad += v != reference_sample(static_cast<uint32_t>(i % 3), i / 3, 16);
  }
  CHECK(bad == 0);
  TempDir tmp2;
  RecordReport per = record(tmp2.path, FormatKind::PerChannel, 2, 24);
  REQUIRE(per.paths.size() == 3);  // two channel files and the sidecar
  auto ch2 = slurp(per.paths[1]);
  REQUIRE(ch2.size() == per.result.frames_written * 3);
  int32_t v = ch2[3] | (ch2[4] << 8) | (static_cast<int8_t>(ch2[5]) << 16);  // frame 1 of channel 2
  CHECK(v == reference_sample(1, 1, 24));
}

TEST_CASE("record refuses to overwrite and checks the directory before creating anything", "[record]") {
  TempDir tmp;
  RecordOptions o;
  o.dir = tmp.path;
  o.rec.format = FormatKind::Wav;
  o.rec.base_name = "t";
  o.rec.duration_s = 0.1;
  std::ofstream(tmp.path + "/t.wav") << "precious";
  auto r = run_record(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().find("t.wav exists") != std::string::npos);
  CHECK(fs::file_size(tmp.path + "/t.wav") == 8);
  o.dir = tmp.path + "/missing";
  CHECK_FALSE(run_record(o).ok());
}
