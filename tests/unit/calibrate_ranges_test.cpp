// A calibrated profile carries each fitted value's 95 % interval as its range
// (docs/profiles.md, "Ranges"), so capacity and characterize answer with the
// spread the measurement allows. The stall fit's intervals are checked for
// coverage on traces of known stall processes (the true value inside the
// range), and their upper ends for the bound the pauses seen put on them.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/pauses.h"
#include "calibrate/synthetic.h"
#include "models/profile.h"
#include "short_run.h"
#include "sim/spread.h"

using namespace sd;
using namespace sd::cal;

namespace calibrate_ranges_test {

using Params = std::map<std::string, double>;

Profile device_profile(const Params& params) {
  Profile p;
  p.name = "range-truth";
  LayerProfile lp;
  lp.name = "range-truth";
  lp.params = LayerParams(Layer::Device);
  for (auto& [k, v] : params) REQUIRE(lp.params.set(k, v, Origin::Profile).ok());
  p.set_layer(std::move(lp));
  REQUIRE(p.finish().ok());
  return p;
}

Series as_series(const Trace& t, const std::string& name) {
  auto s = series_from_trace(t, name);
  REQUIRE(s.ok());
  return *s;
}

}  // namespace calibrate_ranges_test

TEST_CASE("a calibrated profile carries its fitted values' 95 % intervals, and they hold the true values",
          "[calibrate][ranges]") {
  // Time-triggered pauses of nearly fixed length (a journal commit) and
  // byte-triggered log-normal ones (garbage collection), 15 % jitter on every
  // write, a flat-out sustained write and paced ones as characterize writes.
  using calibrate_ranges_test::Params;
  const Params cases[] = {
      {{"sustained_mbps", 20}, {"op_overhead_us", 300}, {"stall_period_ms", 4000}, {"stall_period_jitter", 0.1},
       {"stall_duration_ms", 350}, {"stall_duration_sigma", 0.05}},
      {{"sustained_mbps", 20}, {"op_overhead_us", 300}, {"stall_interval_mb", 25}, {"stall_duration_ms", 150},
       {"stall_duration_sigma", 0.5}},
  };
  const uint64_t block = 256 << 10;
  int checked = 0, inside = 0;
  std::string misses;
  for (uint64_t seed = 3; seed < 3 + static_cast<uint64_t>(sd_test::sets(4, 2)); ++seed)
    for (const Params& truth : cases) {
      Profile p = calibrate_ranges_test::device_profile(truth);
      Noise n{0.15, seed};
      std::vector<Series> traces;
      traces.push_back(calibrate_ranges_test::as_series(synth_sustained(p, block, 20e6 * 240, {}, n), "flat.csv"));
      for (double f : {0.3, 0.5, 0.7}) {
        n.seed += 17;
        traces.push_back(calibrate_ranges_test::as_series(synth_paced(p, block, 20 * f, 240, n), fmt::format("paced-{}.csv", f)));
      }
      std::vector<std::string> names;
      for (const auto& s : traces) names.push_back(s.name);
      auto c = calibrate_loaded(traces, {}, names, Options{});
      REQUIRE(c.ok());
      auto toml = profile_toml(*c);
      REQUIRE(toml.ok());
      auto prof = parse_profile_text(*toml, "fitted.toml");
      REQUIRE(prof.ok());
      REQUIRE(prof->finish().ok());
      std::map<std::string, RangedParam> ranged;
      for (const auto& r : ranged_params(*prof)) ranged[r.key] = r;
      INFO(*toml);
      // The fitted rate, the per-write cost and the pause's length and
      // spacing come with an interval.
      for (const char* key : {"sustained_mbps", "stall_duration_ms"}) CHECK(ranged.count(key) == 1);
      CHECK(ranged.count(truth.count("stall_period_ms") ? "stall_period_ms" : "stall_interval_mb") == 1);
      for (const auto& [key, r] : ranged) {
        CHECK(r.lo <= r.value);
        CHECK(r.value <= r.hi);
        auto t = truth.find(key);
        if (t == truth.end() || !key.starts_with("stall_")) continue;  // the rate's truth is the jittered mean
        ++checked;
        if (t->second >= r.lo && t->second <= r.hi)
          ++inside;
        else
          misses += fmt::format(" seed {} {}={} outside [{:.4g}, {:.4g}];", seed, key, t->second, r.lo, r.hi);
      }
    }
  INFO("stall values inside their ranges: " << inside << " of " << checked << ";" << misses);
  // 95 % intervals: a miss or two in a few dozen is chance, more is a band
  // computed too narrow.
  REQUIRE(checked >= 10);
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
