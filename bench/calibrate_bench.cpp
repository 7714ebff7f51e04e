// calibrate's speed, as ratios measured in one run (STYLE.md 12): fitting a
// sustained-write trace vs simulating it with ModelDevice, and the read-table
// fit (which runs ModelDevice for every candidate) per table cell.
#include <chrono>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/synthetic.h"
#include "models/profile.h"

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main() {
  using namespace sd;
  auto p = load_profile("samsung-960evo-250g", {"device.burst_bytes=4GB", "device.stall_interval_mb=50",
                                                "device.stall_duration_ms=30", "device.stall_duration_sigma=0.5"});
  if (!p) return fmt::print(stderr, "{}\n", p.message()), 1;
  double t0 = now();
  Trace t = cal::synth_sustained(*p, 1 << 20, 40e9, {}, {0.02, 1});
  double t1 = now();
  auto s = cal::series_from_trace(t, "bench.csv");
  auto c = cal::calibrate_loaded({*s}, {}, {"bench.csv"}, cal::Options{});
  double t2 = now();
  if (!c) return fmt::print(stderr, "{}\n", c.message()), 1;
  double n = static_cast<double>(t.records.size());
  fmt::print("sustained write, {:.0f} writes: simulate {:.2f} s, calibrate {:.2f} s -> fitting costs {:.2f}x the "
             "simulation ({:.0f} writes/s)\n", n, t1 - t0, t2 - t1, (t2 - t1) / (t1 - t0), n / (t2 - t1));
  cal::Options o;
  o.tables = {std::string(SD_SOURCE_DIR) + "/data/tables/doc001-read.csv"};
  o.base = "samsung-sata-ssd-laptop";
  double t3 = now();
  auto r = cal::calibrate(o);
  double t4 = now();
  if (!r) return fmt::print(stderr, "{}\n", r.message()), 1;
  fmt::print("document 001 read table (32 cells): fit {:.2f} s ({:.0f} ms per cell)\n", t4 - t3, (t4 - t3) / 32 * 1e3);
  return 0;
}
