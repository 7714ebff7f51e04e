// streamdisk capacity --profile P [--profile Q | 'glob*'] [--find channels|sample-rate|buffer]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/recording_args.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/capacity.h"
#include "sim/capacity_results.h"
#include "sim/capacity_spread.h"
#include "sim/cost.h"
#include "sim/spread.h"

namespace sd::cli {
namespace {

struct CapArgs {
  std::vector<std::string> profiles;
  std::vector<std::string> sets;
  RecordingArgs rec;
  std::string find = "channels";
  std::string max_p = "5%", confidence = "95%";
  int seeds = 0;  // 0: automatic (default_seeds)
  unsigned threads = 0;
  std::vector<uint32_t> probes;
  bool json = false;
  bool no_spread = false;
  bool sort = false;
  std::string enough;  // --enough: in the target's units
};

std::string percent(double f) { return fmt::format("{:g} %", 100 * f); }

// The criterion from --max-overrun-probability, --confidence and --seeds; says
// on stderr when --seeds is too few to ever settle a candidate below the level.
Result<CapacityCriterion> criterion_of(const CapArgs& a) {
  using R = Result<CapacityCriterion>;
  CapacityCriterion crit;
  auto level = parse_fraction(a.max_p);
  if (!level || *level <= 0 || *level >= 1)
    return R::error(fmt::format("--max-overrun-probability '{}': give a probability above 0 and below 100 %, "
                                "such as 5% or 0.01",
                                a.max_p));
  auto conf = parse_fraction(a.confidence);
  if (!conf || *conf < 0.5 || *conf >= 1)
    return R::error(fmt::format("--confidence '{}': give a level from 50 % to below 100 %, such as 95%",
                                a.confidence));
  crit.max_overrun_probability = *level;
  crit.confidence = *conf;
  int need = seeds_to_settle_below(crit.max_overrun_probability, crit.confidence);
  crit.max_seeds = a.seeds ? a.seeds : std::max(200, 3 * need);
  if (crit.max_seeds < need)
    fmt::print(stderr,
               "streamdisk: note: --seeds {} cannot show P below {} at {} confidence (that takes {} clean seeds): "
               "candidates of profiles with stalls stay open and their estimate decides\n",
               crit.max_seeds, percent(crit.max_overrun_probability), percent(crit.confidence), need);
  return crit;
}

// Every --profile, globs expanded, with the --sets applied.
Result<std::vector<Profile>> profiles_of(const CapArgs& a) {
  auto specs = expand_profile_globs(a.profiles);
  if (!specs) return specs.status();
  std::vector<Profile> profiles;
  for (const auto& s : *specs) {
    auto p = load_profile(s, a.sets);
    if (!p) return p.status();
    profiles.push_back(std::move(*p));
  }
  return profiles;
}

// --enough in the searched quantity's units: channels, samples/s or bytes (0: not given).
Result<double> enough_of(const CapArgs& a, CapacityTarget target) {
  if (a.enough.empty()) return 0.0;
  auto v = target == CapacityTarget::Buffer ? parse_size(a.enough) : parse_count(a.enough);
  bool ok = v && *v >= 1;
  if (ok && target == CapacityTarget::Channels) ok = *v <= 100000 && std::floor(*v) == *v;
  if (ok && target == CapacityTarget::SampleRate) ok = *v <= 1e11;
  if (ok) return *v;
  const char* want = target == CapacityTarget::Channels
                         ? "with --find channels give a whole channel count from 1 to 100000, such as 48"
                     : target == CapacityTarget::SampleRate
                         ? "with --find sample-rate give samples per second, such as 96k or 160M"
                         : "with --find buffer give a buffer size, such as 64KiB";
  return Result<double>::error(fmt::format("--enough '{}': {}", a.enough, want));
}

// Refuses a search that would take hours, before it starts (sim/cost.h).
Status check_cost(const CapArgs& a, const std::vector<const Profile*>& all, const RecorderConfig& cfg,
                  int max_seeds, CapacityTarget target, double enough) {
  return check_capacity_cost(all, cfg, max_seeds, !a.no_spread, {}, target, enough);
}

// The searches and their spreads, with a progress line on a terminal.
Result<CapacityTable> run_searches(const CapArgs& a, const std::vector<Profile>& profiles, CapacityTable t) {
  std::vector<CapacityQuery> queries;
  std::vector<const Profile*> ptrs;
  for (const auto& p : profiles) {
    auto mo = model_options(a.rec, p);
    if (!mo) return mo.status();
    CapacityQuery q;
    q.base = t.recording, q.target = t.target, q.criterion = t.criterion, q.model = *mo, q.probes = a.probes;
    q.threads = a.threads, q.enough = t.enough;
    queries.push_back(std::move(q));
    ptrs.push_back(&p);
  }
  bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) fmt::print(stderr, "\rsearching {} profile{}...", profiles.size(), profiles.size() == 1 ? "" : "s");
  auto results = find_capacities(ptrs, queries, a.threads);
  std::vector<std::optional<Spread>> spreads(profiles.size());
  if (t.with_spread) {
    if (tty) fmt::print(stderr, "\rspread over the estimates' ranges...{:20}", "");
    auto sp = capacity_spreads(ptrs, queries, &results, a.threads);
    if (!sp) return sp.status();
    for (size_t i = 0; i < sp->size(); ++i) spreads[i] = (*sp)[i];
  }
  if (tty) fmt::print(stderr, "\r{:80}\r", "");
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (!results[i]) return results[i].status();
    t.rows.push_back({profiles[i].name, std::move(*results[i]), spreads[i]});
  }
  return t;
}

}  // namespace

Handler setup_capacity(CLI::App& sub) {
  auto a = std::make_shared<CapArgs>();
  sub.add_option("-p,--profile", a->profiles,
                 "Profile(s) to compare: names, TOML files, HOST+FS+DEVICE, or globs over the built-in names "
                 "('rpi4-*+exfat-*+sandisk-*'); repeatable")
      ->required();
  sub.add_option("--set", a->sets, "Override a parameter in every profile: --set device.sustained_mbps=20")
      ->type_name("KEY=VALUE");
  add_recording_options(sub, a->rec);
  sub.add_option("--find", a->find,
                 "What to search: channels (the most, default), sample-rate (the highest, at --channels), "
                 "buffer (the smallest, at --channels)");
  sub.add_option("--max-overrun-probability", a->max_p,
                 "The criterion: the answer is the highest value (most channels, highest rate, smallest buffer) "
                 "at which P(>=1 overrun over the whole recording) stays below this (default 5%)")
      ->type_name("P");
  sub.add_option("--confidence", a->confidence,
                 "Confidence of each Clopper-Pearson bound on that probability (default 95%)")
      ->type_name("C");
  sub.add_option("--seeds", a->seeds,
                 "Stall seeds per candidate at most (default 200, or 3x the seeds a clean pass needs at the "
                 "level when more); a candidate stops as soon as its bounds settle on one side of the level")
      ->check(whole_number_check() & CLI::Range(1, 100000));
  sub.add_option("--threads", a->threads, "Threads running seeds (default: every core); results do not depend on it")
      ->check(whole_number_check() & CLI::Range(1, 1024));
  sub.add_option("--probe", a->probes,
                 "Channel counts at which to report P(>=1 overrun) with its bounds, e.g. --probe 18,32,48 (--find channels only)")
      ->delimiter(',');
  sub.add_flag("--json", a->json, "Print JSON instead of a table");
  sub.add_flag("--no-spread", a->no_spread,
               "Skip the spread: by default each search is repeated with each estimated parameter at either end of "
               "its range, and the answer is reported as a range with the most likely value");
  sub.add_flag("--sort", a->sort, "Sort the profiles by the answer, best first (a buyer's table)");
  CLI::Option* enough_opt = sub.add_option("--enough", a->enough,
                 "What is enough: the search goes no further than this many channels (--find channels), this "
                 "sample rate (sample-rate) or this buffer (buffer: no smaller), and an answer there reads '>= 48' "
                 "('<= 64KiB'). A buyer who needs 24 channels asks --enough 48: an SSD then costs one 48-channel "
                 "recording, not a search up to the 1,900 it could record")
      ->type_name("VALUE");
  sub.footer(
      "Criterion: the answer is the highest value at which P(>=1 overrun or early stop over the whole\n"
      "recording) < --max-overrun-probability. Stalls are the only randomness: each candidate runs seeds\n"
      "1, 2, ... until the Clopper-Pearson interval of that probability (each bound at --confidence) lies\n"
      "entirely below or above the level, or --seeds run out (then the estimate decides and the candidate\n"
      "is 'open'). A pass needs at least 59 clean seeds at 5 % and 95 %. Profiles without random stalls\n"
      "need one exact run. The band spans the open candidates around the answer. See docs/capacity.md.\n\n"
      "Examples:\n"
      "  streamdisk capacity -p rpi4-buster+exfat-fuse+sandisk-ultrafit-16g -r 48k -b 16 -f w64 -d 1.5h\n"
      "  streamdisk capacity -p 'rpi4-*+exfat-*+sandisk-*' -r 48k -b 16 -f w64 --buffer 1MiB -d 1.5h --probe 18,32,48\n"
      "  streamdisk capacity -p rpi4-buster-ultrafit-exfat -r 48k -b 16 -f w64 -d 1.5h --max-overrun-probability 1%\n"
      "  streamdisk capacity -p usrp-2974 --find sample-rate -c 2 -b 16 --buffer 256MiB -d 10min\n"
      "  streamdisk capacity -p crio-9014 --find buffer -c 4 -r 51.2k -b 32 -d 20min\n"
      "  streamdisk capacity -p 'rpi4-bullseye+exfat-kernel+*' -p 'rpi4-buster+exfat-fuse+*' -r 48k -b 16 -f w64 \\\n"
      "      -d 2h --sort --enough 48    # which stick for 24 channels? A buyer's table with ranges\n\n"
      "Spread: the profiles' estimated parameters carry ranges (docs/profiles.md, 'Ranges'); each search\n"
      "is repeated with each at either end of its range, then at the two corners (corner bounds, 2k + 3\n"
      "searches for k parameters, the same seeds), and the answer is shown as a range with the most likely\n"
      "value, naming the parameter that moves it most and the characterize step that measures it. The\n"
      "spread's searches take shortcuts that keep their answers (the most likely value is not searched\n"
      "again, identical profiles once, seeds stop once a verdict is certain, a seed's verdict carries over\n"
      "between channel counts, seeds that overran in the other searches run first; docs/capacity.md).\n"
      "Requests estimated at over 10 min of CPU are refused (over that, a short pilot run of each profile's\n"
      "recording prices the writes the simulator steps over; docs/capacity.md, 'What a search costs').");
  return [a, enough_opt] {
    if (enough_opt->count() > 0 && a->enough.empty())
      return bad_input("--enough needs a value: channels (48), a sample rate (96k) or a buffer size (64KiB)");
    auto target = capacity_target_from_name(a->find);
    if (!target) return bad_input(target.message());
    for (uint32_t c : a->probes)
      if (c < 1) return bad_input("--probe channel counts must be 1 or more");
    if (!a->probes.empty() && *target != CapacityTarget::Channels)
      return bad_input("--probe takes channel counts, for --find channels only; for P at a rate or a buffer, run "
                       "`streamdisk simulate` there with --seed 1, 2, ...");
    auto crit = criterion_of(*a);
    if (!crit) return bad_input(crit.message());
    auto profiles = profiles_of(*a);
    if (!profiles) return bad_input(profiles.message());
    auto cfg = recorder_config(a->rec, *target == CapacityTarget::Channels ? 1 : 0);
    if (!cfg) return bad_input(cfg.message());
    std::vector<const Profile*> all;
    for (const auto& p : *profiles) all.push_back(&p);
    auto enough = enough_of(*a, *target);
    if (!enough) return bad_input(enough.message());
    if (Status st = check_cost(*a, all, *cfg, crit->max_seeds, *target, *enough); !st.ok())
      return bad_input(st.message());
    auto table = run_searches(*a, *profiles, {*target, *crit, *cfg, !a->no_spread, *enough, {}});
    if (!table) return bad_input(table.message());
    if (a->sort) sort_best_first(*table);
    if (a->json) fmt::print("{}\n", capacity_json(*table).dump(2));
    else fmt::print("{}", capacity_text(*table));
    return kExitOk;
  };
}

}  // namespace sd::cli
