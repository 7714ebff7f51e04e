// Synthetic stall recovery (issue 10 §2): traces from known stall processes
// (a nearly fixed length triggered by time, a wide log-normal triggered by
// bytes, two populations of different physics), with 15 % rate jitter on the
// ordinary writes, are calibrated back; the fitted model must give the same
// highest clean sample rate as the true one (find_capacity, SampleRate
// target) within 5 %. A deliberately wrong model of the same pauses (the old
// fit: one log-normal, arrivals per byte) must miss by more, or the check
// could not tell a good fit from a bad one.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <sstream>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/fit.h"
#include "calibrate/pauses.h"
#include "calibrate/synthetic.h"
#include "models/profile.h"
#include "models/rng.h"
#include "short_run.h"
#include "sim/capacity.h"
#include "sim/spread.h"

using namespace sd;
using namespace sd::cal;

namespace {

using Params = std::map<std::string, double>;

const Params kDevice = {{"sustained_mbps", 20}, {"op_overhead_us", 300}};
constexpr uint64_t kBlock = 256 << 10;

Profile make_profile(const Params& stalls) {
  Profile p;
  p.name = "stall-truth";
  LayerProfile lp;
  lp.name = "stall-truth";
  lp.params = LayerParams(Layer::Device);
  for (const auto* m : {&kDevice, &stalls})
    for (auto& [k, v] : *m) REQUIRE(lp.params.set(k, v, Origin::Profile).ok());
  p.set_layer(std::move(lp));
  REQUIRE(p.finish().ok());
  return p;
}

Series as_series(const Trace& t, const std::string& name) {
  auto s = series_from_trace(t, name);
  REQUIRE(s.ok());
  return *s;
}

// What a characterization records: a flat-out sustained write and paced
// writes at 0.3, 0.5 and 0.7 of the sustained rate, 15 % jitter per write.
std::vector<Series> traces_of(const Profile& p, double seconds, uint64_t seed) {
  Noise n{0.15, seed};
  std::vector<Series> out;
  out.push_back(as_series(synth_sustained(p, kBlock, 20e6 * seconds, {}, n), "flat.csv"));
  for (double f : {0.3, 0.5, 0.7}) {
    n.seed += 17;
    out.push_back(as_series(synth_paced(p, kBlock, 20 * f, seconds, n), fmt::format("paced-{}.csv", f)));
  }
  return out;
}

Params fitted_stalls(const Calibration& c) {
  Params out;
  for (const auto& e : c.params)
    if (e.key.starts_with("device.stall")) out[e.key.substr(7)] = e.value;
  return out;
}

// The highest sample rate a 1-channel 16-bit recorder with a 4 MiB ring,
// 256 KiB writes, records for 120 s with no overrun on any of 5 seeds (capped at 5 seeds,
// an open candidate passes only with 0 of 5 overrunning: 0/5 <= 5 %).
double clean_rate(const Profile& p) {
  RecorderConfig rc;
  rc.stream.channels = 1;
  rc.stream.sample_bits = 16;
  rc.stream.sample_rate = 1e6;
  rc.buffer_bytes = 4 << 20;
  rc.block_bytes = kBlock;
  rc.duration_s = 120;
  CapacityQuery q;
  q.base = rc;
  q.target = CapacityTarget::SampleRate;
  q.criterion.max_seeds = 5;  // the estimate k/5 decides an open candidate: every seed clean
  auto r = find_capacity(p, q);
  REQUIRE(r.ok());
  REQUIRE(r->found);
  return r->best;
}

struct Case {
  const char* name;
  Params truth;
  double trace_s;  // seconds per trace: a wide log-normal's tail needs ~2000 pauses
};

const Case kCases[] = {
    // A journal commit: every ~4 s, 350 ms give or take a little.
    {"nearly fixed length, per unit of time",
     {{"stall_period_ms", 4000}, {"stall_period_jitter", 0.1}, {"stall_duration_ms", 350}, {"stall_duration_sigma", 0.05}},
     240},
    // Flash garbage collection: every ~25 MB written, log-normal lengths.
    {"log-normal, per byte written",
     {{"stall_interval_mb", 25}, {"stall_duration_ms", 150}, {"stall_duration_sigma", 0.5}},
     900},
    // Short frequent pauses per byte and long rare ones per unit of time.
    {"two populations",
     {{"stall_interval_mb", 12}, {"stall_duration_ms", 40}, {"stall_duration_sigma", 0.3}, {"stall2_period_ms", 7000},
      {"stall_period_jitter", 0.2}, {"stall2_duration_ms", 600}, {"stall2_duration_sigma", 0.1}},
     240},
};

// The old fit, as a wrong model of the same pauses: every pause in one
// log-normal, arrivals per byte written.
Params old_fit(const std::vector<Series>& traces) {
  std::vector<double> logs;
  double bytes = 0;
  for (const auto& s : traces) {
    PauseScan scan = scan_pauses(s);
    for (const auto& p : scan.pauses) logs.push_back(std::log(p.excess_s));
    bytes += scan.bytes;
  }
  double n = static_cast<double>(logs.size()), mu = 0, ss = 0;
  for (double l : logs) mu += l / n;
  for (double l : logs) ss += (l - mu) * (l - mu);
  return {{"stall_interval_mb", bytes / n / 1e6}, {"stall_duration_ms", std::exp(mu) * 1e3},
          {"stall_duration_sigma", std::min(3.0, std::sqrt(ss / (n - 1)))}};
}

}  // namespace

TEST_CASE("the fitted stall model gives the true model's highest clean rate within 5 %", "[calibrate][stalls]") {
  // Three independent sets of traces per case. Over trace seeds 3..8 the error
  // was -5.7..+2.9 % (2 of 18 fits beyond 5 %, both -5.7 %): the tail of a
  // log-normal fitted from 40-140 pauses, judged by a 5-seed criterion.
  for (uint64_t trace_seed = 3; trace_seed < 3 + static_cast<uint64_t>(sd_test::sets(3, 1)); ++trace_seed)
  for (const Case& k : kCases) {
    Profile truth = make_profile(k.truth);
    std::vector<Series> traces = traces_of(truth, k.trace_s, trace_seed);
    std::vector<std::string> names;
    for (const auto& s : traces) names.push_back(s.name);
    auto c = calibrate_loaded(traces, {}, names, Options{});
    REQUIRE(c.ok());
    Params fit = fitted_stalls(*c);
    std::string fitted_text;
    for (auto& [key, v] : fit) fitted_text += fmt::format(" {}={:.4g}", key, v);
    INFO(k.name << " (trace seed " << trace_seed << "): fitted" << fitted_text);
    for (const auto& note : c->notes) UNSCOPED_INFO(note);
    REQUIRE(!fit.empty());
    double want = clean_rate(truth), got = clean_rate(make_profile(fit));
    WARN(fmt::format("{}: highest clean rate: true model {:.4g} Hz, fitted {:.4g} Hz ({:+.1f} %);{}", k.name, want,
                     got, (got / want - 1) * 100, fitted_text));
    CHECK(std::fabs(got / want - 1) <= 0.05);
  }
}

TEST_CASE("a wrong stall model of the same pauses misses the clean rate by more than 5 %", "[calibrate][stalls]") {
  // The check above must be able to fail: the old fit (one log-normal, per
  // byte) of the time-triggered and two-population traces is off.
  for (const Case* k : {&kCases[0], &kCases[2]}) {
    Profile truth = make_profile(k->truth);
    double want = clean_rate(truth), got = clean_rate(make_profile(old_fit(traces_of(truth, k->trace_s, 3))));
    WARN(fmt::format("{}: true model {:.4g} Hz, old fit {:.4g} Hz ({:+.1f} %)", k->name, want, got, (got / want - 1) * 100));
    CHECK(std::fabs(got / want - 1) > 0.05);
  }
}

TEST_CASE("the stall fit's ranges (95 % intervals) hold the true values", "[calibrate][stalls][ranges]") {
  // The profile calibrate writes carries each fitted value's interval as its
  // range, which capacity and characterize's headline propagate; here the
  // stall values of the three known processes, over independent trace sets.
  int checked = 0, inside = 0;
  std::string misses;
  for (uint64_t trace_seed = 3; trace_seed < 3 + static_cast<uint64_t>(sd_test::sets(3, 1)); ++trace_seed)
    for (const Case& k : kCases) {
      std::vector<Series> traces = traces_of(make_profile(k.truth), k.trace_s, trace_seed);
      std::vector<std::string> names;
      for (const auto& s : traces) names.push_back(s.name);
      auto c = calibrate_loaded(traces, {}, names, Options{});
      REQUIRE(c.ok());
      CHECK_FALSE(c->stalls_too_few);
      auto toml = profile_toml(*c, "calibrate");
      REQUIRE(toml.ok());
      auto prof = parse_profile_text(*toml, "fitted.toml");
      REQUIRE(prof.ok());
      REQUIRE(prof->finish().ok());
      std::map<std::string, RangedParam> ranged;
      for (const auto& r : ranged_params(*prof)) ranged[r.key] = r;
      INFO(k.name << ":\n" << *toml);
      CHECK(ranged.count("sustained_mbps") == 1);
      CHECK(ranged.count("stall_duration_ms") == 1);
      for (const auto& [key, r] : ranged) {
        CHECK(r.lo <= r.value);
        CHECK(r.value <= r.hi);
        auto t = k.truth.find(key);
        if (t == k.truth.end()) continue;
        ++checked;
        if (t->second >= r.lo && t->second <= r.hi)
          ++inside;
        else
          misses += fmt::format(" {} (seed {}): {}={} outside [{:.4g}, {:.4g}];", k.name, trace_seed, key, t->second,
                                r.lo, r.hi);
      }
    }
  WARN("true stall values inside their ranges: " << inside << " of " << checked << ";" << misses);
  // 95 % intervals: a miss or two in a few dozen is chance; more is a band
  // computed too narrow.
  REQUIRE(checked >= 5);
  CHECK(inside >= checked - std::max(1, checked / 8));
}

TEST_CASE("a pause length's range reaches no further than the pauses seen allow", "[calibrate][ranges]") {
  // Three flat-out pauses of 0.9, 1.0 and 1.1 s: the median's t interval
  // with two degrees of freedom reaches past 1.2 s, but a median above the
  // longest of the pauses seen is what they rule out.
  PauseScan s;
  s.name = "flat.csv";
  s.bytes = 600e6, s.seconds = 60, s.writes = 2400;
  for (double at : {10.0, 30.0, 50.0}) s.pauses.push_back({at, 0.9 + (at - 10) / 200, 0});
  StallModelFit f = fit_stall_model_all({s});
  REQUIRE(f.ok);
  REQUIRE(f.pops.size() == 1);
  const StallPopulation& p = f.pops[0];
  INFO("median " << p.median_ms << " band " << p.median_band << " range " << p.median_lo << ".." << p.median_hi);
  CHECK(p.median_ms * (1 + p.median_band / p.median_ms) > 1150);  // the t interval alone
  CHECK(p.median_hi == Approx(1100).epsilon(1e-9));
  CHECK(p.median_lo < p.median_ms);
  CHECK(p.median_lo > 700);
  // Forty pauses, all between 0.8 and 1.25 s: a sigma whose tail puts the
  // 93rd percentile (0.05^(1/40)) above 1.25 s would have shown a longer one.
  PauseScan many = s;
  many.pauses.clear();
  many.seconds = 400, many.bytes = 4e9;
  for (int i = 0; i < 40; ++i) many.pauses.push_back({5.0 + 10 * i, 0.8 + 0.45 * ((i * 7) % 40) / 39.0, 0});
  StallModelFit g = fit_stall_model_all({many});
  REQUIRE(g.ok);
  for (const auto& q : g.pops) {
    INFO("median " << q.median_ms << " sigma " << q.sigma << " range " << q.sigma_lo << ".." << q.sigma_hi);
    CHECK(q.sigma_lo <= q.sigma);
    CHECK(q.sigma <= q.sigma_hi);
    double z93 = 1.4632;  // the standard normal's 0.05^(1/40) quantile (0.9278)
    CHECK(q.median_ms * std::exp(z93 * q.sigma_hi) <= 1250 * 1.001);
  }
}

TEST_CASE("time-triggered pauses meet a slow paced writer and byte-triggered ones thin out", "[stalls][model]") {
  // The same pauses per second at the sustained rate; at a third of it the
  // byte-triggered ones come three times less often, the time-triggered not.
  auto pauses_at = [](const Params& stalls, double mbps) {
    Profile p = make_profile(stalls);
    Trace t = synth_paced(p, kBlock, mbps, 600, {0, 5});
    PauseScan s = scan_pauses(as_series(t, "paced.csv"));
    return static_cast<double>(s.pauses.size()) / s.seconds;
  };
  Params by_time = {{"stall_period_ms", 2000}, {"stall_duration_ms", 200}};
  Params by_bytes = {{"stall_interval_mb", 40}, {"stall_duration_ms", 200}};
  double t_fast = pauses_at(by_time, 18), t_slow = pauses_at(by_time, 6);
  double b_fast = pauses_at(by_bytes, 18), b_slow = pauses_at(by_bytes, 6);
  INFO(fmt::format("pauses/s: by time {:.3f} -> {:.3f}, by bytes {:.3f} -> {:.3f}", t_fast, t_slow, b_fast, b_slow));
  CHECK(t_slow == Approx(0.5).epsilon(0.1));
  CHECK(t_fast == Approx(0.5).epsilon(0.1));
  CHECK(b_slow == Approx(b_fast / 3).epsilon(0.25));
}

TEST_CASE("too few pauses: fitted, marked an estimate, with a warning", "[calibrate][stalls]") {
  Profile truth = make_profile({{"stall_period_ms", 40000}, {"stall_duration_ms", 300}});
  std::vector<Series> traces = {as_series(synth_sustained(truth, kBlock, 20e6 * 100, {}, {0.15, 2}), "short.csv")};
  auto c = calibrate_loaded(traces, {}, {"short.csv"}, Options{});
  REQUIRE(c.ok());
  bool warned = false;
  for (const auto& n : c->notes) warned |= n.find("too few") != std::string::npos;
  CHECK(warned);
  CHECK(c->stalls_too_few);
  bool marked = false;
  for (const auto& e : c->params)
    if (e.key == "device.stall_duration_ms") marked = e.estimate && std::fabs(e.value / 300 - 1) < 0.2;
  CHECK(marked);
  auto toml = profile_toml(*c, "calibrate");
  REQUIRE(toml.ok());
  CHECK(toml->find("estimate = true") != std::string::npos);
  // ... and without ranges: intervals from so few pauses, at their corners
  // together, would invent a tail nothing measured shows.
  std::istringstream lines(*toml);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("stall_")) CHECK(line.find("range") == std::string::npos);
}

TEST_CASE("time-triggered driver stalls block a userspace driver's writer and a kernel driver's hide behind the page cache",
          "[stalls][model]") {
  // 1 MiB buffered writes paced at 10 MB/s for 30 s on a 100 MB/s device with
  // a 64 MB page cache; the driver pauses 300 ms every second.
  auto slowest = [](bool userspace) {
    Profile p;
    p.name = "placement";
    auto layer = [&](Layer l, const Params& kv) {
      LayerProfile lp;
      lp.name = "placement";
      lp.params = LayerParams(l);
      for (auto& [k, v] : kv) REQUIRE(lp.params.set(k, v, Origin::Profile).ok());
      p.set_layer(std::move(lp));
    };
    layer(Layer::Host, {{"dirty_limit_bytes", 64e6}});
    layer(Layer::Filesystem, {{"userspace", userspace ? 1 : 0}, {"stall_period_ms", 1000}, {"stall_duration_ms", 300}});
    layer(Layer::Device, {{"sustained_mbps", 100}});
    REQUIRE(p.finish().ok());
    ModelDevice dev(p, ModelOptions{7});
    dev.submit({OpKind::Create, 1, 0, 0}, 0);
    double worst = 0, now = 0;
    for (uint64_t i = 0; i < 300; ++i) {
      double due = static_cast<double>(i) * 0.1;
      now = std::max(now, due);
      Completion c = dev.submit({OpKind::Write, 1, i << 20, 1 << 20, false}, now);
      worst = std::max(worst, c.done - now);
      now = c.done;
    }
    return worst;
  };
  double user = slowest(true), kernel = slowest(false);
  INFO("slowest buffered write: userspace driver " << user << " s, kernel driver " << kernel << " s");
  CHECK(user > 0.2);
  CHECK(kernel < 0.01);
}

// exfat-fuse over a block device's page cache: a 240 s flat-out write that
// meets the device's pauses (every 64 MB, 300 ms), and paced writes at 0.3,
// 0.5 and 0.7 of 20 MB/s that meet them too or not, each trace's header
// holding `meta`; calibrated.
static Calibration calibrated_behind_cache(bool paced_meet_them, const std::map<std::string, std::string>& meta = {}) {
  Params stalls = {{"stall_interval_mb", 64}, {"stall_duration_ms", 300}, {"stall_duration_sigma", 0.2}};
  Profile with = make_profile(stalls), without = make_profile({});
  std::vector<Series> traces;
  std::vector<std::string> names = {"flat.csv"};
  traces.push_back(as_series(synth_sustained(with, kBlock, 20e6 * 240, {}, {0.15, 4}), "flat.csv"));
  uint64_t seed = 5;
  for (double f : {0.3, 0.5, 0.7}) {
    names.push_back(fmt::format("paced-{}.csv", f));
    traces.push_back(
        as_series(synth_paced(paced_meet_them ? with : without, kBlock, 20 * f, 240, {0.15, ++seed}), names.back()));
  }
  for (auto& t : traces)
    for (const auto& [k, v] : meta) t.meta[k] = v;
  auto c = calibrate_loaded(traces, {}, names, Options{});
  REQUIRE(c.ok());
  return *c;
}

TEST_CASE("a userspace driver's open flags in the trace headers decide where its pauses are", "[calibrate][stalls]") {
  // The same traces twice: once as if paced writes met the pauses (the
  // statistical test alone keeps them in the call), once as if they did not
  // (it alone puts them behind a cache). A header saying how the driver opens
  // its device decides instead: O_DIRECT -> in the call, whatever the counts
  // say; through its page cache -> the device's pauses are behind that cache,
  // unless writes at a recorder's slower paces met pauses whole, which a cache
  // would have absorbed at that pace: those are the driver's own, in its call.
  auto calibrated = [](bool paced_meet_them, const char* driver_io) {
    return calibrated_behind_cache(paced_meet_them, {{"userspace", "1"}, {"driver_io", driver_io}});
  };
  auto said = [](const Calibration& c, const char* what) {
    for (const auto& n : c.notes)
      if (n.find(what) != std::string::npos) return true;
    return false;
  };
  Calibration page = calibrated(false, "page_cache"), page_met = calibrated(true, "page_cache");
  Calibration direct = calibrated(false, "direct");
  Calibration unknown_met = calibrated(true, ""), unknown_absorbed = calibrated(false, "");
  // Without the header the counts decide (the test the header overrides).
  CHECK_FALSE(unknown_met.stalls_behind_cache);
  CHECK(unknown_absorbed.stalls_behind_cache);
  // With it, the header does, and says so.
  CHECK(page.stalls_behind_cache);
  CHECK(said(page, "through the page cache"));
  CHECK_FALSE(direct.stalls_behind_cache);
  CHECK(said(direct, "O_DIRECT"));
  // Through the page cache, but met whole at a recorder's pace: in the call.
  CHECK_FALSE(page_met.stalls_behind_cache);
  CHECK(said(page_met, "through the page cache"));
  CHECK(said(page_met, "in the writer's call"));
  // Behind the cache, fitted from the flat-out trace alone, as the counted
  // case: every 64 MB at 20 MB/s taken per unit of time, 300 ms long.
  Params a = fitted_stalls(page);
  CHECK(a["stall_interval_mb"] == 0);
  CHECK(a["stall_period_ms"] == Approx(64 / 20.0 * 1e3).epsilon(0.35));
  CHECK(a["stall_duration_ms"] == Approx(300).epsilon(0.2));
  // In the call, every 64 MB written, from every trace.
  Params m = fitted_stalls(page_met);
  CHECK(m["stall_interval_mb"] == Approx(64).epsilon(0.35));
}

TEST_CASE("pauses that paced writes never meet are the device's behind a cache, fitted from flat-out writes",
          "[calibrate][stalls]") {
  // exfat-fuse over a block device's page cache: flat-out writes keep that
  // cache full and meet the device's pauses; writes at a recorder's pace do not.
  Calibration absorbed = calibrated_behind_cache(false), met = calibrated_behind_cache(true);
  CHECK(absorbed.stalls_behind_cache);
  CHECK_FALSE(met.stalls_behind_cache);
  // Fitted from the flat-out trace alone: its rate, not one diluted by the
  // paced traces' bytes without pauses. One trace at one rate cannot tell
  // byte- from time-triggered arrivals; behind a cache the fit takes them per
  // unit of time (the cautious choice: a recorder's lower rate does not make
  // them rarer), so every 64 MB at 20 MB/s is every 3.2 s.
  Params a = fitted_stalls(absorbed), m = fitted_stalls(met);
  INFO("absorbed: every " << a["stall_period_ms"] << " ms; met: every " << m["stall_interval_mb"] << " MB");
  CHECK(a["stall_interval_mb"] == 0);
  CHECK(a["stall_period_ms"] == Approx(64 / 20.0 * 1e3).epsilon(0.35));
  CHECK(m["stall_interval_mb"] == Approx(64).epsilon(0.35));
  CHECK(a["stall_duration_ms"] == Approx(300).epsilon(0.2));
  bool said = false;
  for (const auto& n : absorbed.notes) said |= n.find("behind a cache") != std::string::npos;
  CHECK(said);
}

TEST_CASE("behind a cache the writer's average rates do not decide how the device's pauses arrive", "[calibrate][stalls]") {
  // ntfs-3g over a block device's page cache, the device pausing ~1.1 s
  // every ~8 s: three flat-out traces whose writers averaged 11, 10 and
  // 15.6 MB/s (the short one's first megabytes went into the cache), each
  // of which kept the device busy at its own rate. Their counts cannot tell
  // byte- from time-triggered pauses; weighed by the writers' averages they
  // came out 47 % per byte and 53 % per time, both Poisson.
  auto scan_of = [](const char* name, double mbps, double seconds, double first_s) {
    PauseScan s;
    s.name = name, s.bytes = mbps * 1e6 * seconds, s.seconds = seconds, s.writes = 1000;
    int i = 0;
    for (double at = first_s; at < seconds; at += 8 + 0.8 * (i % 3 - 1), ++i) {
      Pause p{at, 1.1 * (1 + 0.1 * (i % 5 - 2) / 2), 0};
      p.device = true;  // lengths the device showed whole
      s.pauses.push_back(p);
    }
    return s;
  };
  std::vector<PauseScan> scans = {scan_of("cache.csv", 11, 104, 3), scan_of("buffered.csv", 10, 30, 5),
                                  scan_of("blocksize.csv", 15.6, 22, 2)};
  StallModelFit f = fit_stall_model_all(scans, /*behind_cache=*/true);
  REQUIRE(f.ok);
  REQUIRE(f.pops.size() == 1);
  const StallPopulation& p = f.pops[0];
  INFO("every " << p.interval_mb << " MB, every " << p.period_ms << " ms, jitter " << f.jitter << ", " << p.arrivals);
  CHECK(p.interval_mb == 0);
  CHECK(p.period_ms == Approx(8000).epsilon(0.15));
  // Their spacing is regular, and the model keeps it so (0 periodic, 1 Poisson).
  CHECK(f.jitter < 0.2);
  bool said = false;
  for (const auto& n : f.notes) said |= n.find("the device wrote at its own rate") != std::string::npos;
  CHECK(said);
  // Writers that were not behind a cache at those rates may still tell the triggers apart.
  StallModelFit g = fit_stall_model_all(scans);
  REQUIRE(g.ok);
  for (const auto& n : g.notes) CHECK(n.find("the device wrote at its own rate") == std::string::npos);

  // The device's own stops count them with its own exposure: 21 stops of
  // ~1.1 s in 168 s busy is one every 8 s, where the writes met fewer (a
  // cache's headroom hid some from them). Hiccups under half the median do
  // not count; nor does a count when the device's own unevenness reaches
  // half the median, or fewer than 5 stops.
  f.pops[0].period_ms = 9800;
  f.behind_cache = true;  // as fit_stall_model says of such a fit
  std::vector<double> stops(21, 1.1);
  stops.insert(stops.end(), {0.05, 0.2, 0.3});
  StallModelFit unclear = f, few = f, two = f;
  CHECK(device_arrivals(f, stops, 168, 0.03));
  CHECK(f.pops[0].period_ms == Approx(8000));
  CHECK(f.pops[0].period_band == Approx(8000 * 1.96 / std::sqrt(21.0)));
  said = false;
  for (const auto& n : f.notes) said |= n.find("arrivals from the device's own stops: 21 of more than") != std::string::npos;
  CHECK(said);
  CHECK_FALSE(device_arrivals(unclear, stops, 168, 0.6));
  CHECK(unclear.pops[0].period_ms == 9800);
  CHECK_FALSE(device_arrivals(few, {1.1, 1.1, 1.1, 1.1, 0.2}, 40, 0.03));
  // Far more stops than the writes met (more than twice per second): the
  // device's own unevenness among them; the writes' count stands, and a note says why.
  StallModelFit starved = unclear;
  CHECK_FALSE(device_arrivals(starved, std::vector<double>(80, 0.9), 144, 0.03));
  CHECK(starved.pops[0].period_ms == 9800);
  said = false;
  for (const auto& n : starved.notes) said |= n.find("more than twice as frequent") != std::string::npos;
  CHECK(said);
  two.pops.push_back(two.pops[0]);
  CHECK_FALSE(device_arrivals(two, stops, 168, 0.03));
  StallModelFit in_call = g;
  CHECK_FALSE(device_arrivals(in_call, stops, 168, 0.03));
}

// characterize on a loaded CI machine: six pauses of a device's fixed 400 ms
// and one 41 ms scheduling hiccup. One log-normal through all seven has its
// median at 289 ms and sigma 0.88 (a 90th percentile of 890 ms: long stalls
// the device never had); the hiccup is its own population instead.
TEST_CASE("one or two hiccups among fixed-length pauses are a population of their own, not a wide tail", "[calibrate][stalls]") {
  CHECK(t_two_sided_p(2.447, 6) == Approx(0.05).margin(2e-4));  // Student t table values
  CHECK(t_two_sided_p(12.706, 1) == Approx(0.05).margin(2e-4));
  CHECK(t_two_sided_p(0, 5) == Approx(1));
  CHECK(t_two_sided_p(3.707, 6) == Approx(0.01).margin(1e-4));
  auto scan_of = [](const std::vector<double>& lengths_s, double seconds) {
    PauseScan s;
    s.name = "flat.csv", s.bytes = 15e6 * seconds, s.seconds = seconds, s.writes = 1000;
    double at = 1;
    for (double l : lengths_s) s.pauses.push_back({at, l, 0}), at += seconds / static_cast<double>(lengths_s.size() + 1);
    return s;
  };
  // The device's pauses (`rest` of them, median `rest_ms`, nearly fixed) first,
  // the hiccups (`odd` of them, median `odd_ms` ± `odd_margin`) a population of their own.
  auto set_apart = [](const std::vector<PauseScan>& scans, double rest_ms, size_t rest, double odd_ms,
                      double odd_margin, size_t odd) {
    StallModelFit f = fit_stall_model_all(scans);
    REQUIRE(f.ok);
    REQUIRE(f.pops.size() == 2);
    CHECK(f.pops[0].median_ms == Approx(rest_ms).margin(2));
    CHECK(f.pops[0].sigma < 0.02);
    CHECK(f.pops[0].pauses == rest);
    CHECK(f.pops[1].median_ms == Approx(odd_ms).margin(odd_margin));
    CHECK(f.pops[1].pauses == odd);
    bool said = false;
    for (const auto& n : f.notes) said |= n.find("a population of their own") != std::string::npos;
    CHECK(said);
  };
  set_apart({scan_of({0.401, 0.398, 0.041, 0.402}, 20), scan_of({0.400, 0.404, 0.399}, 20)}, 400.7, 6, 41, 0.5, 1);
  // Two hiccups together (a characterize run on a loaded machine: 97 and 105 ms
  // among five 400 ms pauses): each widens the spread the other is tested
  // against, so a test of the lowest alone passes it; with both out the
  // second one's test does not (generalized ESD), and both are set apart.
  set_apart({scan_of({0.400, 0.401, 0.097, 0.399}, 20), scan_of({0.402, 0.105, 0.400}, 20)}, 400.4, 5, 101, 5, 2);
  // Pauses that are one wide log-normal stay one: no point is an outlier of the others.
  std::vector<double> wide;
  for (double z : {-1.4, -0.9, -0.5, -0.2, 0.0, 0.25, 0.6, 1.0, 1.5}) wide.push_back(0.2 * std::exp(0.8 * z));
  StallModelFit g = fit_stall_model_all({scan_of(wide, 40)});
  REQUIRE(g.ok);
  CHECK(g.pops.size() == 1);
  CHECK(g.family == "log-normal");
}

TEST_CASE("a writer let go a chunk of writeback at a time is a rhythm, not pauses", "[calibrate][stalls]") {
  // Back-to-back 1 MiB writes: `slow(i)` says how long write i takes, else
  // 0.7 ms (memory speed) with a few per cent of jitter.
  auto trace = [](const std::string& name, auto slow) {
    Series s;
    s.name = name;
    s.meta["userspace"] = "1";
    s.direct = false, s.buffered = true;
    double t = 0;
    for (int i = 0; i < 400; ++i) {
      double d = slow(i);
      if (d <= 0) d = 0.0007 * (1 + 0.03 * std::sin(i * 1.7));
      s.ops.push_back({t, t + d, 1 << 20});
      t += d;
    }
    return s;
  };
  // Throttled at the page cache's limit, released a 4 MiB chunk at a time:
  // every fourth write waits 0.25 s, and two pauses of the driver's own
  // (0.35 s) fall between.
  Series rhythm = trace("buffered.csv", [](int i) {
    return i % 4 == 3 ? 0.25 + 0.002 * std::sin(i) : (i == 101 || i == 250) ? 0.35 : 0.0;
  });
  PauseScan r = scan_pauses(rhythm);
  INFO("rhythm: every " << r.rhythm << " writes, " << r.rhythm_slow << " slow, " << r.pauses.size() << " pauses");
  CHECK(r.rhythm == 4);
  CHECK(r.rhythm_slow >= 100);
  CHECK(r.pauses.empty());
  // Real pauses, one write in 12 (under one in 10): counted, not a rhythm.
  Series rare = trace("cache.csv", [](int i) { return i % 12 == 5 ? 0.4 : 0.058 * (1 + 0.03 * std::sin(i * 2.3)); });
  PauseScan p = scan_pauses(rare);
  CHECK(p.rhythm == 0);
  CHECK(p.pauses.size() == 33);
  // calibrate leaves the rhythmic trace out of the pause fit, and says so.
  auto c = calibrate_loaded({rare, rhythm}, {}, {"cache.csv", "buffered.csv"}, Options{});
  REQUIRE(c.ok());
  bool said = false;
  for (const auto& n : c->notes) said |= n.find("buffered.csv (") != std::string::npos && n.find("a rhythm") != std::string::npos;
  CHECK(said);
  // The pause parameters name the traces they rest on: not the one left out.
  int named = 0;
  for (const auto& e : c->params) {
    if (e.key.find("stall_") == std::string::npos) continue;
    INFO(e.key << " from " << e.from);
    CHECK(e.from.find("cache.csv") != std::string::npos);
    CHECK(e.from.find("buffered.csv") == std::string::npos);
    ++named;
  }
  CHECK(named > 0);
}

TEST_CASE("arrivals the traces cannot tell apart keep both laws, weighted by their evidence", "[calibrate][stalls]") {
  // Three traces of 60 s at 20, 10 and 5 MB/s. Counts proportional to the
  // bytes (16, 8, 4) say per byte, equal counts (8, 8, 8) per unit of time;
  // (6, 4, 3) lies between, where the two laws' AIC differ by 0.15.
  auto scans_of = [](std::vector<int> counts) {
    std::vector<PauseScan> v;
    double mbps[3] = {20, 10, 5};
    for (int i = 0; i < 3; ++i) {
      PauseScan s;
      s.name = fmt::format("t{}.csv", i);
      s.seconds = 60, s.bytes = mbps[i] * 60e6, s.writes = static_cast<size_t>(s.bytes / 262144);
      s.paced = i > 0;
      for (int k = 0; k < counts[static_cast<size_t>(i)]; ++k)
        s.pauses.push_back({2.0 + 55.0 * k / counts[static_cast<size_t>(i)], 0.5 + 0.01 * ((k * 3) % 5), 0});
      v.push_back(s);
    }
    return v;
  };
  StallModelFit byte = fit_stall_model_all(scans_of({16, 8, 4}));
  REQUIRE(byte.pops.size() == 1);
  CHECK(byte.pops[0].interval_mb > 0);
  CHECK(byte.pops[0].period_ms == 0);
  StallModelFit time = fit_stall_model_all(scans_of({8, 8, 8}));
  REQUIRE(time.pops.size() == 1);
  CHECK(time.pops[0].interval_mb == 0);
  CHECK(time.pops[0].period_ms > 0);

  StallModelFit both = fit_stall_model_all(scans_of({6, 4, 3}));
  REQUIRE(both.pops.size() == 1);
  const StallPopulation& p = both.pops[0];
  INFO(p.arrivals << " interval " << p.interval_mb << " MB, period " << p.period_ms << " ms, pauses " << p.pauses);
  REQUIRE(p.interval_mb > 0);
  REQUIRE(p.period_ms > 0);
  CHECK(p.arrivals.find("Akaike") != std::string::npos);
  // Over the traces the two shares add up to the 13 pauses seen ...
  double seen = 2100 / p.interval_mb + 180e3 / p.period_ms;
  CHECK(seen == Approx(13).epsilon(1e-9));
  // ... and at a recorder's 1 MB/s the pauses per minute lie between the two
  // single laws' (per byte: 13 per 2100 MB; per time: 13 per 180 s), near
  // their middle (weights 52 % / 48 %).
  double per_byte = 60.0 * 13 / 2100, per_time = 60.0 * 13 / 180;
  double averaged = 60.0 / p.interval_mb + 60e3 / p.period_ms;
  CHECK(averaged > per_byte * 1.5);
  CHECK(averaged < per_time / 1.5);
  CHECK(averaged == Approx(0.519 * per_byte + 0.481 * per_time).epsilon(0.01));
}

TEST_CASE("time-triggered pauses met by paced writes bound their lengths' spread, long ones met more often",
          "[calibrate][stalls]") {
  // A time-triggered population (median 30 ms, sigma 0.4 in ln) met whole by
  // a flat-out writer 6 times (one past 20 ms: shorter ones hide in its 70 ms
  // writes' jitter), and 80 times by a writer paced with 100 ms of
  // idle time before each 20 ms write. A pause that began u (0..100 ms)
  // before the write shows an excess of its length minus u, one that began
  // inside the write all of it; an excess counts past 2 ms. So each of the 80
  // says only that its pause lasted between its excess and its excess + 100
  // ms, and long pauses are met more often than short ones (a 5 ms pause only
  // if it began in the last 3 ms of idle time or inside the write). With
  // them, sigma comes from 86 pauses; from the 6 whole ones alone its error
  // is a third of its value (a wide one invents the long stalls that decide a
  // buffer: the btrfs rig's 4 lengths measured whole, 6.7..103 ms, gave sigma
  // 1.24 beside 74 paced pauses, none of which can have lasted over 153 ms).
  // Taken as plain intervals, without the more-often of long pauses, the
  // median came out 50 ms, not 30.
  constexpr double kMedian = 0.030, kSigma = 0.4, kIdle = 0.100, kWrite = 0.020, kShown = 0.002, kShownFlat = 0.020;
  double se_fit = 0, se_whole = 0;
  int held_median = 0, held_sigma = 0;  // sets whose 95 % ranges hold the true value
  int close = 0;  // sets whose median is within 20 % and sigma within 0.15 of the truth
  constexpr int kSets = 20;
  for (int set = 0; set < kSets; ++set) {
    SplitMix64 rng = SplitMix64::seeded(1000 + static_cast<uint64_t>(set));
    auto length = [&] { return kMedian * std::exp(kSigma * rng.normal()); };
    PauseScan flat, paced;
    flat.name = "flat.csv", flat.bytes = 15e6 * 20, flat.seconds = 20, flat.writes = 1200;
    paced.name = "paced.csv", paced.bytes = 5e6 * 240, paced.seconds = 240, paced.writes = 2000, paced.paced = true;
    std::vector<double> whole;
    while (whole.size() < 6) {  // a flat-out 1 MiB write takes 70 ms: it shows a pause past 20 ms
      double l = length();
      if (l <= kShownFlat) continue;
      flat.pauses.push_back({1 + 3.0 * static_cast<double>(whole.size()), l, 0, 0.070, kShownFlat});
      whole.push_back(std::log(l));
    }
    while (paced.pauses.size() < 80) {
      double l = length(), began = (kIdle + kWrite) * rng.uniform() - kIdle;  // from the write's start
      double excess = began < 0 ? l + began : l;
      if (excess > kShown)
        paced.pauses.push_back({1 + 3.0 * static_cast<double>(paced.pauses.size()), excess, kIdle, kWrite, kShown});
    }
    StallModelFit f = fit_stall_model_all({flat, paced});
    REQUIRE(f.ok);
    REQUIRE(f.pops.size() == 1);
    REQUIRE(f.pops[0].period_ms > 0);
    REQUIRE(f.pops[0].interval_mb == 0);  // time-triggered alone: the paced bounds apply
    double m = 0, ss = 0;
    for (double v : whole) m += v / 6;
    for (double v : whole) ss += (v - m) * (v - m);
    double sigma_whole = std::sqrt(ss / 5);
    INFO("set " << set << ": median " << f.pops[0].median_ms << " ms, sigma " << f.pops[0].sigma << " (from the whole ones alone "
                << sigma_whole << "), ranges " << f.pops[0].median_lo << ".." << f.pops[0].median_hi << " ms, "
                << f.pops[0].sigma_lo << ".." << f.pops[0].sigma_hi);
    close += std::fabs(f.pops[0].median_ms / (kMedian * 1e3) - 1) <= 0.2 && std::fabs(f.pops[0].sigma - kSigma) <= 0.15;
    held_median += f.pops[0].median_lo <= kMedian * 1e3 && kMedian * 1e3 <= f.pops[0].median_hi;
    held_sigma += f.pops[0].sigma_lo <= kSigma && kSigma <= f.pops[0].sigma_hi;
    se_fit += (f.pops[0].sigma - kSigma) * (f.pops[0].sigma - kSigma) / kSets;
    se_whole += (sigma_whole - kSigma) * (sigma_whole - kSigma) / kSets;
    bool said = false;
    for (const auto& n : f.notes) said |= n.find("met by paced writes") != std::string::npos;
    CHECK(said);
  }
  WARN(fmt::format("sigma's RMS error over {} sets: {:.3f} with the paced pauses, {:.3f} from the whole ones alone",
                   kSets, std::sqrt(se_fit), std::sqrt(se_whole)));
  CHECK(std::sqrt(se_fit) * 1.5 < std::sqrt(se_whole));
  WARN(fmt::format("sets within 20 % (median) and 0.15 (sigma) of the truth: {} of {}", close, kSets));
  CHECK(close >= 18);  // 19 here (set 3: 23 ms, sigma 0.60)
  // 95 % ranges: 17 or more of 20 hold the truth (P = 98 % if they are right)
  WARN(fmt::format("ranges holding the truth: median {} of {}, sigma {} of {}", held_median, kSets, held_sigma, kSets));
  CHECK(held_median >= 17);
  CHECK(held_sigma >= 17);
}

TEST_CASE("a paced pause too short for the lengths measured whole is another stop, not a wide tail",
          "[calibrate][stalls]") {
  // The stalls rig (ext4 on a device pausing ~1 s every 8 s) in one
  // characterize run of two: 8 pauses met whole by a flat-out writer, the
  // same pauses met by paced writers (33 ms idle before each 10 ms write,
  // so each shows its length less at most 33 ms), and 3 of ext4's own
  // journal waits of 0.2-0.4 s met by the paced writers. Fitted into one
  // population with the paced bounds, the short ones put its median at
  // 407 ms and sigma at 1.52, and the tail invented multi-second stalls (a
  // clean rate 93 % low). They are another population.
  constexpr double kIdle = 0.050, kWrite = 0.010, kShown = 0.002;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SplitMix64 rng = SplitMix64::seeded(seed);
    auto rig_pause = [&] { return 1.0 * std::exp(0.1 * rng.normal()); };
    auto met = [&](double l) {  // what a paced writer shows of a time-triggered pause of length l
      double began = (kIdle + kWrite) * rng.uniform() - kIdle;
      return began < 0 ? l + began : l;
    };
    PauseScan flat;
    flat.name = "flat.csv", flat.bytes = 25e6 * 64, flat.seconds = 64, flat.writes = 6100;
    for (int i = 0; i < 8; ++i) flat.pauses.push_back({4 + 8.0 * i, rig_pause(), 0, 0.010, 0.020});
    std::vector<PauseScan> scans = {flat};
    double short_lengths[] = {0.21, 0.33, 0.38};
    for (int t = 0; t < 3; ++t) {
      PauseScan paced;
      paced.name = fmt::format("paced-{}.csv", t), paced.paced = true;
      paced.bytes = 6e6 * 64, paced.seconds = 64, paced.writes = 1500;
      for (int i = 0; i < 8; ++i) paced.pauses.push_back({3 + 8.0 * i, met(rig_pause()), kIdle, kWrite, kShown});
      paced.pauses.push_back({5.5 + 8.0 * t, met(short_lengths[t]), kIdle, kWrite, kShown});
      std::sort(paced.pauses.begin(), paced.pauses.end(), [](const Pause& a, const Pause& b) { return a.at_s < b.at_s; });
      scans.push_back(paced);
    }
    StallModelFit f = fit_stall_model_all(scans);
    std::string notes;
    for (const auto& n : f.notes) notes += n + "\n";
    INFO("seed " << seed << "\n" << notes);
    REQUIRE(f.ok);
    REQUIRE(f.pops.size() == 2);
    const auto& rig = f.pops[0].median_ms > f.pops[1].median_ms ? f.pops[0] : f.pops[1];
    const auto& ext4 = f.pops[0].median_ms > f.pops[1].median_ms ? f.pops[1] : f.pops[0];
    INFO("rig pauses: median " << rig.median_ms << " ms, sigma " << rig.sigma << ", " << rig.pauses
                               << " pauses; short: median " << ext4.median_ms << " ms, " << ext4.pauses << " pauses");
    CHECK(rig.median_ms == Approx(1000).epsilon(0.1));
    CHECK(rig.sigma <= 0.2);
    CHECK(rig.pauses == 32);
    CHECK(ext4.pauses == 3);
    CHECK(ext4.median_ms >= 200);
    CHECK(ext4.median_ms <= 400);
    bool said = false;
    for (const auto& n : f.notes) said |= n.find("another stop of their own") != std::string::npos;
    CHECK(said);

    // Without them, one population, as before.
    for (size_t t = 1; t < scans.size(); ++t)
      std::erase_if(scans[t].pauses, [&](const Pause& p) { return std::fabs(p.at_s - (5.5 + 8.0 * static_cast<double>(t - 1))) < 1e-9; });
    StallModelFit one = fit_stall_model_all(scans);
    REQUIRE(one.ok);
    REQUIRE(one.pops.size() == 1);
    CHECK(one.pops[0].median_ms == Approx(1000).epsilon(0.1));
    CHECK(one.pops[0].sigma <= 0.2);
  }
}

namespace {

// A device's stat file read every `period`: requests of `req` bytes served in
// order at `rate` (±10 % jitter per request), `depth` in flight while busy;
// pauses of the given lengths begin at the given times (the request in
// service waits). With `idle_every` > 0 the device runs dry that often for
// `idle_s` (no request in flight), and a pause may fall there unseen.
struct DeviceRun {
  double rate = 12e6, req = 1310720, period = 0.002, seconds = 120;
  int depth = 4;
  std::vector<std::pair<double, double>> pauses;  // start, length
  double idle_every = 0, idle_s = 0;
};
std::vector<BlockSample> sample_device(const DeviceRun& d, uint64_t seed) {
  SplitMix64 rng = SplitMix64::seeded(seed);
  struct Event {
    double t, written, in_flight;
  };
  std::vector<Event> ev;
  double t = 0, written = 0, next_idle = d.idle_every > 0 ? d.idle_every : 1e300;
  size_t p = 0;
  ev.push_back({0, 0, static_cast<double>(d.depth)});
  while (t < d.seconds) {
    double service = d.req / d.rate * (0.9 + 0.2 * rng.uniform());
    double end = t + service;
    while (p < d.pauses.size() && d.pauses[p].first < end) {  // a pause holds the request in service
      end = std::max(end, d.pauses[p].first) + d.pauses[p].second;
      ++p;
    }
    written += d.req;
    ev.push_back({end, written, static_cast<double>(d.depth)});
    t = end;
    if (t >= next_idle) {  // runs dry: nothing in flight, then requests again
      ev.push_back({t + 1e-4, written, 0});
      t += d.idle_s;
      while (p < d.pauses.size() && d.pauses[p].first < t) ++p;  // a pause while idle: unseen
      ev.push_back({t, written, static_cast<double>(d.depth)});
      next_idle += d.idle_every;
    }
  }
  // What a reader every `period` sees: the state at each tick, kept on a change.
  std::vector<BlockSample> s;
  size_t i = 0;
  for (double tick = 0; tick <= t; tick += d.period) {
    while (i + 1 < ev.size() && ev[i + 1].t <= tick) ++i;
    if (s.empty() || s.back().written != ev[i].written || s.back().in_flight != ev[i].in_flight)
      s.push_back({tick, ev[i].written, ev[i].in_flight});
  }
  return s;
}

// A device's busy gaps over 60 s (its log covering 0..60 s): ordinary gaps of
// 0.1 s, stops of 1.2 s at 15 s and 1.3 s at 25.05 s, a 40 ms hiccup at 45 s.
DevicePauseScan two_stops_and_a_hiccup() {
  DevicePauseScan dev;
  for (int ms = 0; ms < 60000;) {  // whole milliseconds: the stops' times are exact
    int gap = 100;
    double excess = 0;
    for (auto [at, g, e] : {std::tuple{15000, 1250, 1.2}, std::tuple{25050, 1350, 1.3}, std::tuple{45000, 140, 0.04}})
      if (ms == at) gap = g, excess = e;
    dev.gaps.push_back({ms / 1e3, gap / 1e3, excess});
    ms += gap;
  }
  dev.busy_gaps = dev.gaps.size(), dev.from_s = 0, dev.to_s = 60;
  return dev;
}

}  // namespace

TEST_CASE("the device's own completions show its pauses whole, and idle spells are no pause", "[calibrate][stalls]") {
  DeviceRun d;
  std::vector<double> lengths = {1.2, 0.95, 1.4, 1.05, 1.3, 0.3, 0.6};
  for (size_t i = 0; i < lengths.size(); ++i) d.pauses.push_back({8.0 + 15.0 * static_cast<double>(i), lengths[i]});
  DevicePauseScan scan = scan_device_pauses(sample_device(d, 7), d.period);
  REQUIRE(scan.pauses.size() == lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    INFO("pause " << i << ": " << lengths[i] << " s, at " << d.pauses[i].first);
    CHECK(scan.pauses[i].at_s == Approx(d.pauses[i].first).margin(0.12));  // within the request it held
    // Its length to within the request's own jitter (10 % of ~0.11 s) and two sample periods.
    CHECK(scan.pauses[i].excess_s == Approx(lengths[i]).margin(0.011 + 2 * d.period));
  }
  CHECK(scan.rate() == Approx(12e6 * 1.2 / (1.2 + std::accumulate(lengths.begin(), lengths.end(), 0.0) / 120)).epsilon(0.1));

  SECTION("no pauses: nothing found in the ordinary jitter") {
    DeviceRun quiet;
    DevicePauseScan q = scan_device_pauses(sample_device(quiet, 11), quiet.period);
    CHECK(q.busy_gaps > 1000);
    CHECK(q.pauses.empty());
  }
  SECTION("idle spells (nothing in flight) are not pauses; a pause inside one is not seen") {
    DeviceRun idle = d;
    idle.idle_every = 2, idle.idle_s = 1.5;
    idle.pauses = {{11.6, 1.2}, {30.3, 1.0}};  // busy from 11.5 s; idle from 30 s to 31.5 s
    DevicePauseScan q = scan_device_pauses(sample_device(idle, 13), idle.period);
    CHECK(q.busy_gaps > 150);  // busy a quarter of the time
    REQUIRE(q.pauses.size() == 1);
    CHECK(q.pauses[0].excess_s == Approx(1.2).margin(0.011 + 2 * idle.period));
  }
}

TEST_CASE("the pauses flat-out writes met take the device's own lengths, each stop once", "[calibrate][stalls]") {
  // A flat-out trace (first write at 10 s) that met three device stops: the
  // first short (the writer behind a cache met it late), the second in two
  // slow writes (one stop met twice), and a slow write with no stop of the
  // device under it (a throttled writer's sleep); a device hiccup of 40 ms
  // beside a 0.5 s wait of the writer's is not that wait.
  PauseScan flat;
  flat.name = "cache.csv";
  flat.pauses = {{5.3, 0.8, 0, 0.09, 0.05}, {15.1, 0.5, 0, 0.09, 0.05}, {15.8, 0.6, 0, 0.09, 0.05},
                 {25.0, 0.4, 0, 0.09, 0.05}, {35.0, 0.5, 0, 0.09, 0.05}};
  flat.start_s = 10.0;
  PauseScan paced = flat;
  paced.name = "paced-0.5.csv";
  paced.paced = true;
  // Every busy gap counts, over the scan's threshold or not (the writer's
  // pause says there was one): ordinary gaps of 0.1 s around the stops.
  DevicePauseScan dev = two_stops_and_a_hiccup();
  std::vector<PauseScan> scans = {flat, paced};
  size_t n = apply_device_lengths(scans, dev, 0.002);
  CHECK(n == 2);
  REQUIRE(scans[0].pauses.size() == 4);  // the second slow write of one stop is dropped
  CHECK(scans[0].pauses[0].excess_s == Approx(1.2));
  CHECK(scans[0].pauses[0].device);
  CHECK(scans[0].pauses[0].writes_excess_s == Approx(0.8));  // what the writes showed, kept for the note
  CHECK(scans[0].pauses[1].excess_s == Approx(1.3));
  CHECK(scans[0].pauses[2].excess_s == Approx(0.4));  // no stop of the device under it: its own length
  CHECK_FALSE(scans[0].pauses[2].device);
  CHECK(scans[0].pauses[3].excess_s == Approx(0.5));  // the hiccup is not it
  CHECK(scans[0].device_lengths);
  // The paced trace keeps what its writes met.
  REQUIRE(scans[1].pauses.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(scans[1].pauses[i].excess_s == paced.pauses[i].excess_s);
  CHECK_FALSE(scans[1].device_lengths);
}

TEST_CASE("pauses through a journaled filesystem that are no stop of the device are the filesystem's own waits",
          "[calibrate][stalls]") {
  // Device stops of 1.2 and 1.3 s, a 40 ms hiccup, ordinary gaps of 0.1 s,
  // the log covering 0..60 s. A paced trace (first write at 10 s) met both
  // stops partway, waited 0.4 s where the device went on completing, 0.5 s
  // beside the hiccup, and 0.3 s after the log ends.
  DevicePauseScan dev = two_stops_and_a_hiccup();
  PauseScan paced;
  paced.name = "paced-0.5.csv";
  paced.paced = true;
  paced.start_s = 10.0;
  paced.pauses = {{5.3, 0.8, 0.05, 0.09, 0.05}, {15.1, 0.9, 0.05, 0.09, 0.05}, {25.0, 0.4, 0.05, 0.09, 0.05},
                  {35.0, 0.5, 0.05, 0.09, 0.05}, {55.0, 0.3, 0.05, 0.09, 0.05}};
  PauseScan flat = paced;
  flat.name = "cache.csv";
  flat.paced = false;

  SECTION("a journaled kernel filesystem: the waits with no stop under them go, the rest stay as met") {
    paced.fs_waits_modelled = flat.fs_waits_modelled = true;
    std::vector<PauseScan> scans = {paced, flat};
    CHECK(apply_device_lengths(scans, dev, 0.002) == 2);  // the flat-out trace's two stops
    CHECK(drop_filesystem_waits(scans, dev, 0.002) == 4);
    for (const auto& s : scans) {
      INFO(s.name);
      REQUIRE(s.pauses.size() == 3);
      CHECK(s.pauses[0].at_s == 5.3);
      CHECK(s.pauses[1].at_s == 15.1);
      CHECK(s.pauses[2].at_s == 55.0);  // after the log ends: nothing to tell it by
    }
    CHECK(scans[0].pauses[0].excess_s == 0.8);  // a paced writer's pause stays as it met it
    CHECK(scans[1].pauses[0].excess_s == Approx(1.2));
  }
  SECTION("no journal the model runs, or no device log: every pause stays") {
    std::vector<PauseScan> scans = {paced, flat};
    CHECK(drop_filesystem_waits(scans, dev, 0.002) == 0);
    scans[0].fs_waits_modelled = scans[1].fs_waits_modelled = true;
    CHECK(drop_filesystem_waits(scans, DevicePauseScan{}, 0.002) == 0);
    CHECK(scans[0].pauses.size() == 5);
    CHECK(scans[1].pauses.size() == 5);
  }
}

namespace {
// A trace of `n` writes of `bytes` from `t0`, one every `every` s (0: back to
// back), each `service` s long unless a pause of `stops` holds it: a write
// that a pause begins inside waits the whole pause; one issued during a
// pause waits for the rest of it.
Series writes_through(const std::string& name, std::map<std::string, std::string> meta, double t0, size_t n,
                      double every, double service, uint64_t bytes,
                      const std::vector<std::pair<double, double>>& stops) {
  Series s;
  s.name = name;
  s.meta = std::move(meta);
  s.direct = true;
  double t = t0;
  for (size_t i = 0; i < n; ++i) {
    double start = every > 0 ? std::max(t, t0 + every * static_cast<double>(i)) : t, end = start + service;
    for (auto [at, len] : stops) {
      if (at <= start && start < at + len) end = at + len + service;
      else if (start < at && at < end) end += len;
    }
    s.ops.push_back({start, end, bytes, false, 0, 0});
    t = end;
  }
  return s;
}
}  // namespace

TEST_CASE("calibrate leaves a journaled filesystem's own waits out of the stall fit by the device's log",
          "[calibrate][stalls]") {
  // A device of 12 MB/s with 1 s stops every ~15 s; a flat-out trace (0-58
  // s) meets four whole, a paced one (60-118 s) four partway. The paced
  // writer also waited 0.21 s and 60 ms in the filesystem while the device
  // went on completing (ext4's journal: the stalls rig). With the trace
  // headers saying the filesystem has a journal the model runs, those two
  // are left out and one population of ~1 s remains; without, they stay.
  DeviceRun d;
  for (double at : {8.0, 23.0, 38.0, 53.0, 68.3, 83.3, 98.3, 113.3}) d.pauses.push_back({at, 1.0});
  std::vector<BlockSample> log = sample_device(d, 17);
  const uint64_t mib = 1 << 20;
  const double service = static_cast<double>(mib) / d.rate;
  auto fs_stops = d.pauses;
  fs_stops.push_back({77.5, 0.21}), fs_stops.push_back({94.97, 0.06});
  std::sort(fs_stops.begin(), fs_stops.end());
  for (bool journal : {true, false}) {
    std::map<std::string, std::string> meta = {{"userspace", "0"}, {"direct", "1"}};
    if (journal) meta["journal_commit_ms"] = "5000";
    auto flat_meta = meta, paced_meta = meta;
    flat_meta["sweep"] = "sustained", paced_meta["sweep"] = "paced";
    Series flat = writes_through("cache.csv", flat_meta, 0.0, 610, 0, service, mib, d.pauses);
    Series paced = writes_through("paced-0.5.csv", paced_meta, 60.0, 330, 2 * service, service, mib, fs_stops);
    Options o;
    o.device_activity = log, o.device_period_s = d.period;
    auto c = calibrate_loaded({flat, paced}, {}, {"cache.csv", "paced-0.5.csv"}, o);
    REQUIRE(c.ok());
    std::string notes;
    for (const auto& n : c->notes) notes += n + "\n";
    INFO(notes);
    const Estimate* len = nullptr;
    const Estimate* len2 = nullptr;
    for (const auto& e : c->params) {
      if (e.key == "device.stall_duration_ms") len = &e;
      if (e.key == "device.stall2_duration_ms") len2 = &e;
    }
    REQUIRE(len != nullptr);
    bool said = notes.find("2 pause(s) the writes met through the journaled filesystem are no stop") != std::string::npos;
    if (journal) {
      CHECK(said);
      CHECK(len->value == Approx(1000).epsilon(0.1));
      CHECK((len2 == nullptr || len2->value == 0));  // one population
    } else {
      CHECK_FALSE(said);
      // The waits stay: a second population of short pauses, or one wider log-normal.
      CHECK(((len2 != nullptr && len2->value > 0) || len->value < 900));
    }
  }
}

TEST_CASE("a mixture must be two clusters apart and more than one log-normal's chance clusters", "[calibrate][stalls]") {
  // The lengths a characterize run of the stalls rig measured whole (its
  // pauses are 1.0 s give or take 10 %), flat out, one every ~10 s.
  const std::vector<double> rig = {0.8801, 0.9023, 0.9070, 0.9057, 0.9074, 1.0170,
                                   1.0176, 1.0390, 1.0460, 1.0504, 1.0678};
  auto scan_of = [](const std::vector<double>& lengths) {
    PauseScan flat;
    flat.name = "flat.csv", flat.writes = 20000;
    flat.seconds = 10.0 * static_cast<double>(lengths.size()), flat.bytes = 25e6 * flat.seconds;
    for (size_t i = 0; i < lengths.size(); ++i) flat.pauses.push_back({5 + 10.0 * static_cast<double>(i), lengths[i], 0, 0.01, 0.02});
    return std::vector<PauseScan>{flat};
  };
  auto notes_of = [](const StallModelFit& f) {
    std::string s;
    for (const auto& n : f.notes) s += n + "\n";
    return s;
  };
  SECTION("chance clusters of one population: one log-normal, as often as the test's level allows") {
    // Eleven lengths of one log-normal (sigma 0.07, the rig's spread) fall in
    // two tight groups often enough that BIC prefers a mixture of two narrow
    // log-normals, whose tails stop where the pauses' go on.
    int bic_two = 0, fit_two = 0;
    const int sets = 100;
    for (uint64_t seed = 1; seed <= sets; ++seed) {
      SplitMix64 rng = SplitMix64::seeded(seed, 11);
      std::vector<double> x;
      for (int i = 0; i < 11; ++i) x.push_back(std::exp(0.07 * rng.normal()));
      StallModelFit f = fit_stall_model_all(scan_of(x));
      REQUIRE(f.ok);
      bool two = f.pops.size() == 2 && f.family == "two-population mixture" &&
                 notes_of(f).find("lie far") == std::string::npos;  // a mixture, not outliers
      fit_two += two;
      bic_two += two || notes_of(f).find("one population, not two") != std::string::npos;
    }
    WARN("two populations found in " << fit_two << " of " << sets << " sets of one log-normal (BIC alone: " << bic_two
                                     << ")");
    CHECK(fit_two <= 5);  // the bootstrap's level, 5 %
  }
  SECTION("a narrow peak on a wide component: one population and its outliers") {
    // The same pauses and two short waits a paced writer met (13 ms, 211 ms):
    // EM puts the six longest in a peak of sigma 0.02 and everything else in
    // one wide log-normal (from 13 ms to 0.92 s) whose tail invents long stalls.
    std::vector<double> x = rig;
    x.push_back(0.0133), x.push_back(0.2112);
    StallModelFit f = fit_stall_model_all(scan_of(x));
    INFO(notes_of(f));
    REQUIRE(f.ok);
    REQUIRE(f.pops.size() == 2);
    const auto& big = f.pops[0].pauses > f.pops[1].pauses ? f.pops[0] : f.pops[1];
    const auto& few = f.pops[0].pauses > f.pops[1].pauses ? f.pops[1] : f.pops[0];
    CHECK(big.pauses == 11);
    CHECK(big.median_ms == Approx(970).epsilon(0.05));
    CHECK(big.sigma <= 0.1);
    CHECK(few.pauses == 2);
    CHECK(few.median_ms < 100);
  }
  SECTION("two populations far apart stay two") {
    std::vector<double> x = rig;
    for (double v : {0.041, 0.038, 0.045, 0.036, 0.043, 0.040}) x.push_back(v);
    StallModelFit f = fit_stall_model_all(scan_of(x));
    INFO(notes_of(f));
    REQUIRE(f.ok);
    REQUIRE(f.pops.size() == 2);
    CHECK(std::min(f.pops[0].median_ms, f.pops[1].median_ms) == Approx(40).epsilon(0.1));
    CHECK(std::max(f.pops[0].median_ms, f.pops[1].median_ms) == Approx(970).epsilon(0.05));
    CHECK(notes_of(f).find("one population, not two") == std::string::npos);
  }
}
