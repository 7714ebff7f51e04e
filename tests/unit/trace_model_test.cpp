// models/trace.h TraceModel: the one writer and reader of the header lines
// that tie a trace to its model (profile, --sets, seed, capacity, prefill,
// overhead credit).
#include <catch2/catch.hpp>

#include "models/trace.h"

using namespace sd;

TEST_CASE("trace model header: what is written is read back, absent keys stay absent", "[trace]") {
  ModelOptions mo;
  mo.seed = 42;
  mo.capacity_bytes = 2e9;
  mo.prefill_bytes = 1.4e9;
  TraceModel tm = TraceModel::of("samsung-960evo-250g", {"device.sustained_mbps=40", "device.fill_knee=0.6"}, mo);
  tm.overhead_credit_s = 0.001;
  std::map<std::string, std::string> meta{{"tool", "test"}};
  tm.write(meta);
  CHECK(meta.at("set1") == "device.sustained_mbps=40");
  CHECK(meta.at("set2") == "device.fill_knee=0.6");
  auto back = TraceModel::read(meta, "t.csv");
  REQUIRE(back.ok());
  CHECK(back->profile == "samsung-960evo-250g");
  CHECK(back->sets == tm.sets);
  ModelOptions again = back->model_options();
  CHECK(again.seed == 42);
  CHECK(again.capacity_bytes == 2e9);
  CHECK(again.prefill_bytes == 1.4e9);
  CHECK(back->overhead_credit_s == 0.001);

  // A default model: no capacity or prefill lines, and reading them keeps the defaults.
  std::map<std::string, std::string> plain;
  TraceModel::of("crio-9014", {}, ModelOptions{}).write(plain);
  CHECK(plain.count("capacity_bytes") == 0);
  CHECK(plain.count("prefill_bytes") == 0);
  CHECK(plain.count("set1") == 0);
  auto p = TraceModel::read(plain, "p.csv");
  REQUIRE(p.ok());
  CHECK(p->model_options().capacity_bytes < 0);
  CHECK(p->model_options().prefill_bytes == 0);
}

TEST_CASE("trace model header: a bad number names the trace and the line", "[trace]") {
  auto r = TraceModel::read({{"profile", "x"}, {"prefill_bytes", "-5"}}, "bad.csv");
  REQUIRE(!r.ok());
  CHECK_THAT(r.message(), Catch::Contains("bad.csv") && Catch::Contains("# prefill_bytes=-5"));
  CHECK(!TraceModel::read({{"seed", "nan"}}, "s.csv").ok());
}
