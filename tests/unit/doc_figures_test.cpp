// Each built-in profile reproduces the figures it was built from, under the
// documents' own workloads (docs/sources.md). The expected figures below are
// the documents'; the measured ones come from running ModelDevice in virtual
// time. Tolerance: 5 %.
#include <catch2/catch.hpp>

#include "builtin_profile.h"

#include "models/model_device.h"
#include "models/profile.h"
#include "sequential_write.h"

using namespace sd;

namespace {

// `dd if=/dev/zero of=test.bin bs=10M count=100` without conv=fsync: dd's clock
// stops when the last write() returns, with up to the host's dirty limit still
// in the page cache. dd prints bytes / seconds in units of 10^6.
double dd_mbps(const std::string& spec) {
  Profile p = sd_test::builtin_profile(spec);
  ModelDevice dev(p, {.seed = 1});
  VirtualClock clock;
  SequentialWrite w;
  w.block_bytes = 10 * 1048576;
  w.count = 100;
  auto r = run_sequential_write(dev, clock, w);
  REQUIRE(r.error == 0);
  REQUIRE(r.bytes == 1048576000.0);
  return r.bytes / (r.end - r.start) / 1e6;
}

}  // namespace

TEST_CASE("document 003: dd bs=10M count=100 on the Raspberry Pi 4", "[doc003][profiles]") {
  struct Row {
    const char* profile;
    double mbps;
  } rows[] = {
      {"rpi4-buster+fat32+sandisk-ultrafit-16g", 10.2},
      {"rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", 5.9},
      {"rpi4-buster+ntfs-3g+sandisk-ultrafit-16g", 15.7},
      {"rpi4-buster+fat32+teamgroup-sx2-usb2", 33.8},
      {"rpi4-buster+exfat-fuse+teamgroup-sx2-usb2", 36.8},
      {"rpi4-buster+ntfs-3g+teamgroup-sx2-usb2", 30.0},
      {"rpi4-bullseye+exfat-kernel+sandisk-ultrafit-16g", 15.3},
      {"rpi4-bullseye+exfat-kernel+sandisk-extremego-64g", 12.6},
  };
  for (const auto& row : rows) {
    double got = dd_mbps(row.profile);
    INFO(row.profile << ": model says dd prints " << got << " MB/s, document 003 measured " << row.mbps);
    CHECK(got == Approx(row.mbps).epsilon(0.05));
  }
}

TEST_CASE("document 001: 16 GB in 1 MB blocks, 189 MB/s average, fast first GB", "[doc001][profiles]") {
  // The document's "16 GB", "1 MB" and "MB/s" are binary: 16 GiB / 86.7 s = 189 MiB/s.
  Profile p = sd_test::builtin_profile("laptop-doc001");
  ModelDevice dev(p, {.seed = 1});
  VirtualClock clock;
  SequentialWrite w;
  w.block_bytes = 1048576;
  w.count = 16 * 1024;
  auto r = run_sequential_write(dev, clock, w);
  REQUIRE(r.error == 0);
  double seconds = r.end - r.start;
  CHECK(seconds == Approx(86.7).epsilon(0.05));
  CHECK(r.bytes / seconds / 1048576 == Approx(189).epsilon(0.05));
  // The first GB: at about 2 GB/s, then the rate falls.
  size_t first_gb = static_cast<size_t>(1e9 / 1048576);
  double t_gb = r.done_times[first_gb - 1] - r.start;
  double first_rate = first_gb * 1048576.0 / t_gb / 1e9;
  INFO("first GB at " << first_rate << " GB/s");
  CHECK(first_rate == Approx(2.0).epsilon(0.05));
  double rest_rate = (r.bytes - first_gb * 1048576.0) / (r.end - r.done_times[first_gb - 1]) / 1e6;
  INFO("after the first GB: " << rest_rate << " MB/s");
  CHECK(rest_rate < 250);
}

TEST_CASE("document 002: 1300-1600 MB/s for about 10 s, then 300 MB/s", "[doc002][profiles]") {
  // Their LabVIEW benchmark writes the whole free area and logs every write.
  Profile p = sd_test::builtin_profile("usrp-2974");
  ModelDevice dev(p, {.seed = 1});
  VirtualClock clock;
  SequentialWrite w;
  w.block_bytes = 4 * 1048576;
  w.seconds = 60;
  w.direct = true;
  auto r = run_sequential_write(dev, clock, w);
  REQUIRE(r.error == 0);
  // Rate per one-second window.
  std::vector<double> per_second(61, 0);
  for (double t : r.done_times)
    if (t - r.start < 60) per_second[static_cast<size_t>(t - r.start)] += w.block_bytes / 1e6;
  double early = (per_second[1] + per_second[2] + per_second[3]) / 3;
  INFO("early rate " << early << " MB/s");
  CHECK(early >= 1300 * 0.95);
  CHECK(early <= 1600 * 1.05);
  size_t cliff = 0;
  while (cliff < per_second.size() && per_second[cliff] > 800) ++cliff;
  INFO("cliff after " << cliff << " s");
  CHECK(cliff >= 8);   // "about 10 s"
  CHECK(cliff <= 12);
  double late = 0;
  for (int s = 20; s < 60; ++s) late += per_second[s] / 40;
  CHECK(late == Approx(300).epsilon(0.05));
}

TEST_CASE("document 000: cRIO binary peak rates, knee near 1 MB", "[doc000][profiles]") {
  // NI's method: the same block written over and over for 5 s per point.
  struct Row {
    const char* profile;
    double peak;
  } rows[] = {{"crio-9074", 2.0}, {"crio-9014", 4.0}, {"crio-9022", 6.3}};
  auto rate_at = [](const Profile& p, uint64_t block) {
    ModelDevice dev(p, {.seed = 1});
    VirtualClock clock;
    SequentialWrite w;
    w.block_bytes = block;
    w.seconds = 5;
    auto r = run_sequential_write(dev, clock, w);
    REQUIRE(r.error == 0);
    return r.bytes / (r.end - r.start) / 1e6;
  };
  for (const auto& row : rows) {
    Profile p = sd_test::builtin_profile(row.profile);
    double peak = rate_at(p, 4 * 1048576);
    double at_1m = rate_at(p, 1048576);
    double at_256k = rate_at(p, 256 * 1024);
    double at_64k = rate_at(p, 64 * 1024);
    INFO(row.profile << ": 4 MiB " << peak << ", 1 MiB " << at_1m << ", 256 KiB " << at_256k << ", 64 KiB " << at_64k);
    CHECK(peak == Approx(row.peak).epsilon(0.05));
    CHECK(at_1m >= 0.85 * peak);   // blocks of 1 MB get close to the best rate
    CHECK(at_256k <= 0.75 * peak); // and it falls sharply below that
    CHECK(at_64k <= 0.45 * peak);
  }
}
