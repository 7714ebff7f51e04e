// The recorder workload: overrun accounting against a scripted device, and
// whole recordings against built-in profiles (limits, conservation,
// determinism).
#include <catch2/catch.hpp>

#include "builtin_profile.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/model_device.h"
#include "models/profile.h"
#include "sim/recorder.h"
#include "sim/verdict.h"

using namespace sd;

namespace {

// Every operation completes at once, except the write number `slow` which
// takes `extra` seconds.
class ScriptedDevice final : public Device {
 public:
  ScriptedDevice(int slow, double extra) : slow_(slow), extra_(extra) {}
  Completion submit(const Op& op, double now) override {
    if (op.kind != OpKind::Write) return {now, 0, 0};
    ++writes_;
    return {now + (writes_ == slow_ ? extra_ : 0.0), 0, op.bytes};
  }
  int writes_ = 0;

 private:
  int slow_;
  double extra_;
};

RecorderResult run(const Profile& p, const RecorderConfig& c, uint64_t seed = 1, TraceWriter* trace = nullptr) {
  ModelOptions mo;
  mo.seed = seed;
  ModelDevice dev(p, mo);
  VirtualClock clock;
  RecorderHooks hooks;
  hooks.trace = trace;
  auto r = run_recorder(dev, clock, c, hooks);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("one long write overruns exactly the periods that find the ring full", "[recorder]") {
  // 1 ch x 16-bit at 1024 Hz, 8-frame periods (1/128 s), 96-frame ring, 48-frame
  // blocks. Writes take no time except the third, which takes 1 s. The writer
  // starts block 3 at delivery 18 with 48 frames in the ring: 6 more periods
  // fit (deliveries 19-24), deliveries 25..146 (the write ends at 146/128 s) drop.
  RecorderConfig c;
  c.stream = {1, 1024, 16, false};
  c.duration_s = 4;
  c.buffer_bytes = 96 * 2;
  c.block_bytes = 48 * 2;
  c.period_frames = 8;
  ScriptedDevice dev(3, 1.0);
  VirtualClock clock;
  auto r = run_recorder(dev, clock, c);
  REQUIRE(r.ok());
  CHECK(r->overrun_events == 1);
  CHECK(r->dropped_periods == 146 - 24);
  CHECK(r->frames_lost == 122 * 8);
  CHECK(r->samples_lost() == 122 * 8);
  REQUIRE(r->first_overrun_s);
  CHECK(*r->first_overrun_s == Approx(25.0 / 128));
  CHECK(r->peak_buffer_bytes == 96 * 2);
  CHECK(r->frames_total == 4 * 1024);
  CHECK(r->frames_written + r->frames_lost == r->frames_total);
  CHECK(r->frames_not_written == 0);
  CHECK(r->payload_bytes == r->frames_written * 2);
  CHECK_FALSE(recording_ok(*r));
}

TEST_CASE("two separate slow writes are two overrun events", "[recorder]") {
  struct TwoSlow final : public Device {
    int n = 0;
    Completion submit(const Op& op, double now) override {
      if (op.kind != OpKind::Write) return {now, 0, 0};
      ++n;
      return {now + ((n == 3 || n == 40) ? 1.0 : 0.0), 0, op.bytes};
    }
  } dev;
  RecorderConfig c;
  c.stream = {1, 1024, 16, false};
  c.duration_s = 10;
  c.buffer_bytes = 192;
  c.block_bytes = 96;
  c.period_frames = 8;
  VirtualClock clock;
  auto r = run_recorder(dev, clock, c);
  REQUIRE(r.ok());
  CHECK(r->overrun_events == 2);
  CHECK(r->dropped_periods == 2 * 122);
}

TEST_CASE("a device faster than the data never overruns, and every frame is written", "[recorder]") {
  ScriptedDevice dev(0, 0);
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.format = FormatKind::W64;
  c.duration_s = 60;
  VirtualClock clock;
  auto r = run_recorder(dev, clock, c);
  REQUIRE(r.ok());
  CHECK(recording_ok(*r));
  CHECK(r->frames_written == r->frames_total);
  CHECK(r->payload_bytes == r->frames_total * 144);
  CHECK(r->files.size() == 1);
  CHECK(r->files[0].bytes == r->payload_bytes + 128);
  // Blocks are half the ring, rounded to frames.
  CHECK(r->block_bytes == (1048576 / 2) / 144 * 144);
}

TEST_CASE("FAT32's 4 GiB file limit stops a single-file recording with EFBIG", "[recorder]") {
  auto p = sd_test::builtin_profile("fat32+samsung-960evo-250g");
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.format = FormatKind::Raw;
  c.duration_s = 1800;  // 12.4 GB
  auto r = run(p, c);
  CHECK(r.stop_errno == EFBIG);
  REQUIRE(r.stopped_s);
  // 4 GiB at 6.9 MB/s is about 620 s.
  CHECK(*r.stopped_s == Approx(4294967295.0 / (48 * 48000 * 3)).epsilon(0.02));
  CHECK(r.files[0].bytes <= 4294967295u);
  CHECK(r.frames_not_written > 0);
  CHECK(verdict_line(c, r).rfind("FAILS", 0) == 0);
  // Splitting below the limit records everything, in several files.
  c.split_bytes = 4'000'000'000;
  auto split = run(p, c);
  CHECK(split.stopped_reason.empty());
  CHECK(split.frames_written == split.frames_total);
  CHECK(split.files.size() == 4);  // 12.4 GB in parts of at most 4 GB
  for (const auto& f : split.files) CHECK(f.bytes <= 4'000'000'000u);
  c.split_bytes = 0;
  // One file per channel stays under the limit.
  c.format = FormatKind::PerChannel;
  auto per = run(p, c);
  CHECK(per.stopped_reason.empty());
}

TEST_CASE("WAV stops at its 4 GiB RIFF limit and warns past 2 GiB", "[recorder]") {
  auto p = sd_test::builtin_profile("samsung-960evo-250g");
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.format = FormatKind::Wav;
  c.duration_s = 400;  // 2.8 GB: past 2 GiB, under 4 GiB
  auto r = run(p, c);
  CHECK(r.stopped_reason.empty());
  CHECK(recording_warnings(c, r).size() == 1);
  c.duration_s = 1000;  // 6.9 GB
  r = run(p, c);
  CHECK(r.stopped_reason.find("WAV") != std::string::npos);
  CHECK(r.files[0].bytes <= 0xFFFFFFFFull + 8);
}

TEST_CASE("the same seed gives a byte-identical trace, another seed does not", "[recorder][determinism]") {
  auto p = sd_test::builtin_profile("rpi4-buster-ultrafit-exfat");
  RecorderConfig c;
  c.stream = {48, 48000, 16, false};
  c.format = FormatKind::W64;
  c.duration_s = 600;
  auto trace_of = [&](uint64_t seed) {
    std::string path = std::filesystem::temp_directory_path().string() + "/sd_trace_seed" + std::to_string(seed) + "_" +
                       std::to_string(std::rand()) + ".csv";
    TraceWriter t;
    REQUIRE(t.open(path, {{"seed", std::to_string(seed)}}).ok());
    run(p, c, seed, &t);
    REQUIRE(t.close().ok());
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::remove(path.c_str());
    return ss.str();
  };
  std::string a = trace_of(7), b = trace_of(7);
  CHECK(a.size() > 100000);
  CHECK(a == b);
  std::string a8 = trace_of(8);
  // Different metadata line aside, the stalls land elsewhere.
  CHECK(a.substr(a.find("start_s")) != a8.substr(a8.find("start_s")));
}

TEST_CASE("the recorder refuses configurations that cannot work, naming the option", "[recorder]") {
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.buffer_bytes = 100;  // smaller than one 144-byte frame
  CHECK(check_recorder(c).message().find("--buffer") != std::string::npos);
  c.buffer_bytes = 1 << 20;
  c.block_bytes = 2 << 20;
  CHECK(check_recorder(c).message().find("--block") != std::string::npos);
  c.block_bytes = 0;
  c.duration_s = 0;
  CHECK(check_recorder(c).message().find("--duration") != std::string::npos);
}
