// Each model layer in isolation, in virtual time.
#include <set>
#include <cerrno>
#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "models/analytic.h"
#include "models/host_cache.h"
#include "models/file_table.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "sequential_write.h"

using namespace sd;

namespace {

Profile make(const std::string& device_params, const std::string& fs_params = "", const std::string& host_params = "") {
  std::string text = "format_version = 1\nname = \"t\"\n[device.params]\n" + device_params + "\n";
  if (!fs_params.empty()) text += "[filesystem.params]\n" + fs_params + "\n";
  if (!host_params.empty()) text += "[host.params]\n" + host_params + "\n";
  auto p = parse_profile_text(text, "test");
  INFO(text << (p ? "" : p.message()));
  REQUIRE(p.ok());
  Profile out = *p;
  Status st = out.finish();
  INFO(st.message());
  REQUIRE(st.ok());
  return out;
}

// Creates file 1 on `d` and writes `writes` MiB to it flat out, 1 MiB a call;
// returns the longest call (and, in `end`, when the last one returned).
double worst_flat_out_call(ModelDevice& d, uint64_t writes, double* end = nullptr) {
  d.submit({OpKind::Create, 1}, 0);
  double t = 0, worst = 0;
  for (uint64_t i = 0; i < writes; ++i) {
    auto c = d.submit({OpKind::Write, 1, i * 1048576, 1048576}, t);
    worst = std::max(worst, c.done - t);
    t = c.done;
  }
  if (end) *end = t;
  return worst;
}

double write_time(ModelDevice& d, FileId f, uint64_t off, uint64_t n, double now, bool direct = true) {
  auto c = d.submit({OpKind::Write, f, off, n, direct}, now);
  REQUIRE(c.error == 0);
  return c.done;
}

// A 10 MB/s writer (1 MB every 0.1 s for 40 s) over a 20 MB/s device that
// pauses 2 s every 8 s, through the host layer `host`: its longest call.
double worst_wait_in_pauses(const std::string& host) {
  Profile p = make("sustained_mbps = 20\nstall_period_ms = 8000\nstall_duration_ms = 2000", "", host);
  ModelDevice d(p, ModelOptions{7});  // with the stall process
  d.submit({OpKind::Create, 1}, 0);
  double worst = 0, now = 0;
  for (uint64_t i = 0; i < 400; ++i) {
    now = std::max(now, static_cast<double>(i) * 0.1);
    auto c = d.submit({OpKind::Write, 1, i * 1000000, 1000000}, now);
    REQUIRE(c.error == 0);
    worst = std::max(worst, c.done - now);
    now = c.done;
  }
  return worst;
}

}  // namespace

TEST_CASE("device: rate(b) = b / (overhead + b / bandwidth)", "[model][device]") {
  Profile p = make("sustained_mbps = 100\nop_overhead_us = 1000");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  double t = write_time(d, 1, 0, 1000000, 0);
  CHECK(t == Approx(0.001 + 0.01));
  double t2 = write_time(d, 1, 1000000, 100000, t);
  CHECK(t2 - t == Approx(0.001 + 0.001));
  for (double b : {4096.0, 65536.0, 1048576.0, 8388608.0})
    CHECK(write_rate(p, b, Phase::Sustained, true) == Approx(b / (0.001 + b / 100e6)).epsilon(1e-6));
}

TEST_CASE("device: the burst cache recovers only after recover_idle_ms of quiet", "[model][device]") {
  Profile p = make("sustained_mbps = 100\nburst_bytes = 1e9\nburst_mbps = 1000\nrecover_mbps = 50\n"
                   "recover_idle_ms = 2000");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  double t = write_time(d, 1, 0, 1500000000, 0);  // 1 GB into the cache, 500 MB past it
  CHECK(t == Approx(1.0 + 5.0));
  CHECK(d.state(t + 1.5).burst_left_bytes == Approx(0));      // quiet, but not long enough
  CHECK(d.state(t + 10).burst_left_bytes == Approx(400e6));   // 8 s of recovery after 2 s
  // A write 1.5 s after the last finds the cache still full, and the quiet
  // time counts again from its end.
  double t2 = write_time(d, 1, 1500000000, 100000000, t + 1.5);
  CHECK(t2 - (t + 1.5) == Approx(1.0));
  CHECK(d.state(t2 + 3).burst_left_bytes == Approx(50e6));
}

TEST_CASE("device: catchup_ms makes up a pause's first part afterwards, the held write still waits it all",
          "[model][device][catchup]") {
  // 10 MB/s, a 300 ms pause every ~10 MB (byte-triggered), 1 MB writes flat out.
  const std::string dev = "sustained_mbps = 10\nstall_interval_mb = 10\nstall_duration_ms = 300\ncapacity_bytes = 0";
  double plain_end = 0, caught_end = 0;
  ModelDevice plain(make(dev));
  double plain_worst = worst_flat_out_call(plain, 200, &plain_end);
  ModelDevice caught(make(dev + "\ncatchup_ms = 250"));
  double caught_worst = worst_flat_out_call(caught, 200, &caught_end);
  uint64_t pauses = plain.state(plain_end).stalls;
  REQUIRE(pauses >= 10);
  REQUIRE(caught.state(caught_end).stalls == pauses);  // the same seed: the same pauses
  double transfer = 200 * 1048576 / 10e6;
  // Each pause costs its whole 0.3 s without catch-up, 0.05 s with 0.25 s of
  // it made up; a pause less than 2.5 MB after the last (Poisson: about one
  // in five) finds part of the bucket unspent and makes up less.
  auto n = static_cast<double>(pauses);
  CHECK(plain_end == Approx(transfer + 0.3 * n).epsilon(1e-9));
  CHECK(caught_end >= transfer + 0.05 * n - 1e-9);
  CHECK(caught_end <= transfer + 0.05 * n + 0.25 * 0.5 * n);
  CHECK(caught_end < plain_end - 0.125 * n);
  // The call that meets a pause waits for all of it either way.
  CHECK(plain_worst >= 0.3);
  CHECK(caught_worst >= 0.3 - 1e-9);
  // The bucket also fills while the device is idle (a rate limiter's): after
  // a second's quiet, 2.5 MB of a 3 MB write pass at once.
  Profile q = make("sustained_mbps = 10\ncatchup_ms = 250");
  ModelDevice d(q);
  d.submit({OpKind::Create, 1}, 0);
  double t = write_time(d, 1, 0, 1000000, 0);
  CHECK(t == Approx(0.1));  // nothing saved up at the start
  double t2 = write_time(d, 1, 1000000, 3000000, t + 1);
  CHECK(t2 - (t + 1) == Approx(0.05));
  // The analytic rate charges each pause only its excess over catchup_ms.
  Profile r = make(dev + "\ncatchup_ms = 250");
  double per_mb = 1 / 10e6 + 0.05 / 10e6;
  CHECK(write_rate(r, 1048576, Phase::Sustained, true) == Approx(1 / per_mb).epsilon(1e-3));
}

TEST_CASE("device: burst cache, then sustained, recovery while idle", "[model][device]") {
  Profile p = make("sustained_mbps = 100\nburst_bytes = 1e9\nburst_mbps = 1000\nrecover_mbps = 50");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  double t = write_time(d, 1, 0, 500000000, 0);
  CHECK(t == Approx(0.5));
  // Straddling the end of the cache: 500 MB at burst rate, 500 MB sustained.
  t = write_time(d, 1, 500000000, 1000000000, t);
  CHECK(t == Approx(0.5 + 0.5 + 5.0));
  CHECK(d.state(t).burst_left_bytes == Approx(0));
  // Ten idle seconds free 500 MB of cache.
  CHECK(d.state(t + 10).burst_left_bytes == Approx(500e6));
  double t3 = write_time(d, 1, 1500000000, 100000000, t + 10);
  CHECK(t3 - (t + 10) == Approx(0.1));
  auto ex = burst_exhaustion(p, INFINITY, 1048576);
  CHECK(ex.seconds == Approx(1.0).epsilon(0.01));
  // Writing at 100 MB/s: busy 10 % of the time, recovering 90 % at 50 MB/s.
  auto slow = burst_exhaustion(p, 100e6, 1048576);
  CHECK(slow.seconds == Approx(1e9 / (100e6 - 50e6 * 0.9)).epsilon(0.01));
  CHECK(burst_exhaustion(p, 40e6, 1048576).never);
}

TEST_CASE("device: non-sequential writes pay the seek penalty", "[model][device]") {
  Profile p = make("sustained_mbps = 100\nseek_penalty_us = 5000");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  d.submit({OpKind::Create, 2}, 0);
  double t = write_time(d, 1, 0, 100000, 0);          // first write: a seek
  CHECK(t == Approx(0.005 + 0.001));
  double t2 = write_time(d, 1, 100000, 100000, t);    // continues: none
  CHECK(t2 - t == Approx(0.001));
  double t3 = write_time(d, 2, 0, 100000, t2);        // another file: a seek
  CHECK(t3 - t2 == Approx(0.006));
  double t4 = write_time(d, 1, 0, 100000, t3);        // rewrite of a header: a seek
  CHECK(t4 - t3 == Approx(0.006));
}

TEST_CASE("device: fill level degrades bandwidth past the knee", "[model][device]") {
  Profile p = make("sustained_mbps = 100\ncapacity_bytes = 1e9\nfill_knee = 0.8\nfill_floor = 0.2");
  CHECK(write_rate(p, 1e6, Phase::Sustained, true, 0.5) == Approx(100e6));
  CHECK(write_rate(p, 1e6, Phase::Sustained, true, 0.9) == Approx(60e6).epsilon(0.01));
  ModelDevice d(p, {.seed = 1, .prefill_bytes = 0.9e9});
  d.submit({OpKind::Create, 1}, 0);
  double t = write_time(d, 1, 0, 1000000, 0);
  CHECK(1e6 / t == Approx(60e6).epsilon(0.01));
}

TEST_CASE("device: stalls repeat with the seed and average to their parameters", "[model][stalls]") {
  Profile p = make("sustained_mbps = 1000\nstall_interval_mb = 100\nstall_duration_ms = 200\nstall_duration_sigma = 0.5");
  auto run = [&](uint64_t seed) {
    ModelDevice d(p, {.seed = seed});
    d.submit({OpKind::Create, 1}, 0);
    double t = 0;
    for (uint64_t i = 0; i < 10000; ++i) t = write_time(d, 1, i * 1000000, 1000000, t);
    return std::pair{t, d.state(t).stalls};
  };
  auto [t1, n1] = run(7);
  auto [t2, n2] = run(7);
  auto [t3, n3] = run(8);
  CHECK(t1 == t2);
  CHECK(n1 == n2);
  CHECK(t1 != t3);
  // 10 GB with a stall every 100 MB on average: about 100 stalls.
  CHECK(n1 > 70);
  CHECK(n1 < 130);
  // Mean stall = median * exp(sigma^2 / 2).
  double mean_stall = (t1 - 10.0) / static_cast<double>(n1);
  CHECK(mean_stall == Approx(0.2 * std::exp(0.125)).epsilon(0.15));
  // Expected rate, analytically, against the mean time of 20 seeds: one run's
  // stall count and lengths vary by ~8 % (100 stalls, sigma 0.5), 20 runs' mean
  // by ~2 %, so 10 % is five standard deviations.
  double sum = 0;
  for (uint64_t seed = 100; seed < 120; ++seed) sum += run(seed).first;
  CHECK(write_rate(p, 1e6, Phase::Sustained, true) == Approx(1e10 / (sum / 20)).epsilon(0.1));
}

TEST_CASE("device: byte-triggered stalls come as regularly as stall_interval_jitter says", "[model][stalls]") {
  // 1 MB writes, a 100 ms stall every 10 MB on average: by default Poisson in
  // bytes (the gaps spread like an exponential: CV 1, some within one write of
  // the last), with stall_interval_jitter = 0 one every 10 writes exactly
  // after a random phase, and 0.3 in between.
  auto gaps = [](const char* jitter) {
    Profile p = make(std::string("sustained_mbps = 1000\nstall_interval_mb = 10\nstall_duration_ms = 100\n") + jitter);
    ModelDevice d(p, {.seed = 3});
    d.submit({OpKind::Create, 1}, 0);
    double t = 0;
    std::vector<double> at;  // the write each stall fell in
    uint64_t seen = 0;
    for (uint64_t i = 0; i < 20000; ++i) {
      t = write_time(d, 1, i * 1000000, 1000000, t);
      for (uint64_t n = d.state(t).stalls; seen < n; ++seen) at.push_back(static_cast<double>(i));
    }
    std::vector<double> g;
    for (size_t k = 1; k < at.size(); ++k) g.push_back(at[k] - at[k - 1]);
    return g;
  };
  auto cv = [](const std::vector<double>& g) {
    double m = std::accumulate(g.begin(), g.end(), 0.0) / static_cast<double>(g.size()), ss = 0;
    for (double v : g) ss += (v - m) * (v - m);
    return std::pair{m, std::sqrt(ss / static_cast<double>(g.size() - 1)) / m};
  };
  auto poisson = gaps(""), fixed = gaps("stall_interval_jitter = 0"), some = gaps("stall_interval_jitter = 0.3");
  auto [pm, pcv] = cv(poisson);
  auto [sm, scv] = cv(some);
  INFO("Poisson: mean " << pm << " CV " << pcv << "; 0.3: mean " << sm << " CV " << scv);
  // ~2000 stalls: a Poisson count's sd is 2.2 %, a 0.3-jitter one's about a third of it.
  CHECK(pm == Approx(10).epsilon(0.09));
  CHECK(pcv == Approx(1).epsilon(0.1));
  CHECK(std::count(poisson.begin(), poisson.end(), 0.0) > 50);  // two stalls in one write
  REQUIRE(fixed.size() > 1000);
  CHECK(std::all_of(fixed.begin(), fixed.end(), [](double g) { return g == 10; }));
  CHECK(sm == Approx(10).epsilon(0.04));
  CHECK(scv == Approx(0.3).epsilon(0.15));
}

TEST_CASE("device: reads in parallel up to the queue depth, under the interface ceiling", "[model][reads]") {
  Profile p = make("sustained_mbps = 100\nread_mbps = 200\nread_latency_us = 100\nread_queue_depth = 2\n"
                   "read_max_mbps = 300");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  write_time(d, 1, 0, 100000000, 0);
  auto r1 = d.submit({OpKind::Read, 1, 0, 2000000}, 10);
  CHECK(r1.done - 10 == Approx(0.0001 + 0.01));
  // Two at once use both lanes; the interface caps them at 300 MB/s together.
  auto a = d.submit({OpKind::Read, 1, 0, 20000000}, 20);
  auto b = d.submit({OpKind::Read, 1, 0, 20000000}, 20);
  CHECK(a.done - 20 == Approx(0.1001).epsilon(0.01));
  CHECK(b.done - 20 == Approx(40e6 / 300e6).epsilon(0.02));
  auto past = d.submit({OpKind::Read, 1, 200000000, 10}, 30);
  CHECK(past.bytes == 0);
}

TEST_CASE("filesystem: request splitting, metadata writes, create cost", "[model][filesystem]") {
  Profile p = make("sustained_mbps = 100\nop_overhead_us = 100\nseek_penalty_us = 1000",
                   "request_bytes = 100000\nrequest_us = 50\nmeta_every_bytes = 200000\nmeta_write_bytes = 1000\n"
                   "create_us = 3000");
  ModelDevice d(p);
  auto c = d.submit({OpKind::Create, 1}, 0);
  CHECK(c.done == Approx(0.003));
  // 400 kB: 4 requests (each 50 us driver + 100 us device + 1 ms transfer), a
  // seek for the first, and 2 metadata writes, each 2 seeks (there and back)
  // ... the last one returns to data only on the next write.
  double t = write_time(d, 1, 0, 400000, c.done);
  double expect = 4 * (50e-6 + 100e-6 + 0.001) + 0.001 + 2 * (1000e-6 + 100e-6 + 10e-6) + 1000e-6;
  CHECK(t - c.done == Approx(expect));
  // Overwriting inside the file writes no metadata.
  double t2 = write_time(d, 1, 0, 100000, t);
  CHECK(t2 - t == Approx(50e-6 + 100e-6 + 0.001 + 0.001));
}

TEST_CASE("filesystem: a removed file's metadata starts again when its id is created anew", "[model][filesystem]") {
  // FsLayer remembers the last file's high-water mark (a lookup cache):
  // Remove must drop it, or the new file's growth would write no metadata.
  Profile p = make("sustained_mbps = 100\nop_overhead_us = 100\nseek_penalty_us = 1000",
                   "request_bytes = 100000\nmeta_every_bytes = 200000\nmeta_write_bytes = 1000");
  auto grow_twice = [&](FileId second) {
    ModelDevice d(p);
    d.submit({OpKind::Create, 1}, 0);
    double t = write_time(d, 1, 0, 400000, 0);
    if (second == 1) {
      REQUIRE(d.submit({OpKind::Remove, 1}, t).error == 0);
    }
    d.submit({OpKind::Create, second}, t);
    return write_time(d, second, 0, 400000, t) - t;
  };
  // The same id again grows exactly like a new id: two metadata writes.
  CHECK(grow_twice(1) == grow_twice(2));
  CHECK(grow_twice(1) > 4 * (100e-6 + 0.001) + 2 * (1000e-6 + 100e-6 + 10e-6));
}

TEST_CASE("device: the fill level's bandwidth loss follows the fill in both directions", "[model][device]") {
  // DeviceLayer skips the fill-level division at or below a level already
  // seen flat: a fill that rises past the knee must still slow it, and one
  // that falls back must not.
  Profile p = make("sustained_mbps = 100\ncapacity_bytes = 1e9\nfill_knee = 0.8\nfill_floor = 0.2");
  ModelDevice d(p, {.seed = 1, .prefill_bytes = 0.7e9});
  d.submit({OpKind::Create, 1}, 0);
  d.submit({OpKind::Create, 2}, 0);
  double t0 = write_time(d, 1, 0, 1000000, 0);  // 70 %: full speed
  CHECK(1e6 / t0 == Approx(100e6).epsilon(0.01));
  double t1 = write_time(d, 2, 0, 200000000, t0);  // to 90 %
  double t2 = write_time(d, 1, 1000000, 1000000, t1);
  CHECK(1e6 / (t2 - t1) == Approx(60e6).epsilon(0.02));
  REQUIRE(d.submit({OpKind::Remove, 2}, t2).error == 0);  // back to 70 %
  double t3 = write_time(d, 1, 2000000, 1000000, t2);
  CHECK(1e6 / (t3 - t2) == Approx(100e6).epsilon(0.01));
}

TEST_CASE("filesystem: clusters are counted per file when writes alternate between files", "[model][filesystem]") {
  // FileTable remembers the last size it rounded to clusters: writes that
  // alternate between files of other sizes must still count each file's own.
  Profile p = make("sustained_mbps = 100\ncapacity_bytes = 1e9", "cluster_bytes = 32768");
  ModelDevice d(p);
  for (FileId f : {1, 2, 3}) d.submit({OpKind::Create, f}, 0);
  double t = 0;
  t = write_time(d, 1, 0, 1, t);         // 1 cluster
  t = write_time(d, 2, 0, 32769, t);     // 2 clusters
  t = write_time(d, 1, 1, 32768, t);     // file 1 to 32769 B: 2 clusters
  t = write_time(d, 3, 0, 100000, t);    // 4 clusters
  t = write_time(d, 2, 32769, 1, t);     // file 2 to 32770 B: still 2
  CHECK(d.state(t).used_bytes == 8 * 32768.0);
}

TEST_CASE("filesystem: a power-of-two cluster counts the clusters the double rounding counted", "[model][filesystem]") {
  // FileTable rounds such sizes with a shift: the same count as
  // ceil(size / cluster) in doubles, which is exact below 2^53.
  for (double cluster : {1.0, 512.0, 4096.0, 32768.0, 131072.0, 3000.0}) {
    auto c = static_cast<uint64_t>(cluster);
    for (uint64_t size : {uint64_t{0}, uint64_t{1}, c - 1, c, c + 1, 7 * c + 3, (uint64_t{1} << 32) + 1,
                          (uint64_t{1} << 52) - 1, (uint64_t{1} << 53) - 1}) {
      INFO("cluster " << cluster << ", size " << size);
      FileTable t(cluster, 0, 0, 0);
      t.create(1);
      t.commit_write(1, 0, size);
      CHECK(t.used_bytes() == std::ceil(static_cast<double>(size) / cluster) * cluster);
    }
  }
}

TEST_CASE("filesystem: EFBIG at max_file_bytes, ENOSPC at capacity", "[model][filesystem]") {
  Profile p = make("sustained_mbps = 1000\ncapacity_bytes = 10485760", "max_file_bytes = 4294967295\ncluster_bytes = 4096");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  // ENOSPC: 10 MiB of clusters; a write past them is cut at the last cluster.
  auto w = d.submit({OpKind::Write, 1, 0, 8 * 1048576, true}, 0);
  CHECK(w.error == 0);
  CHECK(w.bytes == 8u * 1048576);
  w = d.submit({OpKind::Write, 1, 8 * 1048576, 4 * 1048576, true}, w.done);
  CHECK(w.bytes == 2u * 1048576);
  w = d.submit({OpKind::Write, 1, 10 * 1048576, 4096, true}, w.done);
  CHECK(w.error == ENOSPC);
  CHECK(w.bytes == 0);
  // Freeing space makes room again.
  CHECK(d.submit({OpKind::Truncate, 1, 0, 1048576}, w.done).error == 0);
  CHECK(d.submit({OpKind::Write, 1, 1048576, 4096, true}, w.done).error == 0);

  // EFBIG: FAT32 stops at 4 GiB - 1 (sparse offsets are fine in the model).
  Profile q = make("sustained_mbps = 1000", "max_file_bytes = 4294967295");
  ModelDevice e(q);
  e.submit({OpKind::Create, 2}, 0);
  auto x = e.submit({OpKind::Write, 2, 4294967295ull - 100, 1000, true}, 0);
  CHECK(x.bytes == 100);
  auto y = e.submit({OpKind::Write, 2, 4294967295ull, 1000, true}, x.done);
  CHECK(y.error == EFBIG);
  CHECK(e.submit({OpKind::Truncate, 2, 0, 5000000000ull}, y.done).error == EFBIG);
}

TEST_CASE("contract: operations on unknown files fail, zero-length writes are free", "[model]") {
  Profile p = make("sustained_mbps = 100");
  ModelDevice d(p);
  CHECK(d.submit({OpKind::Write, 9, 0, 10, true}, 0).error == EBADF);
  CHECK(d.submit({OpKind::Fsync, 9}, 0).error == EBADF);
  CHECK(d.submit({OpKind::Remove, 9}, 0).error == ENOENT);
  d.submit({OpKind::Create, 9}, 0);
  CHECK(d.submit({OpKind::Create, 9}, 0).error == EEXIST);
  auto z = d.submit({OpKind::Write, 9, 0, 0, true}, 5);
  CHECK(z.error == 0);
  CHECK(z.done == 5);
}

TEST_CASE("host: page cache absorbs at memory speed, then throttles to the device, fsync drains", "[model][host]") {
  Profile p = make("sustained_mbps = 100", "", "dirty_limit_bytes = 100e6\nmemory_mbps = 1000");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  VirtualClock clock;
  double t = 0;
  std::vector<double> done;
  for (uint64_t i = 0; i < 500; ++i) {
    auto c = d.submit({OpKind::Write, 1, i * 1000000, 1000000}, t);
    REQUIRE(c.error == 0);
    t = c.done;
    done.push_back(t);
  }
  // The first ~100 MB go at memory speed (1 ms per MB).
  CHECK(done[49] == Approx(0.05).epsilon(0.01));
  // Then the writer waits for the device: 100 MB/s.
  double late_rate = 200e6 / (done[499] - done[299]);
  CHECK(late_rate == Approx(100e6).epsilon(0.02));
  // fsync returns when everything is on the device: 500 MB at 100 MB/s.
  auto f = d.submit({OpKind::Fsync, 1}, t);
  CHECK(f.done == Approx(5.0).epsilon(0.01));
  // O_DIRECT bypasses the cache.
  auto dw = d.submit({OpKind::Write, 1, 500000000, 1000000, true}, f.done);
  CHECK(dw.done - f.done == Approx(0.01));
}

TEST_CASE("host: with a background level the writer is held from halfway between it and the limit", "[model][host]") {
  // Linux's freerun ceiling (balance_dirty_pages): a 10 MB/s writer into a
  // 16 MB limit / 8 MB background cache over a 20 MB/s device that pauses
  // 2 s every 8 s. Write-back keeps the dirty data just under the background
  // level (7-8 MB); in a pause it grows at 10 MB/s and the writer is held once
  // it reaches 12 MB, 0.4-0.5 s in, so a write waits about 1.5 s (less the
  // part of the pause that fell while the device idled). Held at the 16 MB
  // limit instead it would wait about 1.1 s. Without a background level
  // write-back starts at once, the cache is near empty when a pause starts,
  // and the 16 MB limit is reached 1.6 s in. A writer held longer than one
  // of Linux's pauses (here ~0.1-0.14 s, an eighth of the time the device
  // needs for 16 MB) sleeps in whole ones: each wait may grow by up to one.
  double with_bg = worst_wait_in_pauses(
      "dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\nwriteback_chunk_bytes = 1e6\n"
      "dirty_pacing = 0");
  double without = worst_wait_in_pauses("dirty_limit_bytes = 16e6\nmemory_mbps = 1000\nwriteback_chunk_bytes = 1e6");
  INFO("longest wait: with a background level " << with_bg << " s, without " << without << " s");
  CHECK(with_bg > 1.15);
  CHECK(with_bg < 1.7);
  CHECK(without < 0.65);
}

TEST_CASE("host: over the background level the flusher starts when the level is reached", "[model][host]") {
  // A slow writer (1 MB every 0.5 s) into a 16 MB limit over an 8 MB
  // background level, 4 MB writeback chunks, a 20 MB/s device: the level is
  // reached by the eighth write (3.5 s); Linux wakes the flusher then, and
  // nothing is written before. The device's work then happens now, where a
  // pause or a journal commit meets the writer, not back when the oldest page
  // was dirtied (the model did that until session 19: the device wrote each
  // megabyte "at" its dirtying time, idle in the past, and a slow writer never
  // met a device pause through a commit).
  Profile p = make("sustained_mbps = 20", "",
                   "dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\n"
                   "writeback_chunk_bytes = 4e6");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  for (uint64_t i = 0; i < 7; ++i) REQUIRE(d.submit({OpKind::Write, 1, i * 1000000, 1000000}, i * 0.5).error == 0);
  CHECK(d.state(3.4).device_free_at == 0);  // 7 MB dirty: nothing written yet
  REQUIRE(d.submit({OpKind::Write, 1, 7000000, 1000000}, 3.5).error == 0);
  ModelState s = d.state(3.6);
  INFO("device busy until " << s.device_free_at << " s, dirty " << s.dirty_bytes / 1e6 << " MB at 3.6 s");
  // One 4 MB chunk from 3.501 s at 20 MB/s: the device is busy until ~3.7 s.
  CHECK(s.device_free_at == Approx(3.701).margin(0.01));
  CHECK(d.state(3.75).dirty_bytes == Approx(4e6).margin(1));  // the chunk written; 4 MB still dirty
}

TEST_CASE("host: with dirty_pacing a writer over the freerun ceiling is paced, not held for whole chunks",
          "[model][host]") {
  // A flat-out writer (1 MB calls at memory speed) into a 16 MB limit / 8 MB
  // background cache over a 20 MB/s device, writeback in 4 MB chunks. Held at
  // the ceiling (12 MB), a call waits until a whole chunk is down: 0.2 s.
  // Paced (Linux's balance_dirty_pages), the calls come at writeback's rate,
  // each about a call's share of it, as the device writes the chunk in flight.
  const char* host = "dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\n"
                     "writeback_chunk_bytes = 4e6\n";
  struct Run {
    double worst_late = 0, rate = 0, dirty = 0;
  };
  auto run = [&](int pacing) {
    Profile p = make("sustained_mbps = 20", "", std::string(host) + "dirty_pacing = " + std::to_string(pacing));
    ModelDevice d(p);
    d.submit({OpKind::Create, 1}, 0);
    Run r;
    double t = 0, t_mid = 0;
    for (uint64_t i = 0; i < 300; ++i) {
      auto c = d.submit({OpKind::Write, 1, i * 1000000, 1000000}, t);
      REQUIRE(c.error == 0);
      if (i >= 100) r.worst_late = std::max(r.worst_late, c.done - t);
      if (i == 100) t_mid = c.done;
      t = c.done;
    }
    r.rate = 199e6 / (t - t_mid);
    r.dirty = d.state(t).dirty_bytes;
    return r;
  };
  Run wall = run(0), paced = run(1);
  INFO("wall: longest call " << wall.worst_late << " s, " << wall.rate / 1e6 << " MB/s; paced: longest call "
                             << paced.worst_late << " s, " << paced.rate / 1e6 << " MB/s, dirty "
                             << paced.dirty / 1e6 << " MB");
  CHECK(wall.worst_late > 0.19);
  CHECK(paced.worst_late < 0.1);
  CHECK(paced.rate == Approx(20e6).epsilon(0.05));  // the device's rate either way
  CHECK(wall.rate == Approx(20e6).epsilon(0.05));
  CHECK(paced.dirty > 12e6);  // over the ceiling: a flat-out writer is paced there

  // In a device pause the paced writer goes on, slower and slower, until the
  // limit, where the wall stopped it at the ceiling: the same 10 MB/s writer
  // and 2 s pauses as the test above waits less.
  auto worst_wait = [](int pacing) {
    return worst_wait_in_pauses("dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\n"
                                "writeback_chunk_bytes = 1e6\ndirty_pacing = " + std::to_string(pacing));
  };
  double held = worst_wait(0), paced_wait = worst_wait(1);
  INFO("longest wait in a pause: held at the ceiling " << held << " s, paced " << paced_wait << " s");
  CHECK(paced_wait < held - 0.1);
  CHECK(paced_wait > 0.5);  // it still meets the pause at the limit
}

TEST_CASE("host: held at the ceiling, a writer goes on as requests end, in whole pauses when held long",
          "[model][host]") {
  // Linux counts pages under writeback as dirty and ends their writeback
  // request by request: a flat-out writer (1 MB calls) held at the ceiling of
  // a 16 MB limit / 8 MB background cache over a 20 MB/s device, writeback in
  // 4 MB chunks, waits for one 1 MB request (0.05 s), not a whole chunk (0.2 s).
  // The ceiling as a wall (dirty_pacing = 0; the default paces the writer).
  auto longest_call = [](const std::string& request) {
    Profile p = make("sustained_mbps = 20", "",
                     "dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\n"
                     "dirty_pacing = 0\nwriteback_chunk_bytes = 4e6\n" + request);
    ModelDevice d(p);
    d.submit({OpKind::Create, 1}, 0);
    double t = 0, worst = 0, t_mid = 0;
    for (uint64_t i = 0; i < 300; ++i) {
      auto c = d.submit({OpKind::Write, 1, i * 1000000, 1000000}, t);
      REQUIRE(c.error == 0);
      if (i >= 100) worst = std::max(worst, c.done - t);
      if (i == 100) t_mid = c.done;
      t = c.done;
    }
    return std::pair{worst, 199e6 / (t - t_mid)};
  };
  auto [chunk_wait, chunk_rate] = longest_call("");
  auto [request_wait, request_rate] = longest_call("writeback_request_bytes = 1e6");
  INFO("longest call: whole chunks " << chunk_wait << " s (" << chunk_rate / 1e6 << " MB/s), requests "
                                     << request_wait << " s (" << request_rate / 1e6 << " MB/s)");
  CHECK(chunk_wait > 0.19);
  CHECK(request_wait < 0.06);
  CHECK(request_rate == Approx(20e6).epsilon(0.05));  // the device's rate either way
  CHECK(chunk_rate == Approx(20e6).epsilon(0.05));

  // Held through a device pause (2 s every 8 s) a 10 MB/s writer sleeps in
  // whole pauses of balance_dirty_pages (an eighth of the time the device
  // needs for the 32 MB limit, at most 200 ms): every wait longer than one
  // pause is a whole number of them (plus the 1 ms copy).
  Profile p = make("sustained_mbps = 20\nstall_period_ms = 8000\nstall_duration_ms = 2000", "",
                   "dirty_limit_bytes = 32e6\ndirty_background_bytes = 16e6\nmemory_mbps = 1000\n"
                   "dirty_pacing = 0\nwriteback_chunk_bytes = 1e6\nwriteback_request_bytes = 250000");
  ModelDevice d(p, ModelOptions{7});
  d.submit({OpKind::Create, 1}, 0);
  double now = 0;
  int long_waits = 0, whole = 0;
  for (uint64_t i = 0; i < 1200; ++i) {
    now = std::max(now, static_cast<double>(i) * 0.1);
    auto c = d.submit({OpKind::Write, 1, i * 1000000, 1000000}, now);
    REQUIRE(c.error == 0);
    double held = c.done - now - 0.001;
    if (held > 0.21) {
      ++long_waits;
      double n = held / 0.2;
      if (std::abs(n - std::round(n)) < 1e-6) ++whole;
    }
    now = c.done;
  }
  INFO(long_waits << " waits longer than a pause, " << whole << " of them whole pauses");
  CHECK(long_waits >= 3);
  CHECK(whole == long_waits);

  // Nothing is written while the device is paused: a 4 MB piece in flight
  // that meets a 2 s pause releases none of its 1 MB requests before the
  // pause has ended, so a 10 MB/s writer held at the 12 MB ceiling waits out
  // the rest of the pause (about 1.6 s; with the piece's requests ending
  // evenly over its time, pause included, it went on after 1.0 s).
  double waited = worst_wait_in_pauses("dirty_limit_bytes = 16e6\ndirty_background_bytes = 8e6\nmemory_mbps = 1000\n"
                                       "dirty_pacing = 0\nwriteback_chunk_bytes = 4e6\nwriteback_request_bytes = 1e6");
  INFO("longest wait in a pause, 4 MB pieces of 1 MB requests: " << waited << " s");
  CHECK(waited > 1.2);
  CHECK(waited < 2.2);
}

TEST_CASE("host: fsync on a journaled filesystem commits at once, not at the next periodic commit",
          "[model][host][journal]") {
  // 10 MB written at t = 0.1 s into a large cache that keeps it dirty (below
  // the background level), fsync at 0.2 s: the data (0.1 s at 100 MB/s) and
  // then the forced commit, long before the periodic one at 5.1 s.
  Profile p = make("sustained_mbps = 100", "journal_commit_ms = 5000",
                   "dirty_limit_bytes = 1e9\ndirty_background_bytes = 5e8\nmemory_mbps = 1000\n"
                   "writeback_chunk_bytes = 4194304");
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  auto w = d.submit({OpKind::Write, 1, 0, 10000000}, 0.1);
  REQUIRE(w.error == 0);
  double fsync = d.submit({OpKind::Fsync, 1}, 0.2).done;
  INFO("fsync done at " << fsync << " s");
  CHECK(fsync > 0.3);  // the data first
  CHECK(fsync < 0.5);  // then its own commit, not the periodic one at 5.1 s
  // A second fsync with nothing written since has nothing to commit.
  CHECK(d.submit({OpKind::Fsync, 1}, 1.0).done == Approx(1.0));
}

TEST_CASE("host: a userspace driver's stalls block the writer even with room in the cache", "[model][host]") {
  Profile p = make("sustained_mbps = 100",
                   "userspace = 1\nstall_interval_mb = 10\nstall_duration_ms = 500\nrequest_us = 100\nrequest_bytes = 131072",
                   "dirty_limit_bytes = 1e9\nmemory_mbps = 1000");
  ModelDevice d(p, {.seed = 3});
  double t = 0, worst = worst_flat_out_call(d, 100, &t);
  // 100 MiB fit in the cache, yet some calls took a stall's time.
  CHECK(worst > 0.1);
  CHECK(d.state(t).stalls > 3);
  // A kernel driver's stalls happen in writeback: the cache hides them.
  Profile k = make("sustained_mbps = 100", "stall_interval_mb = 10\nstall_duration_ms = 500",
                   "dirty_limit_bytes = 1e9\nmemory_mbps = 1000");
  ModelDevice kd(k, {.seed = 3});
  kd.submit({OpKind::Create, 1}, 0);
  t = 0, worst = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    auto c = kd.submit({OpKind::Write, 1, i * 1048576, 1048576}, t);
    worst = std::max(worst, c.done - t);
    t = c.done;
  }
  CHECK(worst < 0.01);
}

TEST_CASE("host: a journal commit makes a buffered writer wait for the device's pause and backlog",
          "[model][host][journal]") {
  // A paced writer (1 MiB every 0.1 s, 10 MB/s) over a 100 MB/s device that
  // pauses 0.8 s every 3 s, with a cache far larger than the run: without a
  // journal no call waits; with 5 s commits a call waits only when a commit
  // finds writeback stuck in a pause, and never longer than the pause.
  auto worst_call = [](const std::string& fs, const std::string& host) {
    Profile p = make("sustained_mbps = 100\nstall_period_ms = 3000\nstall_duration_ms = 800", fs,
                     "dirty_limit_bytes = 1e9\nmemory_mbps = 1000\n" + host);
    double worst = 0;
    int slow = 0;
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      ModelDevice d(p, {.seed = seed});
      d.submit({OpKind::Create, 1}, 0);
      double t = 0;
      for (uint64_t i = 0; i < 300; ++i) {  // 30 s
        double issue = std::max(t, 0.1 * static_cast<double>(i));
        auto c = d.submit({OpKind::Write, 1, i * 1048576, 1048576}, issue);
        worst = std::max(worst, c.done - issue);
        slow += c.done - issue > 0.05;
        t = c.done;
      }
    }
    return std::pair{worst, slow};
  };
  auto [none, none_slow] = worst_call("", "");
  CHECK(none < 0.01);
  CHECK(none_slow == 0);
  auto [ext4, ext4_slow] = worst_call("journal_commit_ms = 5000", "");
  CHECK(ext4 > 0.3);   // some commit met a pause in 20 runs of 6 commits
  CHECK(ext4 < 0.85);  // no wait outlasts the pause plus the request in flight
  CHECK(ext4_slow >= 3);
  CHECK(ext4_slow <= 20 * 6);  // at most one slow call per commit
  // A userspace driver has no kernel journal: its own stalls model its waits.
  auto [fuse, fuse_slow] = worst_call("journal_commit_ms = 5000\nuserspace = 1", "");
  CHECK(fuse < 0.01);
  // A deeper writeback queue: a commit waits for all of it (16 MiB at 100 MB/s).
  Profile q = make("sustained_mbps = 100", "journal_commit_ms = 1000",
                   "dirty_limit_bytes = 64e6\nmemory_mbps = 1000\nwriteback_queue_bytes = 16777216");
  ModelDevice d(q);
  double worst = worst_flat_out_call(d, 400);  // flat out for ~4 s: the queue is full at every commit
  CHECK(worst > 0.1);  // ~16.8 MB / 100 MB/s less what was done since
  CHECK(worst < 0.2);
}

TEST_CASE("host: writeback throttling (wbt) sets how much a journal commit waits for", "[model][host]") {
  // Linux's depths (block/blk-wbt.c): a loop device (queue depth 128) goes 4, 8,
  // 16, 24 background requests in its first 100 ms windows of writeback (seen
  // with the wbt_step tracepoint on the hostcache rig), 256 goes on to 48, a
  // USB stick's depth 1 stays at 1.
  for (int w : {0, 1, 2, 3, 4, 9}) CHECK(HostCache::wbt_depth(128, w, true) == std::vector{4, 8, 16, 24, 24, 24}[std::min(w, 5)]);
  for (int w : {0, 1, 2, 3, 4, 5}) CHECK(HostCache::wbt_depth(256, w, true) == std::vector{4, 8, 16, 31, 48, 48}[w]);
  for (int w : {0, 3}) CHECK(HostCache::wbt_depth(1, w, true) == 1);
  CHECK(HostCache::wbt_depth(32, 0, true) == 4);
  CHECK(HostCache::wbt_depth(32, 5, true) == 6);
  // Unmarked writeback (ext4) gets wbt's normal depth: the wbt_step tracepoint on
  // the rig's loop device printed normal=8, 16, 31, 48 beside background=4, 8, 16, 24.
  for (int w : {0, 1, 2, 3, 4}) CHECK(HostCache::wbt_depth(128, w, false) == std::vector{8, 16, 31, 48, 48}[w]);
  for (int w : {0, 3}) CHECK(HostCache::wbt_depth(1, w, false) == 2);
  // Flat out into the page cache over a 100 MB/s device, 8 MiB chunks: each
  // commit (every second) waits for what the queue holds when it starts.
  auto worst_commit_wait = [](const char* wbt, const char* fs = "journal_commit_ms = 1000") {
    Profile q = make("sustained_mbps = 100", fs,
                     fmt::format("dirty_limit_bytes = 64e6\nmemory_mbps = 1000\nwriteback_chunk_bytes = 8388608\n{}", wbt));
    ModelDevice d(q);
    return worst_flat_out_call(d, 400);
  };
  double chunk = worst_commit_wait("");
  double loop = worst_commit_wait("wbt_queue_depth = 128\nwriteback_request_bytes = 1310720");
  double usb = worst_commit_wait("wbt_queue_depth = 1\nwriteback_request_bytes = 122880");
  // ext4 does not mark its writeback as background: wbt lets twice as many requests
  // in flight, 48 of 1.25 MiB (63 MB, 0.63 s), and a commit waits behind them.
  double loop_ext4 = worst_commit_wait("wbt_queue_depth = 128\nwriteback_request_bytes = 1310720",
                                       "journal_commit_ms = 1000\nwriteback_background = 0");
  INFO(fmt::format("chunk {} loop {} usb {} loop, unmarked writeback {}", chunk, loop, usb, loop_ext4));
  CHECK(loop_ext4 > 0.5);
  CHECK(loop_ext4 < 0.66);
  CHECK(chunk > 0.05);   // one 8 MiB chunk: 84 ms, less what was done since
  CHECK(chunk < 0.09);
  CHECK(loop > 0.25);    // 24 requests of 1.25 MiB: 31 MiB, 315 ms
  CHECK(loop < 0.33);
  CHECK(usb < 0.015);    // one 120 KiB request in flight (1.2 ms) after the throttle's own
                         // wait for room for the 1 MiB write (10.5 ms)
}

TEST_CASE("host: below the background level dirty data waits, then goes down in chunks or when it expires",
          "[model][host]") {
  // 1 MB every 0.1 s (10 MB/s) into a cache with an 8 MB background level
  // and 4 MiB chunks over a 100 MB/s device.
  Profile p = make("sustained_mbps = 100", "",
                   "dirty_limit_bytes = 100e6\nmemory_mbps = 1000\ndirty_background_bytes = 8e6\n"
                   "writeback_chunk_bytes = 4194304\ndirty_expire_ms = 30000\n"
                   "writeback_interval_ms = 0");  // expired data goes at once (no flusher period, no phase)
  ModelDevice d(p);
  d.submit({OpKind::Create, 1}, 0);
  double max_dirty = 0, min_dirty_late = 1e18;
  for (uint64_t i = 0; i < 100; ++i) {
    double now = 0.1 * static_cast<double>(i);
    d.submit({OpKind::Write, 1, i * 1000000, 1000000}, now);
    double dirty = d.state(now + 0.05).dirty_bytes;
    max_dirty = std::max(max_dirty, dirty);
    if (i > 20) min_dirty_late = std::min(min_dirty_late, dirty);
  }
  // Dirty data builds up to the background level and is sent down in chunks:
  // it never exceeds the level by more than what arrived meanwhile, and never
  // falls far below the level minus one chunk.
  CHECK(max_dirty <= 8e6 + 1e6 + 1);
  CHECK(min_dirty_late >= 8e6 - 4194304.0 - 1e6);
  // A slow writer under the background level: its data goes down only when 30 s old.
  ModelDevice slow(p);
  slow.submit({OpKind::Create, 1}, 0);
  slow.submit({OpKind::Write, 1, 0, 1000000}, 0);
  CHECK(slow.state(29.0).dirty_bytes == Approx(1e6));
  CHECK(slow.state(30.5).dirty_bytes == 0);
  // fsync sends everything down at once.
  slow.submit({OpKind::Write, 1, 1000000, 1000000}, 31);
  auto f = slow.submit({OpKind::Fsync, 1}, 31.1);
  CHECK(f.done == Approx(31.11).margin(0.002));
}

TEST_CASE("host: below the background level an expired file goes down whole at the flusher's wake-up",
          "[model][host]") {
  // 1 MB every 0.2 s (5 MB/s) for 60 s into a cache whose background level
  // (400 MB) is never reached, over a 30 MB/s device. Linux writes nothing
  // until the file's first dirty data is 30 s old, then, at the flusher's
  // next 5 s wake-up, the whole file (not only its expired pages), until it
  // is clean; the next dirty data starts a new 30 s.
  Profile p = make("sustained_mbps = 30", "",
                   "dirty_limit_bytes = 800e6\nmemory_mbps = 1000\ndirty_background_bytes = 400e6\n"
                   "writeback_chunk_bytes = 4194304\ndirty_expire_ms = 30000\nwriteback_interval_ms = 5000");
  ModelOptions fixed;
  fixed.stalls = false;  // the flusher's timer at phase 0 (seeds draw it otherwise, see below)
  ModelDevice d(p, fixed);
  d.submit({OpKind::Create, 1}, 0);
  std::vector<double> dirty;  // after each write
  for (uint64_t i = 0; i < 300; ++i) {
    double now = 0.2 * static_cast<double>(i) + 0.1;
    d.submit({OpKind::Write, 1, i * 1000000, 1000000}, now);
    dirty.push_back(d.state(now + 0.01).dirty_bytes);
  }
  // Nothing goes down before the wake-up at 35 s (first dirty at 0.1 s + 30 s, rounded up to 5 s).
  CHECK(dirty[170] == Approx(171e6));  // t = 34.1 s
  // By 43 s the 175 MB dirty at 35 s and what came since are down (30 MB/s
  // against 5 MB/s arriving: 7 s), so about a chunk is dirty; at 39 s
  // about 175 + 20 - 120 MB still were.
  CHECK(dirty[195] > 60e6);             // t = 39.1 s
  CHECK(dirty[215] < 2 * 4194304.0);  // t = 43.1 s: a chunk in flight and what came meanwhile
  // The file went clean, so the next data waits for its own 30 s again.
  CHECK(dirty[295] > 60e6);  // t = 59.1 s
  // A background level at or above the hard limit counts as half of it (Linux).
  Profile h = make("sustained_mbps = 30", "",
                   "dirty_limit_bytes = 20e6\nmemory_mbps = 1000\ndirty_background_bytes = 40e6");
  ModelDevice e(h);
  e.submit({OpKind::Create, 1}, 0);
  for (uint64_t i = 0; i < 15; ++i) e.submit({OpKind::Write, 1, i * 1000000, 1000000}, 0.01 * static_cast<double>(i));
  CHECK(e.state(0.5).dirty_bytes < 11e6);  // over 10 MB (half of 20) writeback starts at once
}

TEST_CASE("host: each seed draws the phase of the kernel's flusher timer", "[model][host]") {
  // The flusher wakes every 5 s whatever the recorder does, so the first
  // expired write-back lands anywhere in the 5 s after the data expired.
  Profile p = make("sustained_mbps = 30", "",
                   "dirty_limit_bytes = 800e6\nmemory_mbps = 1000\ndirty_background_bytes = 400e6\n"
                   "dirty_expire_ms = 30000\nwriteback_interval_ms = 5000");
  std::set<int> starts;  // in 0.25 s steps
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ModelOptions mo;
    mo.seed = seed;
    ModelDevice d(p, mo);
    d.submit({OpKind::Create, 1}, 0);
    d.submit({OpKind::Write, 1, 0, 1000000}, 0);
    double t = 29.75;
    while (t < 36 && d.state(t).dirty_bytes > 0) t += 0.25;
    CHECK(t >= 30.0);
    CHECK(t <= 35.25);
    starts.insert(static_cast<int>(t * 4));
  }
  CHECK(starts.size() >= 8);  // spread over the 5 s, not one fixed time
}

TEST_CASE("host: writeback goes per file in offset order, not in the order writes were issued",
          "[model][host]") {
  // A one-file-per-channel recorder: 8 files, 64 KiB to each in turn, 16
  // rounds (8 MiB), all in the cache; every change of file costs the device
  // 10 ms. Linux's per-inode writeback sends each file's dirty pages in offset
  // order, so the device sees one long request per file, not 128 short ones.
  Profile p = make("sustained_mbps = 100\nseek_penalty_us = 10000", "",
                   "dirty_limit_bytes = 100e6\nmemory_mbps = 2000\nwriteback_chunk_bytes = 1048576");
  ModelDevice d(p);
  for (FileId f = 1; f <= 8; ++f) d.submit({OpKind::Create, f}, 0);
  double t = 0;
  const uint64_t piece = 65536;
  for (uint64_t round = 0; round < 16; ++round)
    for (FileId f = 1; f <= 8; ++f) t = d.submit({OpKind::Write, f, round * piece, piece}, t).done;
  double fsync = d.submit({OpKind::Fsync, 1}, t).done;
  // Writeback starts with the first 64 KiB (nothing else is dirty yet); by
  // the time it ends every write is in the cache, so files 2..8 go as one
  // 1 MiB request each and file 1's remaining 960 KiB as one: 9 requests.
  double per_file = 9 * 0.010 + 8.0 * 1048576 / 100e6;
  double issue_order = 128 * 0.010 + 8.0 * 1048576 / 100e6;
  INFO("fsync done at " << fsync << " s; per-file order " << per_file << " s, issue order " << issue_order << " s");
  CHECK(fsync == Approx(per_file).epsilon(0.02));
  // One file written sequentially is unaffected: contiguous data merges as before.
  ModelDevice one(p);
  one.submit({OpKind::Create, 1}, 0);
  t = 0;
  for (uint64_t i = 0; i < 128; ++i) t = one.submit({OpKind::Write, 1, i * piece, piece}, t).done;
  double seq = one.submit({OpKind::Fsync, 1}, t).done;
  CHECK(seq == Approx(0.010 + 8.0 * 1048576 / 100e6).epsilon(0.02));  // one seek: the rest continues it
}

TEST_CASE("analytic rates agree with the simulated sequential writer", "[model][analytic]") {
  for (const char* spec : {"crio-9014", "rpi4-buster+exfat-fuse+sandisk-ultrafit-16g",
                           "rpi4-buster+fat32+teamgroup-sx2-usb2", "usrp-2974"}) {
    auto lp = load_profile(spec);
    REQUIRE(lp.ok());
    Profile p = *lp;
    for (uint64_t b : {65536ull, 1048576ull, 8388608ull}) {
      ModelDevice d(p, {.seed = 1, .stalls = false});
      VirtualClock clock;
      SequentialWrite w;
      w.block_bytes = b;
      w.direct = true;
      w.count = std::max<uint64_t>(64, 256 * 1048576 / b);
      // Start past the burst cache so both measure the sustained phase.
      d.device_layer().set_burst_level(p.params(Layer::Device).get("burst_bytes"));
      auto r = run_sequential_write(d, clock, w);
      double simulated = r.bytes / (r.end - r.start);
      INFO(spec << " block " << b);
      CHECK(write_rate(p, static_cast<double>(b), Phase::Sustained, true) == Approx(simulated).epsilon(0.02));
    }
  }
}
