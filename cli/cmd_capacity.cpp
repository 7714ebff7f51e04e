// streamdisk capacity --profile P [--profile Q | 'glob*'] [--find channels|sample-rate|buffer]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/recording_args.h"
#include "cli/spread_report.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/capacity.h"
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
};

std::string best_text(CapacityTarget t, const CapacityResult& r) {
  if (!r.found) return "none";
  switch (t) {
    case CapacityTarget::Channels: return fmt::format("{:.0f}", r.best);
    case CapacityTarget::SampleRate:
      return r.best >= 1e6 ? fmt::format("{:.4g} MHz", r.best / 1e6) : fmt::format("{:.4g} kHz", r.best / 1e3);
    case CapacityTarget::Buffer: return format_size(r.best);
  }
  return "?";
}

std::string percent(double f) { return fmt::format("{:g} %", 100 * f); }


// "0/59 [0, 0.05]" or "0 (exact)"
std::string stats_text(const CapacityResult& r, const CandidateStats& c) {
  if (!r.stalls) return fmt::format("{} (exact)", c.seeds_with_overrun ? 1 : 0);
  return fmt::format("{}/{} [{:.3g}, {:.3g}]", c.seeds_with_overrun, c.seeds, c.p.low, c.p.high);
}

std::string side_text(const CandidateStats& c) {
  switch (c.side) {
    case Side::Below: return "below";
    case Side::Above: return "above";
    case Side::Open: return c.pass ? "open (estimate below)" : "open (estimate above)";
  }
  return "?";
}

nlohmann::json stats_json(const CandidateStats& c) {
  return {{"value", c.value},
          {"seeds_with_overrun", c.seeds_with_overrun},
          {"seeds", c.seeds},
          {"probability", c.probability()},
          {"p_low", c.p.low},
          {"p_high", c.p.high},
          {"vs_level", c.side == Side::Below ? "below" : c.side == Side::Above ? "above" : "open"},
          {"meets_criterion", c.pass}};
}

nlohmann::json result_json(const std::string& name, CapacityTarget t, const CapacityResult& r) {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : r.probes) {
    nlohmann::json j = stats_json(p.stats);
    j["channels"] = p.channels;
    probes.push_back(j);
  }
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& c : r.candidates) cands.push_back(stats_json(c));
  auto num = [&](double v) { return r.found ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"profile", name},
          {"found", r.found},
          {"best", num(r.best)},
          {"band", {{"low", num(r.band_low)}, {"high", num(r.band_high)}}},
          {"at_best", r.found ? stats_json(r.at_best) : nlohmann::json(nullptr)},
          {"limited_by", r.limited_by},
          {"first_overrun_s", r.first_overrun_s >= 0 ? nlohmann::json(r.first_overrun_s) : nlohmann::json(nullptr)},
          {"random_stalls", r.stalls},
          {"max_seeds", r.max_seeds},
          {"runs", r.runs},
          {"candidates", cands},
          {"probes", probes}};
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
                 "Channel counts at which to report P(>=1 overrun) with its bounds, e.g. --probe 18,32,48")
      ->delimiter(',');
  sub.add_flag("--json", a->json, "Print JSON instead of a table");
  sub.add_flag("--no-spread", a->no_spread,
               "Skip the spread: by default each search is repeated with each estimated parameter at either end of "
               "its range, and the answer is reported as a range with the most likely value");
  sub.add_flag("--sort", a->sort, "Sort the profiles by the answer, best first (a buyer's table)");
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
      "      -d 2h --sort          # a buyer's table with ranges (~1.5 min of CPU)\n\n"
      "Spread: the profiles' estimated parameters carry ranges (docs/profiles.md, 'Ranges'); each search\n"
      "is repeated with each at either end of its range, then at the two corners (corner bounds, 2k + 3\n"
      "searches for k parameters, the same seeds), and the answer is shown as a range with the most likely\n"
      "value, naming the parameter that moves it most and the characterize step that measures it. The\n"
      "spread's searches take shortcuts that keep their answers (the most likely value is not searched\n"
      "again, identical profiles once, seeds stop once a verdict is certain, a seed's verdict carries over\n"
      "between channel counts; docs/capacity.md). Requests estimated at over 10 min of CPU are refused.");
  return [a] {
    CapacityTarget target;
    if (a->find == "channels") target = CapacityTarget::Channels;
    else if (a->find == "sample-rate") target = CapacityTarget::SampleRate;
    else if (a->find == "buffer") target = CapacityTarget::Buffer;
    else return bad_input(fmt::format("--find '{}': use channels, sample-rate or buffer", a->find));
    for (uint32_t c : a->probes)
      if (c < 1) return bad_input("--probe channel counts must be 1 or more");
    CapacityCriterion crit;
    auto level = parse_fraction(a->max_p);
    if (!level || *level <= 0 || *level >= 1)
      return bad_input(fmt::format("--max-overrun-probability '{}': give a probability above 0 and below 100 %, "
                                   "such as 5% or 0.01",
                                   a->max_p));
    auto conf = parse_fraction(a->confidence);
    if (!conf || *conf < 0.5 || *conf >= 1)
      return bad_input(fmt::format("--confidence '{}': give a level from 50 % to below 100 %, such as 95%",
                                   a->confidence));
    crit.max_overrun_probability = *level;
    crit.confidence = *conf;
    int need = seeds_to_settle_below(crit.max_overrun_probability, crit.confidence);
    crit.max_seeds = a->seeds ? a->seeds : std::max(200, 3 * need);
    if (crit.max_seeds < need)
      fmt::print(stderr,
                 "streamdisk: note: --seeds {} cannot show P below {} at {} confidence (that takes {} clean seeds): "
                 "candidates of profiles with stalls stay open and their estimate decides\n",
                 crit.max_seeds, percent(crit.max_overrun_probability), percent(crit.confidence), need);
    auto specs = expand_profile_globs(a->profiles);
    if (!specs) return bad_input(specs.message());
    std::vector<Profile> profiles;
    for (const auto& s : *specs) {
      auto p = load_profile(s, a->sets);
      if (!p) return bad_input(p.message());
      profiles.push_back(std::move(*p));
    }
    auto cfg = recorder_config(a->rec, target == CapacityTarget::Channels ? 1 : 0);
    if (!cfg) return bad_input(cfg.message());
    std::vector<const Profile*> all;
    for (const auto& p : profiles) all.push_back(&p);
    if (auto st = check_capacity_cost(all, *cfg, crit.max_seeds, !a->no_spread); !st.ok())
      return bad_input(st.message());
    bool tty = isatty(STDERR_FILENO) != 0;
    std::vector<CapacityQuery> queries;
    std::vector<const Profile*> ptrs;
    for (const auto& p : profiles) {
      auto mo = model_options(a->rec, p);
      if (!mo) return bad_input(mo.message());
      CapacityQuery q;
      q.base = *cfg, q.target = target, q.criterion = crit, q.model = *mo, q.probes = a->probes;
      q.threads = a->threads;
      queries.push_back(std::move(q));
      ptrs.push_back(&p);
    }
    if (tty) fmt::print(stderr, "\rsearching {} profile{}...", profiles.size(), profiles.size() == 1 ? "" : "s");
    auto results = find_capacities(ptrs, queries, a->threads);
    std::vector<std::optional<Spread>> spreads(profiles.size());
    if (!a->no_spread) {
      if (tty) fmt::print(stderr, "\rspread over the estimates' ranges...{:20}", "");
      auto sp = capacity_spreads(ptrs, queries, &results, a->threads);
      if (!sp) return bad_input(sp.message());
      for (size_t i = 0; i < sp->size(); ++i) spreads[i] = (*sp)[i];
    }
    if (tty) fmt::print(stderr, "\r{:80}\r", "");
    std::vector<size_t> order(profiles.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (a->sort) {
      // Best first: most channels or highest rate; smallest buffer.
      auto key = [&](size_t i) {
        double v = results[i] && results[i]->found ? results[i]->best : 0;
        if (target != CapacityTarget::Buffer) return -v;
        return v > 0 ? v : INFINITY;
      };
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return key(x) < key(y); });
    }
    nlohmann::json out = nlohmann::json::array();
    std::vector<std::pair<std::string, CapacityResult>> rows;
    std::vector<std::optional<Spread>> row_spreads;
    for (size_t i : order) {
      if (!results[i]) return bad_input(results[i].message());
      nlohmann::json rj = result_json(profiles[i].name, target, *results[i]);
      rj["spread"] = spreads[i] ? spread_json(*spreads[i]) : nlohmann::json(nullptr);
      out.push_back(rj);
      rows.emplace_back(profiles[i].name, std::move(*results[i]));
      row_spreads.push_back(spreads[i]);
    }
    if (a->json) {
      fmt::print("{}\n", nlohmann::json{{"format", "streamdisk-capacity"},
                                        {"format_version", 2},
                                        {"find", a->find},
                                        {"criterion",
                                         {{"statement", criterion_text(crit, cfg->duration_s)},
                                          {"max_overrun_probability", crit.max_overrun_probability},
                                          {"confidence", crit.confidence},
                                          {"bounds", "Clopper-Pearson, one-sided each"},
                                          {"max_seeds", crit.max_seeds},
                                          {"early_stop", crit.early_stop}}},
                                        {"stream", stream_text(cfg->stream)},
                                        {"file_format", std::string(format_name(cfg->format))},
                                        {"buffer_bytes", cfg->buffer_bytes},
                                        {"duration_s", cfg->duration_s},
                                        {"results", out}}
                             .dump(2));
      return kExitOk;
    }
    StreamSpec s = cfg->stream;
    std::string what = target == CapacityTarget::Channels
                           ? fmt::format("{} kHz x {}-bit per channel", s.sample_rate / 1e3, s.sample_bits)
                           : stream_text(s);
    fmt::print("capacity ({}): {}, {}, buffer {}, {}\n", a->find, what, format_name(cfg->format),
               format_size(static_cast<double>(cfg->buffer_bytes)), format_duration(cfg->duration_s));
    fmt::print("criterion: {}; Clopper-Pearson bounds at {} confidence from up to {} seeds per candidate "
               "(one exact run without random stalls)\n",
               criterion_text(crit, cfg->duration_s), percent(crit.confidence), crit.max_seeds);
    size_t w = 7;
    for (const auto& [n, r] : rows) w = std::max(w, n.size());
    std::string col = fmt::format("{} (P<{})",
                                  target == CapacityTarget::Channels     ? "max channels"
                                  : target == CapacityTarget::SampleRate ? "max sample rate"
                                                                         : "min buffer",
                                  percent(crit.max_overrun_probability));
    auto band = [&](const CapacityResult& r) {
      if (!r.found) return std::string("-");
      if (r.band_low == r.band_high) return best_text(target, r);
      CapacityResult lo = r, hi = r;
      lo.best = r.band_low, hi.best = r.band_high;
      return best_text(target, lo) + " - " + best_text(target, hi);
    };
    fmt::print("{:<{}}  {:>22}  {:<24}  {:<26}  {}\n", "profile", w, col, "band", "P at answer [bounds]",
               "next candidate fails by");
    for (const auto& [n, r] : rows)
      fmt::print("{:<{}}  {:>22}  {:<24}  {:<26}  {}\n", n, w, best_text(target, r), band(r),
                 r.found ? stats_text(r, r.at_best) : "-", r.limited_by.substr(0, 40));
    if (!a->no_spread) {
      auto value = [&](double v) {
        CapacityResult tmp;
        tmp.found = v > 0, tmp.best = v;
        return best_text(target, tmp);
      };
      fmt::print("\nOver the ranges of the profiles' estimates (docs/profiles.md, 'Ranges'):\n");
      fmt::print("{:<{}}  {:<28}  {}\n", "profile", w, "range, most likely", "decided most by (measure it with)");
      for (size_t i = 0; i < rows.size(); ++i) {
        const Spread& sp = *row_spreads[i];
        const ParamEffect* d = sp.decisive();
        std::string range = sp.low == sp.high ? value(sp.nominal)
                                              : fmt::format("{} - {}, {}", value(sp.low), value(sp.high),
                                                            value(sp.nominal));
        fmt::print("{:<{}}  {:<28}  {}\n", rows[i].first, w, range,
                   d ? fmt::format("{} ({})", d->param.name(), measuring_step(d->param)) : "no estimate moves it");
      }
      fmt::print("method: corner bounds: each search again with each estimated parameter at either end of its "
                 "range, then all at their low-answer and at their high-answer ends (2k + 3 searches for k "
                 "parameters, the same seeds); the range is what the observations behind the profiles allow, "
                 "not a confidence interval\n");
    }
    bool any_probe = false;
    for (const auto& [n, r] : rows) any_probe |= !r.probes.empty();
    if (target == CapacityTarget::Channels && any_probe) {
      fmt::print("\nP(>=1 overrun) by channel count: runs with an overrun / seeds [bounds], against {}:\n",
                 percent(crit.max_overrun_probability));
      fmt::print("{:<{}}  {:>8}  {:<26}  {}\n", "profile", w, "channels", "P [bounds]", "vs level");
      for (const auto& [n, r] : rows)
        for (const auto& pr : r.probes)
          fmt::print("{:<{}}  {:>8}  {:<26}  {}\n", n, w, pr.channels, stats_text(r, pr.stats), side_text(pr.stats));
    }
    return kExitOk;
  };
}

}  // namespace sd::cli
