// Ranges of estimated parameters (profile reader) and their propagation
// (sim/spread.h).
#include <catch2/catch.hpp>

#include "models/analytic.h"
#include "models/profile.h"
#include "sim/spread.h"

using namespace sd;

namespace {
const char* kStick = R"(format_version = 1
layer = "device"
[params]
sustained_mbps = 20
op_overhead_us = { value = 1000, estimate = true, range = [500, 2000], source = "estimate" }
)";

Result<Profile> stick(const std::string& text) {
  auto p = parse_profile_text(text, "stick.toml");
  if (!p) return p;
  Status st = p->finish();
  if (!st.ok()) return st;
  return p;
}

std::string with_range(const std::string& range) {
  return std::string(R"(format_version = 1
layer = "device"
[params]
sustained_mbps = 20
op_overhead_us = { value = 1000, estimate = true, range = )") + range + ", source = \"estimate\" }\n";
}
}  // namespace

TEST_CASE("every estimate of the built-in profiles carries a range that holds its value", "[profiles][ranges]") {
  for (const auto& info : builtin_profiles()) {
    std::string spec = info.name;
    if (info.layer && *info.layer != Layer::Device) spec += "+samsung-960evo-250g";
    auto p = load_profile(spec);
    REQUIRE(p.ok());
    for (Layer l : kLayers) {
      const LayerProfile* lp = p->layer(l);
      if (!lp || lp->name == "samsung-960evo-250g" && spec != info.name) continue;
      for (const ParamSpec* s : params_of(l)) {
        const ParamValue& v = lp->params.entry(s->key);
        if (!v.estimate) continue;
        INFO(info.name << ": " << layer_name(l) << "." << s->key);
        REQUIRE(v.range.has_value());
        CHECK(v.range->first <= v.value);
        CHECK(v.value <= v.range->second);
        // The reasoning is in the source text.
        CHECK(v.source.find("range") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a bad range is one message naming the parameter and the fix", "[profiles][ranges]") {
  REQUIRE(stick(kStick).ok());
  auto r = stick(kStick)->params(Layer::Device).entry("op_overhead_us").range;
  REQUIRE(r);
  CHECK(r->first == 500);
  CHECK(r->second == 2000);
  CHECK(stick(with_range("[\"0.5ms\", \"2ms\"]"))->params(Layer::Device).entry("op_overhead_us").range->second == 2000);
  struct Bad {
    const char* range;
    const char* says;
  } bad[] = {{"[2000, 500]", "backwards"},
             {"[1500, 2000]", "outside its own range"},
             {"[500]", "two numbers"},
             {"[1, 2, 3]", "two numbers"},
             {"5", "two numbers"},
             {"[true, 2]", "true/false"},
             {"[-5, 2000]", "leaves the allowed"},
             {"[\"fast\", 2000]", "range: 'fast'"}};
  for (const auto& b : bad) {
    auto p = stick(with_range(b.range));
    INFO(b.range << ": " << (p ? "loaded" : p.message()));
    REQUIRE_FALSE(p.ok());
    CHECK(p.message().find(b.says) != std::string::npos);
    CHECK(p.message().find("op_overhead_us") != std::string::npos);
    CHECK(p.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("a parameter pinned with --set has no range", "[profiles][ranges]") {
  auto p = load_profile("rpi4-buster-ultrafit-exfat", {"filesystem.stall_duration_ms=900"});
  REQUIRE(p.ok());
  CHECK_FALSE(p->params(Layer::Filesystem).entry("stall_duration_ms").range.has_value());
  for (const auto& r : ranged_params(*p)) CHECK(r.name() != "filesystem.stall_duration_ms");
}

TEST_CASE("corner bounds: the sustained rate over the Ultra Fit's ranges", "[spread]") {
  auto p = stick(kStick);
  REQUIRE(p.ok());
  auto rate = [](const std::vector<const Profile*>& batch) -> Result<std::vector<double>> {
    std::vector<double> out;
    for (const Profile* q : batch) out.push_back(write_rate(*q, 65536, Phase::Sustained, true));
    return out;
  };
  auto s = propagate(*p, rate);
  REQUIRE(s.ok());
  // rate(b) = b / (t0 + b / bw): the closed form at either end of t0.
  auto closed = [](double t0) { return 65536 / (t0 + 65536 / 20e6); };
  CHECK(s->nominal == Approx(closed(1000e-6)).epsilon(0.02));
  CHECK(s->low == Approx(closed(2000e-6)).epsilon(0.02));
  CHECK(s->high == Approx(closed(500e-6)).epsilon(0.02));
  REQUIRE(s->decisive());
  CHECK(s->decisive()->param.name() == "device.op_overhead_us");
  CHECK(s->evaluations == 5);  // nominal, 2 ends, 2 corners
  // A parameter that moves nothing has no swing and is not decisive.
  auto flat = propagate(*p, [](const std::vector<const Profile*>& b) -> Result<std::vector<double>> {
    return std::vector<double>(b.size(), 7.0);
  });
  REQUIRE(flat.ok());
  CHECK(flat->low == 7);
  CHECK(flat->high == 7);
  CHECK(flat->decisive() == nullptr);
  CHECK(flat->evaluations == 3);  // no corners to run
}
