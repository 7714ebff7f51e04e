// Simulator speed, as ratios measured in one run (STYLE.md 12):
//   1. 1.5 h of 48 ch x 48 kHz x 24-bit W64 in 1 MiB writes: simulated seconds per wall second
//      (target >= 10,000x real time);
//   2. a 16 GB stream in 4 KiB writes: modelled operations per wall second (target >= 5 M/s);
//   3. `capacity` over every built-in profile with a device, 1.5 h at 48 kHz x 24-bit W64,
//      1 MiB buffer, the default criterion (P(>=1 overrun) < 5 %): wall seconds on every core
//      (target < 2 s), CPU/wall, simulated seconds per wall second, and the same on one thread
//      (speed-up; answers must be identical); then the critical path alone, samsung-870qvo-4t (no
//      random stalls: one run per candidate, so the cores help only through the search's
//      speculative candidates), on every core against one thread.
//   4. the buyer's table with ranges (issue 17): `capacity --sort` over every built-in device on
//      the Pi 4's two exFAT stacks ('rpi4-bullseye+exfat-kernel+*', 'rpi4-buster+exfat-fuse+*'),
//      2 h at 48 kHz x 16-bit W64, 1 MiB buffer, with the spread over the estimates' ranges
//      (sim/capacity_spread.h): wall and CPU with the shortcuts, and with every write through the model
//      (RecorderConfig::step_steady off: the steady stretches not stepped over; answers must be identical);
//      the buyer's own question, 24 channels needed, with --enough 48 (CapacityQuery::enough: every
//      answer must be the uncapped table's up to 48); then document 003's stack alone
//      (rpi4-buster-ultrafit-exfat, 12 ranged parameters) with the shortcuts against the plain
//      computation (speed-up; answers must be identical); the table also without failing seeds first
//      (SpreadShortcuts::failing_first: answers must be identical).
//   Lines 3 and 4 also print the seeds used and the capacity command's cost check (sim/cost.h): its
//   estimate against the CPU time measured. `sim_bench cost` (not in the default run): that estimate
//   per built-in profile's search on one thread, the calibration of sim/cost.h's constants;
//   `sim_bench cost PROFILE...` (files or names): a sample-rate search with the spread per profile
//   (characterize's headline, 60 s raw, 256 KiB blocks, 4 MiB and 1 MiB), estimate against CPU.
//    Speed figures depend on the machine's load: run it with `uptime` beside it.
// Run: build/bench/sim_bench   (or cmake --build build --target bench); build/bench/sim_bench capacity: lines 5-8
// only; build/bench/sim_bench spread: lines 9-15 only; build/bench/sim_bench cost; build/bench/sim_bench perstack:
// line 9's table stack by stack (CPU, searches, recordings, full-length recordings' worth: where its time goes), each
// also with every write through the model (the steady stretches' speed-up per stack)
#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/model_device.h"
#include "models/profile.h"
#include "sim/capacity.h"
#include "sim/capacity_spread.h"
#include "sim/cost.h"
#include "sim/recorder.h"

using namespace sd;

namespace {

double cpu() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double wall() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Profile must_load(const std::string& spec) {
  auto p = load_profile(spec);
  if (!p) {
    fmt::print(stderr, "sim_bench: {}\n", p.message());
    std::exit(1);
  }
  return *p;
}

RecorderResult record(const Profile& p, const RecorderConfig& c) {
  ModelDevice dev(p);
  VirtualClock clock;
  return *run_recorder(dev, clock, c);
}

void long_recording(const char* spec) {
  Profile p = must_load(spec);
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.format = FormatKind::W64;
  c.buffer_bytes = 4ull << 20;
  c.block_bytes = 1ull << 20;
  c.duration_s = 5400;
  double best = 1e9, best_cpu = 1e9;
  RecorderResult r;
  for (int i = 0; i < 3; ++i) {
    double t = wall(), tc = cpu();
    r = record(p, c);
    best = std::min(best, wall() - t);
    best_cpu = std::min(best_cpu, std::max(cpu() - tc, 1e-6));
  }
  fmt::print("1.5 h, 48 ch x 48 kHz x 24-bit W64, 1 MiB writes, {:<28} {:>9.0f}x real time ({:.0f}x per CPU second; "
             "{} ops, {:.3f} s)\n",
             spec, c.duration_s / best, c.duration_s / best_cpu, r.ops, best);
}

void small_writes(const char* spec) {
  Profile p = must_load(spec);
  RecorderConfig c;
  c.stream = {1, 100e6, 8, false};  // 100 MB/s for 160 s: 16 GB, slower than both drives
  c.buffer_bytes = 64ull << 20;
  c.block_bytes = 4096;
  c.duration_s = 160;
  double t = wall(), tc = cpu();
  RecorderResult r = record(p, c);
  double dt = wall() - t, dc = cpu() - tc;
  fmt::print("16 GB stream in 4 KiB writes, {:<28} {:>6.2f} M modelled ops/s ({:.2f} M per CPU second; {} ops, "
             "{:.3f} s, {} overruns)\n",
             spec, static_cast<double>(r.ops) / dt / 1e6, static_cast<double>(r.ops) / dc / 1e6, r.ops, dt,
             r.overrun_events);
}

struct CapacityRun {
  double wall = 0, cpu = 0, simulated = 0;
  uint64_t runs = 0, wasted = 0;
  unsigned threads = 0;
  int max_seeds = 0;  // the most seeds one candidate ran
  std::vector<double> answers;
};

RecorderConfig capacity_config() {
  RecorderConfig c;
  c.stream = {1, 48000, 24, false};
  c.format = FormatKind::W64;
  c.buffer_bytes = 1ull << 20;
  c.duration_s = 5400;
  return c;
}

std::vector<const Profile*> pointers(const std::vector<Profile>& profiles) {
  std::vector<const Profile*> out;
  for (const auto& p : profiles) out.push_back(&p);
  return out;
}

// The capacity command's cost check (sim/cost.h): its estimate in CPU seconds.
double estimate_s(const std::vector<Profile>& profiles, const RecorderConfig& c, bool spread) {
  return capacity_command_seconds(pointers(profiles), c, CapacityCriterion{}.max_seeds, spread);
}

CapacityRun capacity_all(const std::vector<Profile>& profiles, unsigned threads) {
  RecorderConfig c = capacity_config();
  CapacityRun out;
  std::vector<const Profile*> ptrs;
  std::vector<CapacityQuery> queries;
  for (const auto& p : profiles) {
    CapacityQuery q;
    q.base = c;
    q.threads = threads;  // the default criterion: P(>=1 overrun) < 5 %, 95 % bounds
    ptrs.push_back(&p);
    queries.push_back(q);
  }
  double t = wall(), cpu0 = cpu();
  for (auto& r : find_capacities(ptrs, queries, threads)) {  // as `capacity -p P -p Q ...` runs them
    out.runs += r->runs, out.wasted += r->wasted_runs, out.threads = r->threads, out.simulated += r->simulated_s;
    out.answers.push_back(r->best);
    for (const auto& cand : r->candidates) out.max_seeds = std::max(out.max_seeds, cand.seeds);
  }
  out.wall = wall() - t;
  out.cpu = cpu() - cpu0;
  return out;
}

void capacity_all() {
  std::vector<Profile> profiles, critical;
  for (const auto& info : builtin_profiles())
    if (!info.layer || *info.layer == Layer::Device) profiles.push_back(must_load(info.name));
  CapacityRun all = capacity_all(profiles, 0), one = capacity_all(profiles, 1);
  fmt::print("capacity, {} built-in profiles, 1.5 h, P(>=1 overrun) < 5 %: {:.2f} s wall on {} threads, {:.2f} s CPU "
             "(CPU/wall {:.2f}; seeds used: {} recordings + {} discarded, at most {} seeds per candidate; {:.3g} "
             "simulated s per wall second; target < 2 s)\n",
             profiles.size(), all.wall, all.threads, all.cpu, all.cpu / all.wall, all.runs, all.wasted, all.max_seeds,
             all.simulated / all.wall);
  double est = estimate_s(profiles, capacity_config(), false);
  fmt::print("  the cost check's estimate (sim/cost.h): {:.2f} s of CPU, {:.2f}x the CPU measured\n", est,
             est / all.cpu);
  fmt::print("  the same on 1 thread: {:.2f} s wall, {:.2f} s CPU (speed-up {:.2f}x); answers {}\n", one.wall, one.cpu,
             one.wall / all.wall, one.answers == all.answers ? "identical" : "DIFFER (a bug: seeds are seeds)");
  critical.push_back(must_load("samsung-870qvo-4t"));
  CapacityRun c_all = capacity_all(critical, 0), c_one = capacity_all(critical, 1);
  fmt::print("  samsung-870qvo-4t alone: {:.2f} s wall on {} threads ({:.2f} s CPU, {} recordings + {} speculative "
             "ones discarded), {:.2f} s on 1 thread (speed-up {:.2f}x); answers {}\n",
             c_all.wall, c_all.threads, c_all.cpu, c_all.runs, c_all.wasted, c_one.wall, c_one.wall / c_all.wall,
             c_one.answers == c_all.answers ? "identical" : "DIFFER (a bug)");
}

void buyers_cost();

// The cost check's estimate per search against the CPU time it took (one
// thread, so CPU time is the search's own), with the full-length recordings
// it simulated: what sim/cost.h's constants are calibrated on.
// With profile files (`sim_bench cost FILE...`, e.g. bench/rig_truth.s14's
// measured profiles): the README's rig recording instead (raw 8-bit, 256 KiB
// blocks, 60 s) at buffers of 4 MiB and 1 MiB, each profile's search with the
// spread (one search per ranged value's end) the way characterize asks it.
void cost_per_search(const std::vector<std::string>& files = {}) {
  RecorderConfig c = capacity_config();
  if (!files.empty()) {
    c.stream = {1, 1000000, 8, false};
    c.format = FormatKind::Raw;
    c.block_bytes = 256 << 10;
    c.duration_s = 60;
  }
  double est_all = 0, cpu_all = 0;
  std::vector<std::pair<std::string, uint64_t>> todo;
  for (const auto& f : files) for (uint64_t b : {4ull << 20, 1ull << 20}) todo.push_back({f, b});
  if (files.empty())
    for (const auto& info : builtin_profiles())
      if (!info.layer || *info.layer == Layer::Device) todo.push_back({info.name, c.buffer_bytes});
  for (const auto& [spec, buffer] : todo) {
    Profile p = must_load(spec);
    c.buffer_bytes = buffer;
    if (!files.empty()) {
      CapacityQuery q;
      q.base = c;
      q.threads = 1;
      q.target = CapacityTarget::SampleRate;
      std::vector<const Profile*> ps = {&p};
      std::vector<CapacityQuery> qs = {q};
      double est = capacity_command_seconds(ps, c, q.criterion.max_seeds, true, {}, q.target);
      double t = cpu();
      SpreadCost sc;
      auto sp = capacity_spreads(ps, qs, nullptr, 1, {}, &sc);
      double dt = std::max(cpu() - t, 1e-6);
      est_all += est, cpu_all += dt;
      SearchEstimate e = estimate_capacity_search(p, c, q.criterion.max_seeds, true, {}, q.target);
      fmt::print("  {:<44} {} MiB, spread ({} ranged): estimate {:7.2f} s ({:.0f} recordings of {:.3g} steps per "
                 "search), measured {:6.2f} s CPU ({} searches, {:.0f} recordings per search), ratio {:.2f}\n",
                 spec, buffer >> 20, ranged_params(p).size(), est, e.recordings, e.one.steps(), dt, sc.searches,
                 sc.simulated_s / c.duration_s / std::max<double>(1, sc.searches), est / dt);
      continue;
    }
    CapacityQuery q;
    q.base = c;
    q.threads = 1;
    double t = cpu();
    auto r = find_capacity(p, q);
    double dt = std::max(cpu() - t, 1e-6);
    SearchEstimate e = estimate_capacity_search(p, c, q.criterion.max_seeds, false);
    double est = e.cpu_seconds();
    est_all += est, cpu_all += dt;
    fmt::print("  {:<32} stalls {:d}: estimate {:7.3f} s ({:.0f} recordings of {:.3g} steps), measured {:7.3f} s CPU "
               "({} runs, {:.1f} full-length), ratio {:.2f}; {:.3g} steps per CPU second\n",
               spec, r->stalls, est, e.recordings, e.one.steps(), dt, r->runs, r->simulated_s / c.duration_s,
               est / dt, e.one.steps() * (r->simulated_s / c.duration_s) / dt);
  }
  if (!files.empty()) {
    fmt::print("cost check, capacity with the spread, 60 s raw, 256 KiB blocks: estimate {:.2f} s, measured {:.2f} s "
               "CPU, ratio {:.2f}\n", est_all, cpu_all, est_all / cpu_all);
    return;
  }
  fmt::print("cost check per search, 1.5 h, 48 kHz x 24-bit W64, 1 MiB: estimate {:.2f} s, measured {:.2f} s CPU, "
             "ratio {:.2f}\n", est_all, cpu_all, est_all / cpu_all);
  buyers_cost();
}

struct SpreadTiming {
  double wall = 0, cpu = 0;
  SpreadCost cost;
  std::vector<Spread> spreads;
};

// `capacity --sort` with the spread, as the command runs it: the nominal
// searches, then the spread's stages (sim/capacity_spread.h).
RecorderConfig buyers_config(double seconds = 7200) {
  RecorderConfig c;
  c.stream = {1, 48000, 16, false};
  c.format = FormatKind::W64;
  c.buffer_bytes = 1ull << 20;
  c.duration_s = seconds;
  return c;
}

SpreadTiming buyers_table(const std::vector<Profile>& profiles, SpreadShortcuts sc, bool step_steady = true,
                          double seconds = 7200, double enough = 0) {
  RecorderConfig c = buyers_config(seconds);
  c.step_steady = step_steady;
  std::vector<const Profile*> ptrs;
  std::vector<CapacityQuery> queries;
  for (const auto& p : profiles) {
    CapacityQuery q;
    q.base = c;
    q.enough = enough;
    ptrs.push_back(&p);
    queries.push_back(q);
  }
  SpreadTiming out;
  double t = wall(), cpu0 = cpu();
  auto nominal = find_capacities(ptrs, queries);
  auto sp = capacity_spreads(ptrs, queries, &nominal, 0, sc, &out.cost);
  out.wall = wall() - t;
  out.cpu = cpu() - cpu0;
  if (!sp) {
    fmt::print(stderr, "sim_bench: {}\n", sp.message());
    std::exit(1);
  }
  out.spreads = *sp;
  return out;
}

bool same_spreads(const std::vector<Spread>& a, const std::vector<Spread>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].nominal != b[i].nominal || a[i].low != b[i].low || a[i].high != b[i].high) return false;
    if (a[i].corner_low != b[i].corner_low || a[i].corner_high != b[i].corner_high) return false;
    if (a[i].effects.size() != b[i].effects.size()) return false;
    for (size_t j = 0; j < a[i].effects.size(); ++j)  // every parameter's two ends
      if (a[i].effects[j].at_lo != b[i].effects[j].at_lo || a[i].effects[j].at_hi != b[i].effects[j].at_hi)
        return false;
  }
  return true;
}

std::vector<Profile> buyers_profiles() {
  auto specs = expand_profile_globs({"rpi4-bullseye+exfat-kernel+*", "rpi4-buster+exfat-fuse+*"});
  if (!specs) {
    fmt::print(stderr, "sim_bench: {}\n", specs.message());
    std::exit(1);
  }
  std::vector<Profile> table;
  for (const auto& s : *specs) table.push_back(must_load(s));
  return table;
}

void spread_tables() {
  std::vector<Profile> table = buyers_profiles();
  SpreadTiming all = buyers_table(table, {});
  fmt::print("buyer's table with ranges, {} stacks (the Pi 4's two exFAT stacks x every device), 2 h, 48 kHz x 16-bit "
             "W64, 1 MiB: {:.2f} s wall, {:.2f} s CPU (CPU/wall {:.2f}; {} spread searches, {} answers reused, {} "
             "recordings; target < 2 s)\n",
             table.size(), all.wall, all.cpu, all.cpu / all.wall, all.cost.searches, all.cost.reused, all.cost.runs);
  // The buyer's own question (docs/tutorials/buyers-table.md): 24 channels
  // needed, so twice that is enough. Each answer must be the uncapped one's,
  // up to 48: min(answer, 48) at every end of every range.
  SpreadTiming need = buyers_table(table, {}, true, 7200, 48);
  bool capped_same = need.spreads.size() == all.spreads.size();
  int at_enough = 0;
  for (size_t i = 0; capped_same && i < all.spreads.size(); ++i) {
    const Spread &a = all.spreads[i], &b = need.spreads[i];
    auto cap = [](double v) { return std::min(v, 48.0); };
    capped_same = b.nominal == cap(a.nominal) && b.low == cap(a.low) && b.high == cap(a.high);
    at_enough += b.low >= 48;
  }
  fmt::print("  the buyer's question, 24 channels needed, --enough 48: {:.2f} s wall, {:.2f} s CPU ({:.1f}x faster "
             "wall, {:.1f}x CPU; {} recordings; target < 2 s); {} stacks record >= 48 at every end of every range; "
             "every answer the uncapped table's up to 48: {}\n",
             need.wall, need.cpu, all.wall / need.wall, all.cpu / need.cpu, need.cost.runs, at_enough,
             capped_same ? "yes" : "NO (a bug)");
  SpreadTiming every = buyers_table(table, {}, false);
  fmt::print("  every write through the model (no steady stretches stepped over, RecorderConfig::step_steady): {:.2f} "
             "s wall, {:.2f} s CPU: {:.2f}x the CPU, {:.2f}x the wall; answers {}\n",
             every.wall, every.cpu, every.cpu / all.cpu, every.wall / all.wall,
             same_spreads(all.spreads, every.spreads) ? "identical" : "DIFFER (a bug)");
  fmt::print("  per search: {:.1f} full-length recordings' worth simulated ({:.0f} virtual s)\n",
             all.cost.simulated_s / buyers_config().duration_s / static_cast<double>(all.cost.searches),
             all.cost.simulated_s / static_cast<double>(all.cost.searches));
  SpreadShortcuts in_order;
  in_order.failing_first = false;
  SpreadTiming prev = buyers_table(table, in_order);
  fmt::print("  without failing seeds first (the seeds in order): {:.2f} s wall, {:.2f} s CPU, {} recordings ({:.1f} "
             "full-length per search): {:.2f}x the CPU; answers {}\n",
             prev.wall, prev.cpu, prev.cost.runs,
             prev.cost.simulated_s / buyers_config().duration_s / static_cast<double>(prev.cost.searches),
             prev.cpu / all.cpu, same_spreads(all.spreads, prev.spreads) ? "identical" : "DIFFER (a bug)");
  double est = estimate_s(table, buyers_config(), true);
  fmt::print("  the cost check's estimate (sim/cost.h): {:.1f} s of CPU, {:.2f}x the CPU measured (refused over {:.0f} "
             "s)\n",
             est, est / all.cpu, kMaxSeconds);
  std::vector<Profile> one = {must_load("rpi4-buster-ultrafit-exfat")};
  SpreadTiming fast = buyers_table(one, {}), plain = buyers_table(one, SpreadShortcuts::none());
  fmt::print("  rpi4-buster-ultrafit-exfat with its range ({:g}-{:g} channels, most likely {:g}): {:.2f} s wall, {:.2f} "
             "s CPU ({} recordings) against the plain computation's {:.2f} s wall, {:.2f} s CPU ({} recordings): "
             "speed-up {:.2f}x wall, {:.2f}x CPU; answers {}\n",
             fast.spreads[0].low, fast.spreads[0].high, fast.spreads[0].nominal, fast.wall, fast.cpu, fast.cost.runs,
             plain.wall, plain.cpu, plain.cost.runs, plain.wall / fast.wall, plain.cpu / fast.cpu,
             same_spreads(fast.spreads, plain.spreads) ? "identical" : "DIFFER (a bug, or a search that is not monotone)");
}

// `sim_bench perstack`: the buyer's table one stack at a time, each with its
// spread as the command runs it (one search set per stack, every core).
void per_stack() {
  auto specs = expand_profile_globs({"rpi4-bullseye+exfat-kernel+*", "rpi4-buster+exfat-fuse+*"});
  for (const auto& spec : *specs) {
    std::vector<Profile> one = {must_load(spec)};
    SpreadTiming t = buyers_table(one, {}), every = buyers_table(one, {}, false);
    fmt::print("{:55} cpu {:6.2f} searches {:3} runs {:6} full-length {:7.1f} answer {:g}-{:g}; every write through "
               "the model: cpu {:6.2f} ({:.1f}x), answers {}\n",
               spec, t.cpu, t.cost.searches, t.cost.runs, t.cost.simulated_s / buyers_config().duration_s,
               t.spreads[0].low, t.spreads[0].high, every.cpu, every.cpu / t.cpu,
               same_spreads(t.spreads, every.spreads) ? "identical" : "DIFFER (a bug)");
  }
}

// The cost check on the buyer's table (with the spread) for longer and longer
// recordings: the plain estimate (every write priced), the piloted one
// (sim/cost.h piloted_steps: what the check decides with once the plain one is
// over the limit) with the pilots' own CPU, and the CPU the table took.
void buyers_cost() {
  std::vector<Profile> table = buyers_profiles();
  auto ptrs = pointers(table);
  for (double hours : {2.0, 8.0, 24.0}) {
    RecorderConfig c = buyers_config(hours * 3600);
    int seeds = CapacityCriterion{}.max_seeds;
    double plain = capacity_command_seconds(ptrs, c, seeds, true);
    double t = cpu();
    double piloted = capacity_command_seconds(ptrs, c, seeds, true, {}, CapacityTarget::Channels, true);
    double pilots = cpu() - t;
    SpreadTiming run = buyers_table(table, {}, true, c.duration_s);
    fmt::print("cost check, buyer's table with the spread, {:g} h: plain estimate {:.0f} s ({:.1f}x), piloted {:.0f} "
               "s ({:.1f}x; the pilots took {:.2f} s), measured {:.1f} s CPU ({:.1f} s wall); refused over {:.0f} "
               "s\n",
               hours, plain, plain / run.cpu, piloted, piloted / run.cpu, pilots, run.cpu, run.wall, kMaxSeconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // `sim_bench capacity`: only the capacity lines (5-8); `sim_bench spread`: only the spread lines (9-14).
  std::string only = argc >= 2 ? argv[1] : "";
  if (only.empty()) {
    long_recording("rpi4-buster-ultrafit-exfat");
    long_recording("usrp-2974");
    small_writes("laptop-doc001");
    small_writes("usrp-2974");
  }
  if (only.empty() || only == "capacity") capacity_all();
  if (only.empty() || only == "spread") spread_tables();
  if (only == "cost") cost_per_search(std::vector<std::string>(argv + 2, argv + argc));
  if (only == "perstack") per_stack();
  return 0;
}
