// capacity's criterion, P(>=1 overrun over the recording) < level, against a
// stall process whose probability is known in closed form, and its
// statistics, early stopping and thread independence. Virtual time only.
#include <catch2/catch.hpp>

#include "builtin_profile.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "models/profile.h"
#include "short_run.h"
#include "sim/capacity.h"
#include "sim/overrun_stats.h"
#include "sim/seed_pool.h"

using namespace sd;

namespace {

// A fast device (1000 MB/s, no cache anywhere) whose only trouble is device
// stalls arriving as a Poisson process in bytes, one every `interval_mb` MB
// on average, each 30 s long: far longer than a 1 MiB ring lasts at a few
// MB/s, so every stall during the acquisition is an overrun. The chance of a
// clean run that writes W MB is then exp(-W / interval_mb): P(>=1 overrun)
// = 1 - exp(-W / interval_mb), exactly, up to stalls in the last second
// (the ring still holds them) which we allow for in the tolerance.
Profile stall_profile(double interval_mb) {
  std::string text = "format_version = 1\nname = \"poisson-stalls\"\n[device.params]\nsustained_mbps = 1000\n"
                     "stall_interval_mb = " + std::to_string(interval_mb) +
                     "\nstall_duration_ms = 30000\nstall_duration_sigma = 0\n";
  auto p = parse_profile_text(text, "test");
  REQUIRE(p.ok());
  Profile out = *p;
  REQUIRE(out.finish().ok());
  return out;
}

// 1 channel x 16-bit raw; the searched quantity replaces what needs replacing.
RecorderConfig recording(double rate, double seconds) {
  RecorderConfig c;
  c.stream = {1, rate, 16, false};
  c.format = FormatKind::Raw;
  c.buffer_bytes = 1 << 20;
  c.duration_s = seconds;
  return c;
}

// The cRIO-9014 case: 32-bit at 51.2 kHz for 10 min, no random stalls (an exact answer).
CapacityQuery crio_query() {
  CapacityQuery q;
  q.base = recording(51200, 600);
  q.base.stream.sample_bits = 32;
  return q;
}

double p_true(double megabytes, double interval_mb) { return 1 - std::exp(-megabytes / interval_mb); }

void same(const CandidateStats& a, const CandidateStats& b) {
  CHECK(a.value == b.value);
  CHECK(a.seeds == b.seeds);
  CHECK(a.seeds_with_overrun == b.seeds_with_overrun);
  CHECK(a.pass == b.pass);
}

}  // namespace

TEST_CASE("overrun statistics: Clopper-Pearson bounds and the 59-seed rule", "[capacity][stats]") {
  // The rule of three's exact form: 0 of n bounds p below 5 % at 95 % only from n = 59.
  CHECK(seeds_to_settle_below(0.05, 0.95) == 59);
  // A level too small for an int count of seeds saturates (it overflowed, then looped for minutes).
  constexpr int kMaxSeeds = std::numeric_limits<int>::max() / 3;
  CHECK(seeds_to_settle_below(1e-9, 0.95) == kMaxSeeds);
  CHECK(seeds_to_settle_below(1e-300, 0.95) == kMaxSeeds);
  CHECK(seeds_to_settle_below(1e-6, 0.95) < kMaxSeeds);
  CHECK(clopper_pearson(0, 59, 0.95).high < 0.05);
  CHECK(clopper_pearson(0, 58, 0.95).high > 0.05);
  CHECK(compare_to_level(0, 59, 0.05, 0.95) == Side::Below);
  CHECK(compare_to_level(0, 58, 0.05, 0.95) == Side::Open);
  // Two overruns in two seeds already put p above 5 %; one in one does not.
  CHECK(compare_to_level(1, 1, 0.05, 0.95) == Side::Open);
  CHECK(compare_to_level(2, 2, 0.05, 0.95) == Side::Above);
  // The textbook 95 % two-sided interval for 5 of 20 (97.5 % each side): [0.0866, 0.4910].
  Interval i = clopper_pearson(5, 20, 0.975);
  CHECK(i.low == Approx(0.0866).margin(5e-4));
  CHECK(i.high == Approx(0.4910).margin(5e-4));
  // compare_to_level agrees with the bounds it avoids computing.
  for (int n : {1, 7, 30, 100})
    for (int k = 0; k <= n; k += std::max(1, n / 7)) {
      Interval b = clopper_pearson(k, n, 0.95);
      Side s = compare_to_level(k, n, 0.05, 0.95);
      INFO(k << "/" << n << ": [" << b.low << ", " << b.high << "]");
      CHECK((s == Side::Below) == (b.high < 0.05));
      CHECK((s == Side::Above) == (b.low > 0.05));
    }
  CHECK(binomial_cdf(3, 10, 0.5) == Approx(176.0 / 1024));
}

TEST_CASE("seed pool: results consumed in order whatever the thread count", "[capacity][threads]") {
  for (unsigned threads : {1u, 2u, 5u}) {
    SeedPool pool(threads);
    std::vector<int> out(100, -1), seen;
    std::atomic<int> ran{0};
    size_t n = pool.run(
        out.size(), [&](size_t i) { out[i] = static_cast<int>(i * i), ++ran; },
        [&](size_t i) {
          seen.push_back(out[i]);
          return i < 41;  // stop after job 41
        });
    CHECK(n == 42);
    REQUIRE(seen.size() == 42);
    for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == static_cast<int>(i * i));
    CHECK(ran.load() >= 42);
    CHECK(ran.load() <= 42 + static_cast<int>(threads));
    // The pool runs the next job set after a stopped one.
    CHECK(pool.run(3, [&](size_t i) { out[i] = -7; }, [&](size_t i) { return out[i] == -7; }) == 3);
  }
}

TEST_CASE("capacity criterion: P(>=1 overrun) matches a stall process known in closed form", "[capacity]") {
  // 2 MB/s for 60 s = 120 MB per run; a stall every 400 MB: P = 1 - exp(-0.3) = 0.259.
  const double interval = 400;
  Profile p = stall_profile(interval);
  CapacityQuery q;
  q.base = recording(1e6, 60);  // 1 channel x 1 M frames/s x 2 B = 2 MB/s
  q.probes = {1};
  q.criterion.max_seeds = 400;
  q.criterion.early_stop = false;  // all 400 seeds: an estimate, not a decision
  // A 95 % band misses the truth for 1 seed set in 20; this one must hold for
  // any seed set a change of the generator brings, so it is a 99.9 % band.
  q.criterion.confidence = 0.999;
  q.max_channels = 1;
  auto r = find_capacity(p, q);
  REQUIRE(r.ok());
  REQUIRE(r->probes.size() == 1);
  const CandidateStats& s = r->probes[0].stats;
  double truth = p_true(120, interval), truth_lo = p_true(118, interval);  // the last second may not overrun
  INFO(s.seeds_with_overrun << "/" << s.seeds << " = " << s.probability() << ", bounds [" << s.p.low << ", "
                            << s.p.high << "], closed form " << truth);
  CHECK(s.seeds == 400);
  CHECK(s.p.low < truth);
  CHECK(s.p.high > truth_lo);
  CHECK(s.probability() == Approx(truth).margin(0.066));  // 400 seeds: sd 0.022, 3 sd
  CHECK(s.side == Side::Above);
}

TEST_CASE("capacity criterion: the answer brackets the closed-form rate where P crosses 5 %", "[capacity]") {
  // 100 s recordings, a stall every 2000 MB: P < 5 % while W < -2000 ln(0.95) = 102.6 MB,
  // i.e. below 1.026 MB/s = 513 k frames/s of 16-bit mono.
  const double interval = 2000, seconds = 100;
  double rate_star = -interval * std::log(0.95) * 1e6 / seconds / 2;
  Profile p = stall_profile(interval);
  CapacityQuery q;
  q.base = recording(48000, seconds);
  q.target = CapacityTarget::SampleRate;
  auto r = find_capacity(p, q);
  REQUIRE(r.ok());
  REQUIRE(r->found);
  double below = 0, above = INFINITY;  // highest settled below, lowest settled above
  for (const auto& c : r->candidates) {
    if (c.side == Side::Below) below = std::max(below, c.value);
    if (c.side == Side::Above) above = std::min(above, c.value);
  }
  INFO("answer " << r->best << " frames/s, band " << r->band_low << "-" << r->band_high << ", settled below "
                 << below << ", above " << above << ", closed form " << rate_star << "; " << r->runs << " runs");
  CHECK(below < rate_star);
  CHECK(above > rate_star);
  CHECK(r->band_low <= r->best);
  CHECK(r->band_high >= r->best);
  // The answer's own P, in closed form, is near or below the level (its estimate decided it).
  CHECK(p_true(2 * r->best * seconds / 1e6, interval) < 0.10);
  CHECK(r->at_best.seeds >= 59);
  CHECK(r->at_best.pass);
  // A passing candidate rests on at least 59 seeds; failing ones stop early.
  for (const auto& c : r->candidates) {
    if (c.side == Side::Below) CHECK(c.seeds >= 59);
    if (c.side == Side::Above && p_true(2 * c.value * seconds / 1e6, interval) > 0.9) CHECK(c.seeds <= 3);
  }
}

TEST_CASE("capacity criterion: early stopping gives the answer of the full seed set", "[capacity]") {
  const char* const cases[] = {"poisson", "document 003"};
  for (int i = 0; i < sd_test::sets(2, 1); ++i) {
    const std::string which = cases[i];
    INFO(which);
    CapacityQuery q;
    Profile p = which == "poisson" ? stall_profile(2000) : sd_test::builtin_profile("rpi4-buster-ultrafit-exfat");
    if (which == "poisson") {
      q.base = recording(48000, 100);
      q.target = CapacityTarget::SampleRate;
    } else {
      q.base = recording(48000, 600);
      q.base.format = FormatKind::W64;
    }
    q.criterion.max_seeds = 150;
    auto early = find_capacity(p, q);
    q.criterion.early_stop = false;
    auto full = find_capacity(p, q);
    REQUIRE(early.ok());
    REQUIRE(full.ok());
    INFO("early: " << early->best << " in " << early->runs << " runs; full: " << full->best << " in " << full->runs);
    CHECK(early->best == full->best);
    CHECK(early->runs < full->runs);
  }
}

TEST_CASE("capacity criterion: the thread count does not change any result", "[capacity][threads]") {
  Profile p = sd_test::builtin_profile("rpi4-buster-ultrafit-exfat");
  CapacityQuery q;
  q.base = recording(48000, 900);
  q.base.format = FormatKind::W64;
  q.probes = {4, 12};
  std::vector<CapacityResult> rs;
  const unsigned counts[] = {1, 2, 3, 8};
  for (int i = 0; i < sd_test::sets(4, 2); ++i) {
    const unsigned t = counts[i];
    q.threads = t;
    auto r = find_capacity(p, q);
    REQUIRE(r.ok());
    CHECK(r->threads == t);
    rs.push_back(*r);
  }
  for (size_t i = 1; i < rs.size(); ++i) {
    CHECK(rs[i].best == rs[0].best);
    CHECK(rs[i].band_low == rs[0].band_low);
    CHECK(rs[i].band_high == rs[0].band_high);
    CHECK(rs[i].runs == rs[0].runs);
    REQUIRE(rs[i].candidates.size() == rs[0].candidates.size());
    for (size_t k = 0; k < rs[0].candidates.size(); ++k) same(rs[i].candidates[k], rs[0].candidates[k]);
    REQUIRE(rs[i].probes.size() == rs[0].probes.size());
    for (size_t k = 0; k < rs[0].probes.size(); ++k) same(rs[i].probes[k].stats, rs[0].probes[k].stats);
  }
}

TEST_CASE("capacity criterion: a profile without random stalls needs one exact run per candidate", "[capacity]") {
  Profile p = sd_test::builtin_profile("crio-9014");
  CapacityQuery q = crio_query();
  auto r = find_capacity(p, q);
  REQUIRE(r.ok());
  CHECK_FALSE(r->stalls);
  CHECK(r->max_seeds == 1);
  CHECK(r->runs == r->candidates.size());
  CHECK(r->band_low == r->best);
  CHECK(r->band_high == r->best);
  for (const auto& c : r->candidates) {
    CHECK(c.seeds == 1);
    CHECK(c.side != Side::Open);
    CHECK(c.p.low == c.p.high);
  }
}

TEST_CASE("capacity: several profiles searched at once give the answers of one by one", "[capacity][threads]") {
  std::vector<Profile> ps = {sd_test::builtin_profile("rpi4-buster-ultrafit-exfat"), sd_test::builtin_profile("crio-9014"), sd_test::builtin_profile("usrp-2974")};
  std::vector<const Profile*> ptrs;
  std::vector<CapacityQuery> qs;
  for (const auto& p : ps) {
    CapacityQuery q;
    q.base = recording(48000, 600);
    q.base.format = FormatKind::W64;
    ptrs.push_back(&p);
    qs.push_back(q);
  }
  auto all = find_capacities(ptrs, qs, 3);
  REQUIRE(all.size() == ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    auto one = find_capacity(ps[i], qs[i]);
    REQUIRE(one.ok());
    REQUIRE(all[i].ok());
    CHECK(all[i]->best == one->best);
    CHECK(all[i]->runs == one->runs);
    CHECK(all[i]->candidates.size() == one->candidates.size());
  }
}

TEST_CASE("capacity: speculative candidates on several threads give the sequential search exactly",
          "[capacity][threads]") {
  // Profiles without random stalls run one simulation per candidate; with
  // several threads the search runs the candidates it may ask for next at
  // once (Searcher::prefetch). Everything found must be the 1-thread search's.
  struct Case {
    const char* profile;
    CapacityTarget target;
  };
  const Case cases[] = {{"samsung-870qvo-4t", CapacityTarget::Channels}, {"crio-9014", CapacityTarget::SampleRate},
                        {"usrp-2974", CapacityTarget::Buffer}};
  for (int i = 0; i < sd_test::sets(3, 1); ++i) {
    const Case& k = cases[i];
    INFO(k.profile);
    Profile p = sd_test::builtin_profile(k.profile);
    CapacityQuery q;
    q.base = recording(48000, 120);
    q.base.format = FormatKind::W64;
    q.base.stream.sample_bits = 24;
    q.target = k.target;
    if (k.target == CapacityTarget::Buffer) q.base.stream.channels = 16, q.base.stream.sample_rate = 1e6;
    q.threads = 1;
    auto one = find_capacity(p, q);
    REQUIRE(one.ok());
    REQUIRE_FALSE(one->stalls);
    CHECK(one->wasted_runs == 0);
    for (unsigned t : {2u, 3u}) {
      INFO("threads " << t);
      q.threads = t;
      auto many = find_capacity(p, q);
      REQUIRE(many.ok());
      CHECK(many->best == one->best);
      CHECK(many->found == one->found);
      CHECK(many->limited_by == one->limited_by);
      CHECK(many->runs == one->runs);
      REQUIRE(many->candidates.size() == one->candidates.size());
      for (size_t i = 0; i < one->candidates.size(); ++i) same(many->candidates[i], one->candidates[i]);
      REQUIRE(many->probes.size() == one->probes.size());
      for (size_t i = 0; i < one->probes.size(); ++i) same(many->probes[i].stats, one->probes[i].stats);
    }
  }
}

TEST_CASE("capacity --enough: the search goes no further and an answer there says it is a bound", "[capacity]") {
  Profile p = sd_test::builtin_profile("crio-9014");
  CapacityQuery q = crio_query();
  auto plain = find_capacity(p, q);
  REQUIRE(plain.ok());
  REQUIRE(plain->found);
  REQUIRE(plain->best >= 4);
  INFO("plain answer " << plain->best << " channels, " << plain->runs << " runs");
  CHECK_FALSE(plain->reached_enough);

  SECTION("channels: below the answer, the answer is the limit, marked, and nothing above it ran") {
    q.enough = std::floor(plain->best / 2);
    auto r = find_capacity(p, q);
    REQUIRE(r.ok());
    CHECK(r->best == q.enough);
    CHECK(r->reached_enough);
    CHECK(r->at_search_limit);
    CHECK(r->limited_by == "not searched (--enough)");
    for (const auto& c : r->candidates) CHECK(c.value <= q.enough);
  }
  SECTION("channels: above the answer, the plain answer and its reason") {
    q.enough = plain->best + 1;
    auto r = find_capacity(p, q);
    REQUIRE(r.ok());
    CHECK(r->best == plain->best);
    CHECK_FALSE(r->reached_enough);
    CHECK(r->limited_by == plain->limited_by);
  }
  SECTION("channels: the answer itself is enough: the next count is not tried") {
    q.enough = plain->best;
    auto r = find_capacity(p, q);
    REQUIRE(r.ok());
    CHECK(r->best == plain->best);
    CHECK(r->reached_enough);
    for (const auto& c : r->candidates) CHECK(c.value <= plain->best);
  }
  SECTION("sample rate and buffer: the limit bounds the answer from the side the search goes") {
    q.base.stream.channels = 2;
    q.target = CapacityTarget::SampleRate;
    auto rate = find_capacity(p, q);
    REQUIRE(rate.ok());
    REQUIRE(rate->found);
    q.enough = rate->best / 3;
    auto capped = find_capacity(p, q);
    REQUIRE(capped.ok());
    CHECK(capped->best == Approx(q.enough));
    CHECK(capped->reached_enough);
    for (const auto& c : capped->candidates) CHECK(c.value <= q.enough * (1 + 1e-12));
    q.enough = rate->best * 3;
    auto above = find_capacity(p, q);
    REQUIRE(above.ok());
    CHECK_FALSE(above->reached_enough);
    CHECK(above->best == Approx(rate->best).epsilon(0.02));

    q.target = CapacityTarget::Buffer;
    q.enough = 0;
    auto buf = find_capacity(p, q);
    REQUIRE(buf.ok());
    REQUIRE(buf->found);
    q.enough = buf->best * 4;  // a buffer this large is enough: smaller ones are not looked for
    auto big = find_capacity(p, q);
    REQUIRE(big.ok());
    CHECK(big->reached_enough);
    CHECK(big->best >= q.enough);
    CHECK(big->best < q.enough + 8 * 2);  // rounded up to whole frames (2 channels x 4 bytes)
    for (const auto& c : big->candidates) CHECK(c.value >= q.enough);
  }
}
