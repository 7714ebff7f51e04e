// Steady stretches (models/model_device.h: SteadyWrites; sim/recorder.cpp:
// Run::step): a recording that steps over them gives every figure bit for bit
// as one that submits every write, and leaves the model in the same state
// (the next operations after it complete at the same times). The cases
// cover the buyer's table's stacks (a userspace driver with its pauses,
// a kernel driver, burst caches that recover and one that does not, seek
// penalties), overruns with and without stopping at the first, header
// updates and split files mid-recording, writeback in chunks smaller than a
// block, the fill level's knee, a full device and FAT32's file limit, and
// hosts where nothing may be stepped (wbt, a background level, a journal,
// time-triggered pauses).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "sim/capacity.h"
#include "sim/recorder.h"

using namespace sd;

namespace steady_stretches {

struct Case {
  std::string profile;
  std::vector<std::string> overrides;
  uint32_t channels;
  double duration_s;
  uint64_t seed;
  FormatKind format = FormatKind::W64;
  double prefill_bytes = 0;
  uint64_t header_every_frames = 0;
  uint64_t split_bytes = 0;
  bool stop_at_first_overrun = false;
  bool fsync_at_end = false;
};

// Every figure a recording reports, the model's state after it, and when an
// fsync and one more write issued right after it complete (they see the
// page cache's and the device's state: free_at, the burst level, the last
// writeback's end, the pauses' countdowns).
struct Figures {
  std::vector<uint64_t> counts;
  std::vector<double> times;
  std::string stopped;
  uint64_t stepped = 0;
};

Figures record(const Case& k, bool step) {
  auto p = load_profile(k.profile, k.overrides);
  INFO(k.profile << ": " << (p ? "" : p.message()));
  REQUIRE(p.ok());
  RecorderConfig c;
  c.stream = {k.channels, 48000, 16, false};
  c.format = k.format;
  c.duration_s = k.duration_s;
  c.buffer_bytes = 1 << 20;
  c.header_every_frames = k.header_every_frames;
  c.split_bytes = k.split_bytes;
  c.stop_at_first_overrun = k.stop_at_first_overrun;
  c.fsync_at_end = k.fsync_at_end;
  c.step_steady = step;
  ModelOptions mo;
  mo.seed = k.seed;
  mo.prefill_bytes = k.prefill_bytes;
  ModelDevice dev(*p, mo);
  VirtualClock clock;
  auto r = run_recorder(dev, clock, c);
  REQUIRE(r.ok());
  Figures f;
  f.counts = {r->overrun_events, r->dropped_periods, r->frames_lost,  r->frames_written, r->frames_not_written,
              r->peak_buffer_bytes, r->ops,         r->payload_bytes, r->other_bytes};
  for (const auto& file : r->files) f.counts.push_back(file.bytes);
  f.times = {r->first_overrun_s ? *r->first_overrun_s : -1.0, r->max_block_s, r->end_s,
             r->stopped_s ? *r->stopped_s : -1.0, dev.stall_seconds()};
  ModelState s = dev.state(clock.now());
  f.times.insert(f.times.end(), {s.burst_left_bytes, s.used_bytes, s.dirty_bytes, s.stall_seconds, s.device_free_at});
  f.counts.push_back(s.stalls);
  // What comes after sees the state the recording left.
  FileId file = c.first_file_id;
  double t = clock.now();
  Completion w = dev.submit({OpKind::Write, file, dev.files().size(file), 777777, false}, t);
  Completion sync = dev.submit({OpKind::Fsync, file, 0, 0, false}, w.done);
  ModelState after = dev.state(sync.done + 10);
  f.times.insert(f.times.end(), {w.done, sync.done, after.burst_left_bytes, after.device_free_at});
  f.counts.push_back(w.bytes);
  f.stopped = r->stopped_reason;
  f.stepped = r->stepped_ops;
  return f;
}

std::string hex(const std::vector<double>& v) {
  std::string s;
  char buf[40];
  for (double x : v) std::snprintf(buf, sizeof buf, "%a ", x), s += buf;
  return s;
}

// The buyer's table's exfat-fuse stacks, their spread's ends, and seeds with pauses and overruns.
const std::vector<Case> kStepped = {
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 7, 7200, 1},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 8, 7200, 2},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 8, 7200, 5, FormatKind::W64, 0, 0, 0, true},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 12, 7200, 3},
    {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", {}, 12, 3600, 4},
    {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", {"filesystem.cluster_bytes=4096", "host.syscall_us=30"}, 5, 3600,
     7},
    {"rpi4-buster+exfat-fuse+sandisk-extremego-64g", {"filesystem.meta_write_bytes=512"}, 9, 3600, 2},
    {"rpi4-buster+exfat-fuse+teamgroup-sx2-usb2", {"host.memory_mbps=400"}, 7, 3600, 6},
    {"rpi4-buster+exfat-fuse+crio-9014-disk", {}, 2, 1800, 1},
    // A burst cache that recovers (the 870 QVO), and one that does not.
    {"rpi4-buster+exfat-fuse+samsung-870qvo-4t", {}, 7, 7200, 9},
    {"rpi4-buster+exfat-fuse+samsung-870qvo-4t", {"device.recover_mbps=0", "device.burst_bytes=3000000000"}, 7, 3600,
     3},
    // Writeback in chunks smaller than a block; a small page cache.
    {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", {"host.writeback_chunk_bytes=131072"}, 7, 3600, 2},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {"host.dirty_limit_bytes=60000000"}, 7, 3600, 11},
    // Header updates every 10 s and split files break stretches; CAF's own layout.
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 7, 3600, 1, FormatKind::W64, 0, 480000},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 7, 3600, 1, FormatKind::Wav, 0, 0, 300000000},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 7, 3600, 2, FormatKind::Caf},
    // The block loop (Run::steady_blocks) up to WAV's 4 GiB limit, and headerless raw frames.
    {"rpi4-bullseye+exfat-kernel+samsung-960evo-250g", {}, 40, 1200, 1, FormatKind::Wav},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {}, 7, 1800, 3, FormatKind::Raw},
    // Past the fill level's knee, a device that fills up, FAT32's file limit.
    {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", {}, 7, 3600, 1, FormatKind::W64, 12.5e9},
    {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", {}, 7, 3600, 1, FormatKind::W64, 15.5e9},
    {"rpi4-buster+fat32+sandisk-ultrafit-16g", {}, 9, 7200, 1},
    // The kernel driver on Bullseye: an idle stick, and fsync at the end.
    {"rpi4-bullseye+exfat-kernel+sandisk-ultrafit-16g", {}, 23, 3600, 1, FormatKind::W64, 0, 0, 0, false, true},
    {"rpi4-bullseye+exfat-kernel+sandisk-extremego-64g", {}, 60, 1800, 1},
};

// Writeback behind the writes (stepped write by write): the kernel driver on
// SSDs that barely keep up, up to the throttle point and past it (the 870 QVO
// at 1,744 channels overruns at 48 min), wbt, a background level,
// a kernel driver's CPU time with a recovering burst cache.
const std::vector<Case> kBehind = {
    {"rpi4-bullseye+exfat-kernel+samsung-870qvo-4t", {}, 1744, 3600, 1},
    {"rpi4-bullseye+exfat-kernel+samsung-870qvo-4t", {}, 1744, 3600, 1, FormatKind::W64, 0, 0, 0, true},
    {"rpi4-bullseye+exfat-kernel+samsung-sata-ssd-laptop", {}, 1900, 1800, 1},
    // Writeback taken chunk by chunk without pump()'s searches (HostCache::append_run):
    // several chunks in flight at once, chunks smaller than a block, a chunk that is no whole number of bytes.
    {"rpi4-bullseye+exfat-kernel+samsung-870qvo-4t", {"host.writeback_queue_bytes=4194304"}, 1744, 1800, 1},
    {"rpi4-bullseye+exfat-kernel+samsung-sata-ssd-laptop", {"host.writeback_chunk_bytes=131072"}, 1900, 1200, 1},
    {"rpi4-bullseye+exfat-kernel+samsung-sata-ssd-laptop", {"host.writeback_chunk_bytes=1000000.5"}, 1900, 600, 1},
    {"rpi4-bullseye+exfat-kernel+samsung-960evo-250g", {"host.dirty_limit_bytes=60000000"}, 361, 1800, 1},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {"host.wbt_queue_depth=1"}, 7, 1800, 1},
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {"host.dirty_background_bytes=30000000"}, 7, 1800, 1},
    {"rpi4-buster+fat32+samsung-960evo-250g", {}, 9, 3600, 1},
};

// Where nothing may be stepped: a journal, time-triggered pauses in the
// driver, O_DIRECT with one file per channel.
const std::vector<Case> kOthers = {
    {"rpi4-buster+exfat-fuse+samsung-960evo-250g", {"filesystem.stall_period_ms=20000"}, 7, 1800, 1},
    {"rpi4-bullseye+ext4+sandisk-extremego-64g", {}, 24, 600, 2, FormatKind::Wav},
    {"laptop-doc001", {}, 48, 300, 1, FormatKind::PerChannel},
};

void check_same(const Case& k, bool must_step) {
  INFO(k.profile << " " << k.channels << " channels, seed " << k.seed);
  Figures a = record(k, false), b = record(k, true);
  CHECK(a.stepped == 0);
  CHECK((b.stepped > 0) == must_step);
  CHECK(a.counts == b.counts);
  INFO("every write: " << hex(a.times) << "\nstepped:     " << hex(b.times));
  CHECK(a.times == b.times);
  CHECK(a.stopped == b.stopped);
}

}  // namespace steady_stretches

TEST_CASE("stepping over steady stretches gives every figure and the model's state bit for bit", "[recorder][steady]") {
  using namespace steady_stretches;
  for (const steady_stretches::Case& k : kStepped) check_same(k, true);
}

TEST_CASE("stepping with writeback behind the writes gives every figure and the model's state bit for bit",
          "[recorder][steady]") {
  using namespace steady_stretches;
  for (const steady_stretches::Case& k : kBehind) check_same(k, true);
}

TEST_CASE("stepping changes nothing where stretches cannot be stepped", "[recorder][steady]") {
  using namespace steady_stretches;
  for (const steady_stretches::Case& k : kOthers) check_same(k, false);
}

TEST_CASE("capacity searches give the same answers and statistics with and without steady stretches",
          "[capacity][steady]") {
  // Document 003's stack (random pauses: every seed matters) and a kernel SSD
  // that barely keeps up (one exact run a candidate), 20 min.
  for (const char* spec : {"rpi4-buster-ultrafit-exfat", "rpi4-bullseye+exfat-kernel+samsung-sata-ssd-laptop"}) {
    INFO(spec);
    auto p = load_profile(spec);
    REQUIRE(p.ok());
    CapacityResult r[2];
    for (int step = 0; step < 2; ++step) {
      CapacityQuery q;
      q.base.stream = {1, 48000, 16, false};
      q.base.format = FormatKind::W64;
      q.base.duration_s = 1200;
      q.base.step_steady = step != 0;
      q.probes = {4, 8, 18};
      q.threads = 1;
      auto res = find_capacity(*p, q);
      REQUIRE(res.ok());
      r[step] = *res;
    }
    CHECK(r[0].best == r[1].best);
    CHECK(r[0].limited_by == r[1].limited_by);
    CHECK(r[0].first_overrun_s == r[1].first_overrun_s);
    CHECK(r[0].runs == r[1].runs);
    CHECK(r[0].simulated_s == r[1].simulated_s);
    REQUIRE(r[0].candidates.size() == r[1].candidates.size());
    for (size_t i = 0; i < r[0].candidates.size(); ++i) {
      const CandidateStats &a = r[0].candidates[i], &b = r[1].candidates[i];
      CHECK(a.value == b.value);
      CHECK(a.seeds == b.seeds);
      CHECK(a.failing_seeds == b.failing_seeds);
      CHECK(a.first_overrun_s == b.first_overrun_s);
      CHECK(a.reason == b.reason);
    }
    REQUIRE(r[0].probes.size() == r[1].probes.size());
    for (size_t i = 0; i < r[0].probes.size(); ++i)
      CHECK(r[0].probes[i].stats.failing_seeds == r[1].probes[i].stats.failing_seeds);
  }
}
