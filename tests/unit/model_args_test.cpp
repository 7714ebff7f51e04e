// models/model_args.h: one parser of --capacity, --prefill/--fill and --seed
// for mount, replay, simulate and the lesson page.
#include <catch2/catch.hpp>

#include "models/model_args.h"
#include "models/profile.h"

using namespace sd;

namespace {
// --capacity and --prefill as typed; `fill`: the option is simulate's --fill
// (no --capacity option beside it).
ModelArgs args(std::string capacity, std::string prefill, bool fill = false) {
  ModelArgs a;
  a.capacity = std::move(capacity);
  a.prefill = std::move(prefill);
  if (fill) a.prefill_option = "--fill", a.capacity_option = "";
  return a;
}
Profile profile(const std::vector<std::string>& sets = {}) {
  auto p = load_profile("samsung-960evo-250g", sets);
  REQUIRE(p.ok());
  return std::move(*p);
}
std::string error_of(const ModelArgs& a, const std::vector<std::string>& sets = {}) {
  auto m = apply_model_args(a, profile(sets));
  REQUIRE_FALSE(m.ok());
  return m.message();
}
}  // namespace

TEST_CASE("a prefill is a fraction of the capacity in use or a size, the same in every command", "[model_args]") {
  const double cap = profile().params(Layer::Device).get("capacity_bytes");
  REQUIRE(cap > 0);
  for (const char* text : {"50%", "0.5"}) {
    auto m = apply_model_args(args("", text), profile());
    REQUIRE(m.ok());
    CHECK(m->prefill_bytes == Approx(cap / 2));
    CHECK(m->capacity_bytes < 0);  // the profile's stays
  }
  ModelArgs seeded = args("1GB", "25%");
  seeded.seed = 7;
  auto sized = apply_model_args(seeded, profile());
  REQUIRE(sized.ok());
  CHECK(sized->capacity_bytes == 1e9);
  CHECK(sized->prefill_bytes == Approx(0.25e9));  // of --capacity, not the profile's
  CHECK(sized->seed == 7);
  ModelOptions from_trace;
  from_trace.capacity_bytes = 2e9;  // a trace's capacity_bytes line
  auto over_trace = apply_model_args(args("", "10%"), profile(), from_trace);
  REQUIRE(over_trace.ok());
  CHECK(over_trace->prefill_bytes == Approx(0.2e9));
  auto bytes = apply_model_args(args("", "10GB", true), profile());
  REQUIRE(bytes.ok());
  CHECK(bytes->prefill_bytes == 10e9);
}

TEST_CASE("model options refuse what they cannot mean, naming the option and the fix", "[model_args]") {
  CHECK(error_of(args("lots", "")) == "--capacity lots: give a size such as 16GB or 512MiB");
  CHECK(error_of(args("0", "")) == "--capacity 0: give a size such as 16GB or 512MiB");
  CHECK(error_of(args("", "85")) == "--prefill 85: give a fraction (85% or 0.85) or a size with its unit (10GB)");
  CHECK_THAT(error_of(args("", "150%", true)), Catch::StartsWith("--fill 150%: "));
  CHECK_THAT(error_of(args("1GB", "2GB")),
             Catch::StartsWith("--prefill 2GB is more than the capacity (1"));
  CHECK(error_of(args("", "50%"), {"device.capacity_bytes=0"}) ==
        "--prefill needs a capacity: the profile has none, so give --capacity too (e.g. 16GB)");
  CHECK_THAT(error_of(args("", "50%", true), {"device.capacity_bytes=0"}),
             Catch::StartsWith("--fill needs a device capacity, and profile '"));
  // An empty device needs no capacity.
  CHECK(apply_model_args(args("", "0%"), profile({"device.capacity_bytes=0"})).ok());
}
