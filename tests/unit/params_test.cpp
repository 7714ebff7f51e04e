#include <cstring>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "models/params.h"
#include "models/units.h"

using namespace sd;

TEST_CASE("parameter table: keys unique per layer, defaults in range, unit in the key name", "[params]") {
  std::set<std::string> seen;
  for (const auto& s : param_table()) {
    std::string id = std::string(layer_name(s.layer)) + "." + std::string(s.key);
    INFO(id);
    CHECK(seen.insert(id).second);
    CHECK(s.min <= s.max);
    if (s.default_value) {
      CHECK(*s.default_value >= s.min);
      CHECK(*s.default_value <= s.max);
    }
    CHECK_FALSE(s.help.empty());
    std::string k(s.key);
    auto ends = [&](const char* suf) { return k.size() > strlen(suf) && k.ends_with(suf); };
    switch (s.unit) {
      case Unit::Bytes: CHECK(ends("_bytes")); break;
      case Unit::MBps: CHECK(ends("_mbps")); break;
      case Unit::Microseconds: CHECK(ends("_us")); break;
      case Unit::Milliseconds: CHECK(ends("_ms")); break;
      case Unit::MegaBytes: CHECK(ends("_mb")); break;
      default: break;
    }
  }
  CHECK(find_param(Layer::Device, "sustained_mbps") != nullptr);
  CHECK(find_param(Layer::Host, "sustained_mbps") == nullptr);
}

TEST_CASE("LayerParams: range errors name the key and the allowed range", "[params]") {
  LayerParams d(Layer::Device);
  Status st = d.set("fill_knee", 1.5, Origin::Profile);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("device.fill_knee") && Catch::Contains("0..1"));
  st = d.set("sustaned_mbps", 3, Origin::Profile);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("did you mean 'sustained_mbps'"));
  // A missing required value is reported with its range, not defaulted.
  st = d.finish("test");
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("sustained_mbps") && Catch::Contains("missing"));
  REQUIRE(d.set("sustained_mbps", 20, Origin::Profile).ok());
  REQUIRE(d.finish("test").ok());
  CHECK(d.get("burst_bytes") == 0);
  CHECK(d.entry("burst_bytes").origin == Origin::Default);
  CHECK(d.entry("sustained_mbps").origin == Origin::Profile);
}

TEST_CASE("units: sizes, rates, durations, fractions", "[units]") {
  CHECK(*parse_size("4k") == 4096);
  CHECK(*parse_size("1MiB") == 1048576);
  CHECK(*parse_size("16GB") == 16e9);
  CHECK(*parse_size("512") == 512);
  CHECK(*parse_size("1.5 GiB") == 1.5 * 1073741824.0);
  CHECK_FALSE(parse_size("-1k").ok());
  CHECK_FALSE(parse_size("12 parsecs").ok());
  CHECK_FALSE(parse_size("").ok());
  CHECK(*parse_rate("300MB/s") == 300e6);
  CHECK(*parse_rate("40MiB/s") == 40 * 1048576.0);
  CHECK_FALSE(parse_rate("0MB/s").ok());
  CHECK(*parse_duration("1.5h") == 5400);
  CHECK(*parse_duration("90s") == 90);
  CHECK(*parse_duration("20min") == 1200);
  CHECK(*parse_duration("250ms") == Approx(0.25));
  CHECK_FALSE(parse_duration("3 fortnights").ok());
  CHECK(*parse_fraction("85%") == Approx(0.85));
  CHECK(*parse_fraction("0.85") == Approx(0.85));
  CHECK_FALSE(parse_fraction("120%").ok());
  CHECK(*parse_count("48k") == 48000);
  CHECK(format_size(1048576) == "1 MiB");
  CHECK(format_size(16e9) == "16 GB");
  CHECK(format_rate(300e6) == "300 MB/s");
}

TEST_CASE("nearest: suggests close keys, stays quiet for unrelated words", "[params]") {
  std::vector<std::string> keys = {"sustained_mbps", "burst_bytes", "burst_mbps"};
  CHECK(nearest("burst_byte", keys) == "burst_bytes");
  CHECK(nearest("sustained", keys) == "sustained_mbps");
  CHECK(nearest("zzzzzzzzzzzzzzzzzzzz", keys).empty());
}
