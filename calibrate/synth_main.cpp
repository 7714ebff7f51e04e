// sd_synth_traces PROFILE OUTDIR [--set k=v]...: writes the synthetic
// measurements of calibrate/synthetic.h for a known profile as native traces
// (sweep.csv, sustained.csv, fill.csv if the profile has a capacity,
// buffered.csv if it has a page cache, paced-30.csv, paced-50.csv and
// paced-70.csv if its device has stalls: 120 s of 1 MiB writes paced at those
// percentages of sustained_mbps), for command-line tests and examples.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibrate/synthetic.h"
#include "models/stalls.h"

namespace {

int write(const sd::Trace& t, const std::string& path) {
  sd::TraceWriter w;
  if (auto st = w.open(path, t.meta); !st.ok()) return fmt::print(stderr, "sd_synth_traces: {}\n", st.message()), 2;
  for (const auto& r : t.records) w.write(r);
  if (auto st = w.close(); !st.ok()) return fmt::print(stderr, "sd_synth_traces: {}\n", st.message()), 2;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return fmt::print(stderr, "usage: sd_synth_traces PROFILE OUTDIR [--set k=v]...\n"), 2;
  std::vector<std::string> sets;
  for (int i = 3; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--set") sets.push_back(argv[i + 1]);
  auto p = sd::load_profile(argv[1], sets);
  if (!p) return fmt::print(stderr, "sd_synth_traces: {}\n", p.message()), 2;
  std::string dir = argv[2];
  const auto& d = p->params(sd::Layer::Device);
  double burst = d.get("burst_bytes");
  std::vector<uint64_t> sizes;
  for (uint64_t b = 512; b <= (8u << 20); b *= 4) sizes.push_back(b);
  sd::cal::Noise n{0.02, 42};
  int rc = write(sd::cal::synth_block_sweep(*p, sizes, 40, n, burst * 1.05), dir + "/sweep.csv");
  // Exhaust the cache, then three idle gaps that free 10, 20 and 30 % of it.
  double recover = d.get("recover_mbps") * 1e6, at = burst * 1.6 + 256e6;
  std::vector<std::pair<double, double>> gaps;
  if (burst > 0 && recover > 0)
    for (double frac : {0.1, 0.2, 0.3}) gaps.push_back({at, frac * burst / recover}), at += (frac + 0.3) * burst + 64e6;
  rc |= write(sd::cal::synth_sustained(*p, 1 << 20, at, gaps, n), dir + "/sustained.csv");
  if (d.get("capacity_bytes") > 0) rc |= write(sd::cal::synth_fill(*p, 1 << 20, n), dir + "/fill.csv");
  double limit = p->params(sd::Layer::Host).get("dirty_limit_bytes");
  if (limit > 0) rc |= write(sd::cal::synth_buffered(*p, 1 << 20, 3 * limit, n), dir + "/buffered.csv");
  if (sd::StallProcess(d, 0).enabled())
    for (int pct : {30, 50, 70}) {
      n.seed += 1;
      rc |= write(sd::cal::synth_paced(*p, 1 << 20, d.get("sustained_mbps") * pct / 100, 120, n),
                  fmt::format("{}/paced-{}.csv", dir, pct));
    }
  return rc;
}
