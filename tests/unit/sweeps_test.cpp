// The benchmark workloads (sim/sweeps.h) in virtual time against ModelDevice:
// each must reproduce what the analytic helpers (models/analytic.h) or the
// profile's own parameters say the method should show.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <sstream>

#include "models/analytic.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "sim/sweeps.h"

using namespace sd;

namespace {

Profile load(const std::string& spec, const std::vector<std::string>& sets = {}) {
  auto p = load_profile(spec, sets);
  REQUIRE(p.ok());
  return *p;
}

struct Rig {
  Rig(const Profile& p, ModelOptions o = {}) : dev(p, o) {
    env.dev = &dev;
    env.clock = &clock;
    env.trace = [this](const TraceRecord& r) { rows.push_back(format_trace_row(r)); };
    env.space = [this] {
      return SpaceInfo{dev.files().capacity(), dev.files().capacity() - dev.files().used_bytes()};
    };
  }
  ModelDevice dev;
  VirtualClock clock;
  SweepEnv env;
  std::vector<std::string> rows;
};

// 960 EVO without its TurboWrite region: every write at the sustained rate.
const std::vector<std::string> kNoBurst = {"device.burst_bytes=0"};

}  // namespace

TEST_CASE("blocksize sweep reproduces the analytic write rate at every block size (direct)", "[sweeps]") {
  Profile p = load("samsung-960evo-250g", kNoBurst);
  Rig rig(p);
  BlockSizeSweep s;
  s.seconds = 1;
  s.direct = true;
  s.read = false;
  auto r = run_blocksize_sweep(rig.env, s);
  REQUIRE(r.points.size() == default_sweep_blocks().size());
  for (const auto& pt : r.points) {
    INFO("block " << pt.block);
    double expect = write_rate(p, static_cast<double>(pt.block), Phase::Sustained, true);
    CHECK(pt.write_rate == Approx(expect).epsilon(0.02));
    CHECK(pt.error == 0);
  }
  // Document 000's shape: small blocks are far slower than 1 MiB blocks.
  CHECK(r.points.front().write_rate < 0.2 * r.points[5].write_rate);
}

TEST_CASE("blocksize sweep inside the burst cache sees the burst rate", "[sweeps]") {
  Profile p = load("samsung-960evo-250g");
  Rig rig(p);
  BlockSizeSweep s;
  s.blocks = {1 << 20};
  s.seconds = 2;  // 3 GB, well inside the 13 GB TurboWrite region
  s.direct = true;
  auto r = run_blocksize_sweep(rig.env, s);
  REQUIRE(r.points.size() == 1);
  CHECK(r.points[0].write_rate == Approx(write_rate(p, 1 << 20, Phase::Burst, true)).epsilon(0.02));
  // Reads: one stream, read_latency + bytes / read_mbps per block (plus the host's syscall, 0 here).
  const LayerParams& d = p.params(Layer::Device);
  double b = 1 << 20;
  double expect_read = b / (d.get("read_latency_us") * 1e-6 + b / (d.get("read_mbps") * 1e6));
  CHECK(r.points[0].read_rate == Approx(expect_read).epsilon(0.02));
  CHECK(r.points[0].cache == "not needed: model");
}

TEST_CASE("blocksize sweep stops each point at max_bytes and removes its files", "[sweeps]") {
  Profile p = load("samsung-960evo-250g", kNoBurst);
  Rig rig(p);
  BlockSizeSweep s;
  s.blocks = {4096, 1 << 20};
  s.seconds = 10;
  s.max_bytes = 8 << 20;
  auto r = run_blocksize_sweep(rig.env, s);
  for (const auto& pt : r.points) {
    CHECK(pt.write_bytes == Approx(8 << 20));
    CHECK(pt.read_bytes == Approx(8 << 20));
  }
  CHECK(rig.dev.files().used_bytes() == 0);
  CHECK(rig.rows.back().find(",remove,") != std::string::npos);
}

TEST_CASE("sustained sweep finds the 960 EVO's write cliff where burst_exhaustion puts it", "[sweeps]") {
  Profile p = load("samsung-960evo-250g");
  Rig rig(p);
  SustainedSweep s;
  s.max_bytes = 40ull << 30;
  s.max_seconds = 20;
  s.direct = true;
  auto r = run_sustained_sweep(rig.env, s);
  auto ex = burst_exhaustion(p, INFINITY, 1 << 20);
  REQUIRE(r.cliff_seconds.has_value());
  CHECK(*r.cliff_seconds == Approx(ex.seconds).epsilon(0.02));
  CHECK(*r.cliff_bytes == Approx(ex.bytes).epsilon(0.02));
  CHECK(r.initial_rate == Approx(write_rate(p, 1 << 20, Phase::Burst, true)).epsilon(0.02));
  CHECK(r.final_rate == Approx(write_rate(p, 1 << 20, Phase::Sustained, true)).epsilon(0.02));
  CHECK(r.latencies.size() == static_cast<size_t>(r.bytes / (1 << 20)));
  CHECK(rig.rows.size() == r.latencies.size() + 4);  // create, writes, fsync, close, remove
}

TEST_CASE("sustained sweep stops once the rate is steady past the cliff", "[sweeps]") {
  Profile p = load("samsung-960evo-250g");
  Rig rig(p);
  SustainedSweep s;
  s.max_bytes = 100ull << 30;
  s.max_seconds = 60;
  s.direct = true;
  s.until_steady = true;
  auto r = run_sustained_sweep(rig.env, s);
  REQUIRE(r.cliff_seconds.has_value());
  CHECK(r.seconds < *r.cliff_seconds + 5);
  CHECK(r.seconds > *r.cliff_seconds + 3);
}

TEST_CASE("sustained sweep finds no cliff on a device without a burst cache", "[sweeps]") {
  Profile p = load("samsung-960evo-250g", kNoBurst);
  Rig rig(p);
  SustainedSweep s;
  s.max_seconds = 5;
  s.max_bytes = 10ull << 30;
  s.direct = true;
  auto r = run_sustained_sweep(rig.env, s);
  CHECK_FALSE(r.cliff_seconds.has_value());
  CHECK(r.rate == Approx(write_rate(p, 1 << 20, Phase::Sustained, true)).epsilon(0.02));
  // Without SweepEnv::device_written: no device rate, no payload share.
  CHECK(r.device_rate == 0);
  CHECK_FALSE(r.payload_share_measured);
  CHECK(r.payload_share == 1);
}

TEST_CASE("threads sweep: parallel reads scale to the queue depth, then the interface ceiling", "[sweeps]") {
  // read_max_mbps = 530: document 001's SATA plateau.
  Profile p = load("samsung-960evo-250g", {"device.read_mbps=200", "device.read_max_mbps=530",
                                           "device.read_queue_depth=4"});
  Rig rig(p);
  ThreadsSweep s;
  s.blocks = {4096, 8 << 20};
  s.threads = {1, 2, 4};
  s.file_bytes = 1ull << 30;
  s.seconds = 0.5;
  auto r = run_threads_sweep(rig.env, s);
  REQUIRE(r.points.size() == 6);
  const LayerParams& d = p.params(Layer::Device);
  auto one = [&](double b) { return b / (d.get("read_latency_us") * 1e-6 + b / 200e6); };
  // 4 KiB: latency-bound, so n threads read n times as fast.
  CHECK(r.points[0].rate == Approx(one(4096)).epsilon(0.02));
  CHECK(r.points[1].rate == Approx(2 * one(4096)).epsilon(0.02));
  CHECK(r.points[2].rate == Approx(4 * one(4096)).epsilon(0.02));
  // 8 MiB: one stream ~200 MB/s, two ~400, four hit the 530 MB/s interface.
  CHECK(r.points[3].rate == Approx(one(8 << 20)).epsilon(0.02));
  CHECK(r.points[4].rate == Approx(2 * one(8 << 20)).epsilon(0.02));
  CHECK(r.points[5].rate == Approx(530e6).epsilon(0.02));
}

TEST_CASE("fill sweep: the rate per step follows the fill-level curve and stops at the target", "[sweeps]") {
  Profile p = load("samsung-960evo-250g", {"device.burst_bytes=0", "device.fill_knee=0.8", "device.fill_floor=0.3"});
  ModelOptions o;
  o.capacity_bytes = 2e9;
  o.stalls = false;
  Rig rig(p, o);
  FillSweep s;
  s.fill_to = 0.95;
  s.direct = true;
  auto r = run_fill_sweep(rig.env, s);
  REQUIRE(r.ok());
  REQUIRE(r->points.size() >= 18);
  CHECK(r->points.back().fill_after <= 0.95);
  CHECK(r->points.back().fill_after > 0.94);
  for (const auto& pt : r->points) {
    INFO("fill " << pt.fill_before);
    double mid = (pt.fill_before + pt.fill_after) / 2;
    CHECK(pt.rate == Approx(write_rate(p, 1 << 20, Phase::Sustained, true, mid)).epsilon(0.02));
  }
  CHECK(rig.dev.files().used_bytes() == 0);  // every step's file removed
}

TEST_CASE("fill sweep refuses a device already above the target", "[sweeps]") {
  Profile p = load("samsung-960evo-250g");
  ModelOptions o;
  o.capacity_bytes = 1e9;
  o.prefill_bytes = 0.92e9;
  Rig rig(p, o);
  FillSweep s;
  s.fill_to = 0.9;
  auto r = run_fill_sweep(rig.env, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().find("already 92.0 % full") != std::string::npos);
  CHECK(rig.rows.empty());
}

TEST_CASE("sweeps are deterministic and stop when cancelled", "[sweeps]") {
  Profile p = load("samsung-960evo-250g");
  auto run = [&](const std::atomic<bool>* cancel) {
    Rig rig(p);
    rig.env.cancel = cancel;
    BlockSizeSweep s;
    s.blocks = {65536, 1 << 20};
    s.seconds = 0.2;
    run_blocksize_sweep(rig.env, s);
    return rig.rows;
  };
  CHECK(run(nullptr) == run(nullptr));
  std::atomic<bool> stop{true};
  CHECK(run(&stop).empty());
}

TEST_CASE("formats sweep: raw binary at the analytic rate, TDMS slower and slower with channels", "[sweeps]") {
  // cRIO-9014 (document 000): no host cache, every write waits for the disk.
  Profile p = load("crio-9014");
  Rig rig(p);
  FormatsSweep s;
  s.formats = {FormatKind::Raw, FormatKind::Tdms, FormatKind::W64};
  s.channels = {4, 16};
  s.seconds = 5;
  auto r = run_formats_sweep(rig.env, s);
  REQUIRE(r.ok());
  REQUIRE(r->points.size() == 6);
  const auto& raw4 = r->points[0];
  const auto &tdms4 = r->points[2], &tdms16 = r->points[3], &w64_4 = r->points[4];
  // Raw binary is doc 000's "same block over and over": the analytic rate of 1 MiB writes.
  double b = static_cast<double>((s.block_bytes / 8) * 8);  // whole 4-channel 16-bit frames
  CHECK(raw4.rate == Approx(write_rate(p, b, Phase::Sustained, true)).epsilon(0.03));
  CHECK(raw4.rate == Approx(r->points[1].rate).epsilon(0.01));  // raw: channels do not matter
  // Every write the TDMS layout asks for per block is issued (lead-in and metadata, raw
  // data, index file: counted from the layout itself, not assumed).
  LayoutOptions lo;
  lo.kind = FormatKind::Tdms;
  lo.stream = {4, s.sample_rate, s.sample_bits, false};
  auto layout = make_layout(lo);
  REQUIRE(layout.ok());
  std::vector<FormatWrite> ws;
  (*layout)->append(s.block_bytes / 8, ws);
  CHECK(ws.size() > 1);
  CHECK(tdms4.ops == tdms4.blocks * ws.size());
  CHECK(tdms4.rate < 0.9 * raw4.rate);
  CHECK(tdms16.rate < tdms4.rate);  // document 000: more channels, slower
  CHECK(w64_4.rate == Approx(raw4.rate).epsilon(0.05));  // one file, header patched only at the end
  CHECK(rig.dev.files().used_bytes() == 0);
}

TEST_CASE("formats sweep refuses a stream a format cannot hold before writing", "[sweeps]") {
  Profile p = load("crio-9014");
  Rig rig(p);
  FormatsSweep s;
  s.formats = {FormatKind::Raw, FormatKind::Wav};
  s.channels = {70000};
  auto r = run_formats_sweep(rig.env, s);
  REQUIRE_FALSE(r.ok());
  CHECK(rig.rows.empty());
}

// What a FUSE driver writing its block device through the page cache shows
// characterize: writes taken into a large page cache, then paced while the
// dirty level climbs, while the device writes at its own rate and pauses.
// Here buffered writes through the model's page cache stand for them, and
// the device's written count is what reached the device (bytes written less
// the dirty bytes not yet on it, as a block device's statistics count).
TEST_CASE("sustained sweep tells the device's own rate from a page cache's in between", "[sweeps]") {
  Profile p = load("rpi4-bullseye+ext4+sandisk-ultrafit-16g",
                   {"host.dirty_limit_bytes=400000000", "host.dirty_background_bytes=200000000",
                    "device.op_overhead_us=0", "device.seek_penalty_us=0", "device.stall_period_ms=4000",
                    "device.stall_duration_ms=300"});
  Rig rig(p);
  double written = 0;
  rig.env.trace = [&](const TraceRecord& r) {
    if (r.op == OpKind::Write) written += static_cast<double>(r.bytes);
  };
  rig.env.device_written = [&] { return written - rig.dev.state(rig.clock.now()).dirty_bytes; };
  SustainedSweep s;
  s.max_bytes = 4ull << 30;
  s.max_seconds = 60;
  s.window = 0.25;
  s.direct = false;
  auto r = run_sustained_sweep(rig.env, s);
  // The device's long run: its sustained rate less its pauses (0.3 s every
  // 4 s); its counter moves a 1 MiB writeback chunk at a time, a few per
  // 0.25 s window, and the page cache's dirty level moves too, so the writes'
  // own rate over the same stretch is not the device's.
  double sustained = p.params(Layer::Device).get("sustained_mbps") * 1e6;
  double long_run = sustained * (1 - 0.3 / 4.0);
  INFO("writes' final rate " << r.final_rate / 1e6 << " MB/s, device's own " << r.device_rate / 1e6 << " ± "
                             << r.device_rate_band / 1e6 << " MB/s over " << r.device_spans << " spans, expected "
                             << long_run / 1e6 << " MB/s, share " << r.payload_share);
  CHECK(r.payload_share_measured);
  CHECK(r.payload_share == Approx(1).epsilon(0.01));  // the model writes no metadata here
  CHECK(r.device_rate == Approx(long_run).epsilon(0.02));
  CHECK(r.device_rate_band > 0);
  CHECK(r.device_rate_band < 0.05 * r.device_rate);
  CHECK(r.device_spans > 100);
}
