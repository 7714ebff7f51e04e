// Ground-truth recovery (issue 6): measurements synthesised by ModelDevice
// from known parameters, with 2 % per-operation jitter and the model's own
// stalls, are fitted back; every fitted parameter must land within 3 % of
// the truth, over many random parameter sets.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/synthetic.h"
#include "models/profile.h"
#include "short_run.h"

using namespace sd;
using namespace sd::cal;

namespace {

Profile make_profile(const std::map<std::string, double>& device, const std::map<std::string, double>& host = {}) {
  Profile p;
  p.name = "truth";
  auto layer = [&](Layer l, const std::map<std::string, double>& kv) {
    LayerProfile lp;
    lp.name = "truth";
    lp.params = LayerParams(l);
    for (auto& [k, v] : kv) REQUIRE(lp.params.set(k, v, Origin::Profile).ok());
    p.set_layer(std::move(lp));
  };
  layer(Layer::Device, device);
  if (!host.empty()) layer(Layer::Host, host);
  REQUIRE(p.finish().ok());
  return p;
}

double loguniform(NoiseGen& g, double lo, double hi) { return lo * std::pow(hi / lo, g.uniform()); }
double uniform(NoiseGen& g, double lo, double hi) { return lo + (hi - lo) * g.uniform(); }

Series as_series(const Trace& t, const std::string& name) {
  auto s = series_from_trace(t, name);
  REQUIRE(s.ok());
  return *s;
}

const Estimate* find(const Calibration& c, const std::string& key) {
  for (const auto& e : c.params)
    if (e.key == key) return &e;
  return nullptr;
}

void check(const Calibration& c, const std::string& key, double truth, double tol = 0.03) {
  const Estimate* e = find(c, key);
  INFO(key << " truth " << truth);
  REQUIRE(e != nullptr);
  INFO("fitted " << e->value << " ± " << e->band << " (" << e->method << ", " << e->points << " points)");
  CHECK(std::fabs(e->value / truth - 1) <= tol);
}

std::vector<uint64_t> sweep_sizes() {
  std::vector<uint64_t> v;
  for (uint64_t b = 512; b <= (8u << 20); b *= 4) v.push_back(b);
  return v;
}

}  // namespace

TEST_CASE("calibrate recovers write parameters of random drives within 3 %", "[calibrate][truth]") {
  NoiseGen g(20261130);
  for (int set = 0; set < sd_test::sets(20, 4); ++set) {
    double sustained = loguniform(g, 10, 1000);
    // Overheads comparable to or larger than a 4 KiB transfer, as real drives have.
    double overhead_us = 4096 / sustained * loguniform(g, 0.5, 50);
    double burst = loguniform(g, 3e8, 3e9), burst_mbps = sustained * uniform(g, 2, 5);
    double recover = sustained * uniform(g, 0.2, 1);
    double capacity = burst * uniform(g, 6, 10);  // the sustained write stays below the knee
    double knee = uniform(g, 0.55, 0.9), floor = uniform(g, 0.15, 0.7);
    Profile p = make_profile({{"sustained_mbps", sustained}, {"op_overhead_us", overhead_us}, {"burst_bytes", burst},
                              {"burst_mbps", burst_mbps}, {"recover_mbps", recover}, {"capacity_bytes", capacity},
                              {"fill_knee", knee}, {"fill_floor", floor}});
    INFO(fmt::format("set {}: sustained {:.4g} MB/s, overhead {:.4g} us, burst {:.4g} B at {:.4g} MB/s, recover {:.4g}, "
                     "capacity {:.4g}, knee {:.3f}, floor {:.3f}", set, sustained, overhead_us, burst, burst_mbps,
                     recover, capacity, knee, floor));
    Noise n{0.02, static_cast<uint64_t>(100 + set)};
    Trace sweep = synth_block_sweep(p, sweep_sizes(), 60, n, burst * 1.05);
    // Sustained write: exhaust the cache, then idle gaps that free 10-30 % of it.
    std::vector<std::pair<double, double>> gaps;
    double at = burst * 1.6;
    for (double frac : {0.1, 0.2, 0.3}) {
      gaps.push_back({at, frac * burst / (recover * 1e6)});
      at += frac * burst + 0.3 * burst;
    }
    Trace sustained_tr = synth_sustained(p, 1 << 20, at, gaps, n);
    Trace fill = synth_fill(p, 1 << 20, {0.02, n.seed + 7});
    std::vector<Series> series = {as_series(sweep, "sweep.csv"), as_series(sustained_tr, "sustained.csv"),
                                  as_series(fill, "fill.csv")};
    auto c = calibrate_loaded(series, {}, {"sweep.csv", "sustained.csv", "fill.csv"}, Options{});
    REQUIRE(c.ok());
    check(*c, "device.sustained_mbps", sustained);
    check(*c, "device.op_overhead_us", overhead_us);
    check(*c, "device.burst_bytes", burst);
    check(*c, "device.burst_mbps", burst_mbps);
    check(*c, "device.recover_mbps", recover);
    check(*c, "device.capacity_bytes", capacity);
    check(*c, "device.fill_knee", knee);
    check(*c, "device.fill_floor", floor);
    auto toml = profile_toml(*c, "calibrate");
    REQUIRE(toml.ok());
    auto back = parse_profile_text(*toml, "calibrated.toml");
    REQUIRE(back.ok());
    REQUIRE(back->finish().ok());
    CHECK(std::fabs(back->params(Layer::Device).get("sustained_mbps") / sustained - 1) <= 0.03);
  }
}

TEST_CASE("calibrate recovers stall distributions from per-write latency outliers within 3 %", "[calibrate][truth]") {
  NoiseGen g(7);
  for (int set = 0; set < sd_test::sets(3, 1); ++set) {
    double sustained = loguniform(g, 10, 500);
    uint64_t block = 64 << 10;
    double op_s = block / (sustained * 1e6);
    // Stalls a few writes long, far enough apart that two rarely share a write.
    double median_ms = op_s * 1e3 * uniform(g, 3, 30), sigma = uniform(g, 0.2, 0.5);
    double interval_mb = block / 1e6 * uniform(g, 50, 100);
    Profile p = make_profile({{"sustained_mbps", sustained}, {"stall_interval_mb", interval_mb},
                              {"stall_duration_ms", median_ms}, {"stall_duration_sigma", sigma}});
    INFO(fmt::format("set {}: sustained {:.4g} MB/s, stalls every {:.4g} MB, median {:.4g} ms, sigma {:.3f}", set,
                     sustained, interval_mb, median_ms, sigma));
    // About 4000 stalls: the sigma of a log-normal needs thousands for 3 %.
    Trace t = synth_sustained(p, block, interval_mb * 1e6 * 4000, {}, {0.02, static_cast<uint64_t>(set + 1)});
    auto c = calibrate_loaded({as_series(t, "long.csv")}, {}, {"long.csv"}, Options{});
    REQUIRE(c.ok());
    check(*c, "device.sustained_mbps", sustained);
    check(*c, "device.stall_interval_mb", interval_mb);
    check(*c, "device.stall_duration_ms", median_ms);
    check(*c, "device.stall_duration_sigma", sigma);
  }
}

TEST_CASE("calibrate recovers the host page cache from buffered writes within 3 %", "[calibrate][truth]") {
  NoiseGen g(11);
  for (int set = 0; set < sd_test::sets(10, 3); ++set) {
    double limit = loguniform(g, 2e8, 2e9), memory = uniform(g, 1000, 4000), sustained = loguniform(g, 20, 400);
    Profile p = make_profile({{"sustained_mbps", sustained}}, {{"dirty_limit_bytes", limit}, {"memory_mbps", memory}});
    INFO(fmt::format("set {}: dirty limit {:.4g} B, memory {:.4g} MB/s, device {:.4g} MB/s", set, limit, memory, sustained));
    Trace t = synth_buffered(p, 1 << 20, 3 * limit, {0.02, static_cast<uint64_t>(set + 1)});
    auto c = calibrate_loaded({as_series(t, "buffered.csv")}, {}, {"buffered.csv"}, Options{});
    REQUIRE(c.ok());
    check(*c, "host.dirty_limit_bytes", limit);
    check(*c, "host.memory_mbps", memory);
  }
}

TEST_CASE("calibrate recovers the read model from a threads x block-size table within 3 %", "[calibrate][truth]") {
  NoiseGen g(3);
  std::vector<double> blocks;
  for (double b = 512; b <= 8 * 1048576; b *= 4) blocks.push_back(b);
  for (int set = 0; set < sd_test::sets(4, 1); ++set) {  // 14 sets pass too (40 s); 4 keep CI lean
    ReadParams truth;
    truth.mbps = loguniform(g, 50, 3000);
    truth.latency_us = loguniform(g, 5, 500);
    truth.queue_depth = 1 + static_cast<int>(g.uniform() * 4);
    // A ceiling shows only if the parallel streams can reach it.
    truth.max_mbps = truth.queue_depth > 1 ? truth.mbps * uniform(g, 1.2, 0.9 * truth.queue_depth) : 0;
    INFO(fmt::format("set {}: read {:.4g} MB/s, latency {:.4g} us, ceiling {:.4g} MB/s, depth {}", set, truth.mbps,
                     truth.latency_us, truth.max_mbps, truth.queue_depth));
    auto cells = synth_read_table(truth, blocks, 6, {0.01, static_cast<uint64_t>(set + 1)});
    Options opt;
    opt.layer = Layer::Device;
    auto c = calibrate_loaded({}, cells, {"table.csv"}, opt);
    REQUIRE(c.ok());
    check(*c, "device.read_mbps", truth.mbps);
    check(*c, "device.read_latency_us", truth.latency_us);
    if (truth.max_mbps > 0) check(*c, "device.read_max_mbps", truth.max_mbps);
    else CHECK(find(*c, "device.read_max_mbps") == nullptr);
    check(*c, "device.read_queue_depth", truth.queue_depth, 0);
  }
}
