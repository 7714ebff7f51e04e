// The simulator against the documents' recordings (docs/sources.md). Numbers
// come from running the recorder on the built-in profiles; the documents'
// figures are the expectations, with the tolerances stated in each test.
#include <catch2/catch.hpp>

#include "builtin_profile.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/analytic.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "short_run.h"
#include "sim/capacity.h"
#include "sim/recorder.h"
#include "sim/seed_pool.h"
#include "sim/spread.h"
#include "sim/verdict.h"

using namespace sd;

namespace {

RecorderResult record_doc(const Profile& p, const RecorderConfig& c, uint64_t seed = 1) {
  ModelOptions mo;
  mo.seed = seed;
  ModelDevice dev(p, mo);
  VirtualClock clock;
  auto r = run_recorder(dev, clock, c);
  REQUIRE(r.ok());
  return *r;
}

// Document 003's recorder (Z-LiveRec) writes W64. Its sample rate and width
// are not stated; ASSUMPTION: 48 kHz, 16-bit, which matches "about 22 GB for
// 1.5 h of 48 channels" (24.9 GB). The table gives the recording's size, so
// the duration is size / data rate. The writer drains half the buffer per
// block (our recorder's default; Z-LiveRec's is not stated).
RecorderConfig doc003(uint32_t channels, double gb, uint64_t buffer) {
  RecorderConfig c;
  c.stream = {channels, 48000, 16, false};
  c.format = FormatKind::W64;
  c.buffer_bytes = buffer;
  c.duration_s = gb * 1e9 / c.stream.bytes_per_second();
  return c;
}

struct Row {
  const char* spec;
  double gb;
  uint64_t buffer;
  uint32_t channels;
  int overruns;  // document 003's count
};

const char* kUltraFitExfat = "rpi4-buster+exfat-fuse+sandisk-ultrafit-16g";
const char* kUltraFitNtfs = "rpi4-buster+ntfs-3g+sandisk-ultrafit-16g";


// The spread of a model mean over `seeds` stall seeds, over the ranges of the
// profile's estimates (sim/spread.h, corner bounds). Runs on a pool; no
// Catch2 macros in the workers.
Spread mean_overrun_spread(const Profile& p, const RecorderConfig& c, int seeds) {
  auto s = propagate(p, [&](const std::vector<const Profile*>& batch) -> Result<std::vector<double>> {
    std::vector<double> counts(batch.size() * seeds, 0);
    std::vector<char> failed(counts.size(), 0);
    SeedPool pool;
    pool.run(
        counts.size(),
        [&](size_t j) {
          ModelOptions mo;
          mo.seed = 1 + j % seeds;
          ModelDevice dev(*batch[j / seeds], mo);
          VirtualClock clock;
          auto r = run_recorder(dev, clock, c);
          if (r) counts[j] = static_cast<double>(r->overrun_events);
          else failed[j] = 1;
        },
        [](size_t) { return true; }, SIZE_MAX);
    std::vector<double> out(batch.size(), 0);
    for (size_t j = 0; j < counts.size(); ++j) {
      if (failed[j]) return Result<std::vector<double>>::error("a recorder run failed");
      out[j / seeds] += counts[j] / seeds;
    }
    return out;
  });
  REQUIRE(s.ok());
  return *s;
}

// P(X <= k) for X ~ Poisson(lambda).
double poisson_cdf(int k, double lambda) {
  if (k < 0) return 0;
  double term = std::exp(-lambda), sum = term;
  for (int i = 1; i <= k; ++i) sum += term *= lambda / i;
  return std::min(1.0, sum);
}

}  // namespace

TEST_CASE("document 003: each row of the overrun table lies in the spread the profile ranges predict",
          "[documents][doc003]") {
  // Per-row tolerance: the model predicts the mean count lambda of a
  // recording; the ranges of the profile's estimates (docs/profiles.md,
  // "Ranges") give lambda in [low, high] (corner bounds, each evaluation the
  // mean of seeds 1-3). The document counted one recording: a Poisson(lambda)
  // draw. A row is accepted when its count is a plausible draw (two-sided
  // 95 %) from some lambda in the propagated range: P(X >= n | high) >= 2.5 %
  // and P(X <= n | low) >= 2.5 %. The range is therefore exactly the spread
  // the ranges predict plus the document's own counting noise, and no wider.
  const Row rows[] = {{kUltraFitExfat, 6, 1 << 20, 48, 6},
                      {kUltraFitExfat, 4, 1 << 20, 18, 3},
                      {kUltraFitExfat, 4, 256 << 10, 18, 1},
                      {kUltraFitExfat, 16, 256 << 10, 18, 16},
                      {kUltraFitExfat, 16, 128 << 10, 48, 17}};
  auto p = sd_test::builtin_profile(kUltraFitExfat);
  for (int i = 0; i < sd_test::sets(5, 2); ++i) {
    const Row& row = rows[i];
    Spread s = mean_overrun_spread(p, doc003(row.channels, row.gb, row.buffer), 3);
    double p_high = 1 - poisson_cdf(row.overruns - 1, s.high);  // P(X >= n) at the high end
    double p_low = poisson_cdf(row.overruns, s.low);             // P(X <= n) at the low end
    INFO(row.channels << " ch, " << row.gb << " GB, buffer " << row.buffer << ": document " << row.overruns
                      << ", model " << s.nominal << " (range " << s.low << " - " << s.high << "); P(X >= n | high) "
                      << p_high << ", P(X <= n | low) " << p_low
                      << (s.decisive() ? "; decided by " + s.decisive()->param.name() : ""));
    CHECK(s.nominal >= 1);  // the profile's own values overrun in every row
    CHECK(p_high >= 0.025);
    CHECK(p_low >= 0.025);
  }
}

TEST_CASE("document 003: fewer channels - the problem disappears (8 channels clean, 12 and 18 not)",
          "[documents][doc003]") {
  // "If selecting less channels - the problem disappears." The document does
  // not say how many; docs/tutorials/003 takes 8 (under half of 18, the
  // smallest count its table shows failing; a common small interface).
  // 1.5 h at 48 kHz, 16-bit, W64, 1 MiB buffer, the setup of the table.
  auto p = sd_test::builtin_profile(kUltraFitExfat);
  auto c = [](uint32_t ch) {
    RecorderConfig r = doc003(ch, 1, 1 << 20);
    r.duration_s = 5400;
    return r;
  };
  int clean8 = 0, clean18 = 0;
  for (int s = 1; s <= 10; ++s) {
    clean8 += record_doc(p, c(8), s).overrun_events == 0;
    clean18 += record_doc(p, c(18), s).overrun_events == 0;
  }
  INFO("clean 1.5 h recordings of 10 seeds: 8 channels " << clean8 << ", 18 channels " << clean18);
  CHECK(clean8 >= 9);
  CHECK(clean18 <= 1);
  // Over the ranges too: at the profile's values 8 channels are clean; the
  // worst corner may not be (that is the spread, and the tutorial shows it).
  Spread s8 = mean_overrun_spread(p, c(8), 3);
  Spread s18 = mean_overrun_spread(p, c(18), 3);
  INFO("8 ch: " << s8.nominal << " (" << s8.low << " - " << s8.high << "); 18 ch: " << s18.nominal << " ("
                << s18.low << " - " << s18.high << ")");
  CHECK(s8.nominal < 0.5);
  CHECK(s18.low >= 1);  // 18 channels overrun at every end of every range
}

TEST_CASE("document 003: CAF vs W64 - header updates cost W64 stick time, not overruns (docs/tutorials/003)",
          "[documents][doc003]") {
  // The documented difference (Apple's CAF spec; docs/sources.md: apple caf):
  // a WAV-family writer that keeps its file readable rewrites the header
  // while recording, a CAF writer leaves the data size at -1. Modelled by
  // header_every_frames (CAF ignores it). The tutorial's finding: W64 pays
  // extra out-of-place writes, but the overruns come from the exfat-fuse
  // pauses, so the model does not reproduce "CAF runs more smooth" as fewer
  // overruns. This test pins that finding so a change to it is noticed.
  auto p = sd_test::builtin_profile(kUltraFitExfat);
  RecorderConfig w64 = doc003(12, 1, 1 << 20);
  w64.duration_s = 5400;
  w64.header_every_frames = 4800;  // every 100 ms
  RecorderConfig caf = w64;
  caf.format = FormatKind::Caf;
  uint64_t w64_over = 0, caf_over = 0;
  for (int s = 1; s <= 4; ++s) {
    auto rw = record_doc(p, w64, s), rc = record_doc(p, caf, s);
    INFO("seed " << s << ": W64 " << rw.overrun_events << " overruns, " << rw.other_bytes << " header bytes; CAF "
                 << rc.overrun_events << ", " << rc.other_bytes);
    CHECK(rw.other_bytes > 100 * rc.other_bytes);  // the rewrites happen, only in W64
    w64_over += rw.overrun_events, caf_over += rc.overrun_events;
  }
  INFO("overruns over 4 seeds: W64 " << w64_over << ", CAF " << caf_over);
  CHECK(caf_over <= w64_over);      // CAF is never worse
  CHECK(w64_over <= caf_over + 2);  // and W64 is not much worse: the pauses decide
}

TEST_CASE("document 003: NTFS records 18 channels clean but overruns at 32, the Extreme Go on kernel exFAT is clean",
          "[documents][doc003]") {
  Profile ntfs = sd_test::builtin_profile(kUltraFitNtfs);
  Profile bullseye = sd_test::builtin_profile("rpi4-bullseye-extremego-exfat");
  for (int s = 1; s <= 4; ++s) {
    INFO("seed " << s);
    CHECK(record_doc(ntfs, doc003(18, 16, 1 << 20), s).overrun_events == 0);
    CHECK(record_doc(bullseye, doc003(18, 15, 1 << 20), s).overrun_events == 0);
  }
  // The 32-channel rows: the same per-row tolerance as the Ultra Fit exFAT
  // table (the propagated spread of the mean, plus the document's Poisson
  // counting noise, two-sided 95 %).
  const Row rows[] = {{kUltraFitNtfs, 16, 1 << 20, 32, 10}, {"rpi4-buster+ntfs-3g+teamgroup-sx2-usb2", 22, 1 << 20, 32, 8}};
  for (const Row& row : rows) {
    Spread s = mean_overrun_spread(sd_test::builtin_profile(row.spec), doc003(row.channels, row.gb, row.buffer), 3);
    INFO(row.spec << " 32 ch: document " << row.overruns << ", model " << s.nominal << " (range " << s.low << " - "
                  << s.high << ")");
    CHECK(1 - poisson_cdf(row.overruns - 1, s.high) >= 0.025);
    CHECK(poisson_cdf(row.overruns, s.low) >= 0.025);
  }
}

TEST_CASE("document 003: a faster stick removes the overruns (capacity search)", "[documents][doc003]") {
  RecorderConfig c = doc003(1, 16, 1 << 20);
  c.duration_s = 1800;
  CapacityQuery q;
  q.base = c;
  q.probes = {18};
  auto slow = find_capacity(sd_test::builtin_profile(kUltraFitExfat), q);
  auto fast = find_capacity(sd_test::builtin_profile("rpi4-bullseye-extremego-exfat"), q);
  REQUIRE(slow.ok());
  REQUIRE(fast.ok());
  INFO("Ultra Fit / exfat-fuse: " << slow->best << " channels; Extreme Go / kernel exFAT: " << fast->best);
  CHECK(fast->best >= 48);     // document: 18 clean, and a 48-channel stream is 4.6 MB/s against its 12.6 MB/s
  CHECK(slow->best < 18);      // document: 18 channels overrun
  REQUIRE(slow->probes.size() == 1);
  CHECK(slow->probes[0].probability() > 0);
}

// Document 002: the USRP-2974 records IQ as 16-bit I + 16-bit Q, modelled as
// 2 channels x 16 bits, so 160 MHz is 640 MB/s. Ring buffer 256 MiB (ASSUMED:
// the document does not give LabVIEW's buffer), blocks of half that.
TEST_CASE("document 002: 160 MHz overruns once TurboWrite is spent, about 60 MHz is the ceiling",
          "[documents][doc002]") {
  auto p = sd_test::builtin_profile("usrp-2974");
  RecorderConfig c;
  c.stream = {2, 160e6, 16, false};
  c.buffer_bytes = 256ull << 20;
  c.duration_s = 120;
  auto r = record_doc(p, c);
  REQUIRE(r.first_overrun_s);
  // The document: 1300-1600 MB/s for the first ~10 s when writing flat out,
  // i.e. a 13-16 GB cache. At 640 MB/s it lasts 13 GB / 640 MB/s = 20 s at
  // least, 16 GB / (640 - 300 x (1 - 640/1500)) MB/s = 34 s at most (the
  // cache recovers while the drive idles), then the 256 MiB ring fills in
  // 0.8 s at 640 - 300 MB/s.
  INFO("160 MHz: first overrun after " << *r.first_overrun_s << " s");
  CHECK(*r.first_overrun_s > 20);
  CHECK(*r.first_overrun_s < 36);
  // And it agrees with the analytic cache-exhaustion time of the same profile.
  auto ex = burst_exhaustion(p, 640e6, static_cast<double>(r.block_bytes));
  CHECK(*r.first_overrun_s == Approx(ex.seconds + 256.0 * 1048576 / (640e6 - 300e6)).epsilon(0.1));

  // 60 MHz (240 MB/s) records cleanly for 10 minutes.
  c.stream.sample_rate = 60e6;
  c.duration_s = 600;
  CHECK(recording_ok(record_doc(p, c)));

  // The highest clean rate over 10 minutes: the sustained 300 MB/s is 75 MHz;
  // the document's conclusion is "about 60 MHz".
  c.stream.sample_rate = 1e6;
  CapacityQuery q;
  q.base = c;
  q.target = CapacityTarget::SampleRate;
  auto cap = find_capacity(p, q);
  REQUIRE(cap.ok());
  INFO("highest clean sample rate: " << cap->best / 1e6 << " MHz");
  CHECK(cap->best >= 60e6);
  CHECK(cap->best <= 76e6);

  // Over the ranges of the estimates (the sustained rate is only "about 300
  // MB/s"), the document's own "about 60 MHz" lies inside the answer's range.
  // The document counts 5 bytes per Hz of bandwidth (1900 MB/s "enough for 380
  // MHz", 300 MB/s "about 60 MHz"): 4-byte IQ samples at 1.25 samples per Hz,
  // so its 60 MHz of bandwidth is 75 MS/s here, 300 MB/s.
  auto sp = propagate(p, [&](const std::vector<const Profile*>& batch) -> Result<std::vector<double>> {
    std::vector<CapacityQuery> qs(batch.size(), q);
    std::vector<double> out;
    for (auto& r : find_capacities(batch, qs)) {
      if (!r) return r.status();
      out.push_back(r->best);
    }
    return out;
  });
  REQUIRE(sp.ok());
  INFO("range " << sp->low / 1e6 << " - " << sp->high / 1e6 << " MHz, most likely " << sp->nominal / 1e6);
  CHECK(sp->low <= 60e6 * 1.25);
  CHECK(sp->high >= 60e6 * 1.25);
  CHECK(sp->high - sp->low < 0.5 * sp->nominal);  // and the range says something
  CHECK(sp->nominal == cap->best);
  REQUIRE(sp->decisive());
  CHECK(sp->decisive()->param.name() == "device.sustained_mbps");
}

// Document 000: NI's method, the writer never waits for data: a producer far
// faster than the disk, 1 MiB blocks, 30 s; the rate is what reached the disk.
TEST_CASE("document 000: binary is 20-30 % faster than TDMS, more channels are slower at equal block size",
          "[documents][doc000]") {
  auto rate = [](const Profile& p, FormatKind f, uint32_t ch) {
    RecorderConfig c;
    c.stream = {ch, 80e6 / ch, 64, true};  // 640 MB/s of DBL waveforms: always ahead of the disk
    c.format = f;
    c.buffer_bytes = 2ull << 20;
    c.block_bytes = 1ull << 20;
    c.duration_s = 30;
    auto r = record_doc(p, c);
    return static_cast<double>(r.payload_bytes) / (r.end_s - r.start_s);
  };
  // The document's own ratios: 2.0/1.8 = 1.11, 4.0/3.3 = 1.21, 6.3/4.6 = 1.37.
  double sum = 0;
  for (const char* name : {"crio-9074", "crio-9014", "crio-9022"}) {
    auto p = sd_test::builtin_profile(name);
    double bin = rate(p, FormatKind::Raw, 4), tdms = rate(p, FormatKind::Tdms, 4);
    INFO(name << ": binary " << bin / 1e6 << " MB/s, TDMS " << tdms / 1e6 << " MB/s");
    CHECK(bin / tdms >= 1.10);
    CHECK(bin / tdms <= 1.40);
    sum += bin / tdms;
    double tdms32 = rate(p, FormatKind::Tdms, 32);
    CHECK(tdms32 < tdms);
  }
  CHECK(sum / 3 >= 1.15);
  CHECK(sum / 3 <= 1.35);
}

// Document 000, Figure 2: the same 1 MB TDMS block split into 4, 8, 16 and 32
// channels writes slower with every doubling. The text gives no figure, so
// host.per_channel_us is an estimate (2 ms on the 9014, docs/profiles.md):
// the test checks the curve's order, that the modelled slowdown is what that
// parameter and the TDMS metadata account for, and its size (about 15 % from
// 4 to 32 channels on the 9014).
TEST_CASE("document 000: more channels are slower at equal block size, by the per-channel cost",
          "[documents][doc000]") {
  auto p = sd_test::builtin_profile("crio-9014");
  auto rate = [&](const Profile& prof, uint32_t ch) {
    RecorderConfig c;
    c.stream = {ch, 80e6 / ch, 64, true};  // always ahead of the disk: NI's method
    c.format = FormatKind::Tdms;
    c.buffer_bytes = 2ull << 20;
    c.block_bytes = 1ull << 20;
    c.duration_s = 30;
    auto r = record_doc(prof, c);
    return std::make_pair(static_cast<double>(r.payload_bytes) / (r.end_s - r.start_s), r);
  };
  double per_ch = p.params(Layer::Host).get("per_channel_us") * 1e-6;
  REQUIRE(per_ch > 0);
  double last = INFINITY;
  for (uint32_t ch : {4u, 8u, 16u, 32u}) {
    double r = rate(p, ch).first;
    INFO(ch << " channels: " << r / 1e6 << " MB/s");
    CHECK(r < last);
    last = r;
  }
  auto [r4, run4] = rate(p, 4);
  auto [r32, run32] = rate(p, 32);
  double slowdown = 1 - r32 / r4;
  INFO("4 -> 32 channels at 1 MiB: " << 100 * slowdown << " % slower");
  CHECK(slowdown > 0.12);
  CHECK(slowdown < 0.30);
  // Seconds per block: the difference is 28 channel arrays' cost, plus the
  // segment metadata the extra channels add (the same profile without the
  // parameter shows that part alone).
  auto seconds_per_block = [](double rate_bps) { return (1 << 20) / rate_bps; };
  auto loaded = load_profile("crio-9014", {"host.per_channel_us=0"});
  REQUIRE(loaded.ok());
  const Profile& bare = *loaded;
  double meta = seconds_per_block(rate(bare, 32).first) - seconds_per_block(rate(bare, 4).first);
  double extra = seconds_per_block(r32) - seconds_per_block(r4);
  INFO("per block: " << extra * 1e3 << " ms more at 32 channels; metadata alone " << meta * 1e3 << " ms; 28 x "
                     << per_ch * 1e3 << " ms");
  CHECK(meta >= 0);
  CHECK(extra - meta == Approx(28 * per_ch).epsilon(0.10));
}
