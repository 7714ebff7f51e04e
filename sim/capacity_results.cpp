#include "sim/capacity_results.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/units.h"
#include "sim/format.h"
#include "sim/recording_options.h"
#include "sim/spread_report.h"

namespace sd {
namespace {

std::string best_text(CapacityTarget t, const CapacityResult& r) {
  if (!r.found) return "none";
  // An answer at --enough is a bound: the search went no further.
  std::string at = r.reached_enough ? (t == CapacityTarget::Buffer ? "<= " : ">= ") : "";
  switch (t) {
    case CapacityTarget::Channels: return at + fmt::format("{:.0f}", r.best);
    case CapacityTarget::SampleRate:
      return at + (r.best >= 1e6 ? fmt::format("{:.4g} MHz", r.best / 1e6) : fmt::format("{:.4g} kHz", r.best / 1e3));
    case CapacityTarget::Buffer: return at + format_size(r.best);
  }
  return "?";
}

// True if a spread's answer `v` is at the table's --enough (a bound, not a value).
bool at_enough(const CapacityTable& t, double v) {
  if (!(t.enough > 0) || !(v > 0)) return false;
  double limit = enough_limit(t.target, t.enough, static_cast<double>(t.recording.stream.frame_bytes()));
  // The rate search stops within rounding of its limit; a buffer's limit is the small end.
  return t.target == CapacityTarget::Buffer ? v <= limit : v >= limit * (1 - 1e-9);
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

nlohmann::json row_json(const CapacityRow& row) {
  const CapacityResult& r = row.result;
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : r.probes) {
    nlohmann::json j = stats_json(p.stats);
    j["channels"] = p.channels;
    probes.push_back(j);
  }
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& c : r.candidates) cands.push_back(stats_json(c));
  auto num = [&](double v) { return r.found ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"profile", row.profile},
          {"found", r.found},
          {"best", num(r.best)},
          {"band", {{"low", num(r.band_low)}, {"high", num(r.band_high)}}},
          {"at_best", r.found ? stats_json(r.at_best) : nlohmann::json(nullptr)},
          {"limited_by", r.limited_by},
          {"reached_enough", r.reached_enough},
          {"first_overrun_s", r.first_overrun_s >= 0 ? nlohmann::json(r.first_overrun_s) : nlohmann::json(nullptr)},
          {"random_stalls", r.stalls},
          {"max_seeds", r.max_seeds},
          {"runs", r.runs},
          {"candidates", cands},
          {"probes", probes},
          {"spread", row.spread ? spread_json(*row.spread) : nlohmann::json(nullptr)}};
}

}  // namespace

std::string_view capacity_target_name(CapacityTarget t) {
  switch (t) {
    case CapacityTarget::Channels: return "channels";
    case CapacityTarget::SampleRate: return "sample-rate";
    case CapacityTarget::Buffer: return "buffer";
  }
  return "?";
}

Result<CapacityTarget> capacity_target_from_name(std::string_view name) {
  for (CapacityTarget t : {CapacityTarget::Channels, CapacityTarget::SampleRate, CapacityTarget::Buffer})
    if (capacity_target_name(t) == name) return t;
  return Result<CapacityTarget>::error(
      fmt::format("--find '{}': use channels, sample-rate or buffer", name));
}

void sort_best_first(CapacityTable& t) {
  auto key = [&](const CapacityRow& row) {
    double v = row.result.found ? row.result.best : 0;
    if (t.target != CapacityTarget::Buffer) return -v;
    return v > 0 ? v : INFINITY;
  };
  std::stable_sort(t.rows.begin(), t.rows.end(),
                   [&](const CapacityRow& x, const CapacityRow& y) { return key(x) < key(y); });
}

nlohmann::json capacity_json(const CapacityTable& t) {
  const CapacityCriterion& crit = t.criterion;
  const RecorderConfig& cfg = t.recording;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& row : t.rows) results.push_back(row_json(row));
  return {{"format", "streamdisk-capacity"},
          {"format_version", 3},
          {"find", std::string(capacity_target_name(t.target))},
          {"criterion",
           {{"statement", criterion_text(crit, cfg.duration_s)},
            {"max_overrun_probability", crit.max_overrun_probability},
            {"confidence", crit.confidence},
            {"bounds", "Clopper-Pearson, one-sided each"},
            {"max_seeds", crit.max_seeds},
            {"early_stop", crit.early_stop}}},
          {"stream", stream_text(cfg.stream)},
          {"file_format", std::string(format_name(cfg.format))},
          {"buffer_bytes", cfg.buffer_bytes},
          {"duration_s", cfg.duration_s},
          {"enough", t.enough > 0 ? nlohmann::json(t.enough) : nlohmann::json(nullptr)},
          {"results", results}};
}

std::string capacity_text(const CapacityTable& t) {
  std::string out;
  const CapacityTarget target = t.target;
  const CapacityCriterion& crit = t.criterion;
  const RecorderConfig& cfg = t.recording;
  const StreamSpec& s = cfg.stream;
  std::string what = target == CapacityTarget::Channels
                         ? fmt::format("{} kHz x {}-bit per channel", s.sample_rate / 1e3, s.sample_bits)
                         : stream_text(s);
  out += fmt::format("capacity ({}): {}, {}, buffer {}, {}\n", capacity_target_name(target), what, format_name(cfg.format),
        format_size(static_cast<double>(cfg.buffer_bytes)), format_duration(cfg.duration_s));
  out += fmt::format("criterion: {}; Clopper-Pearson bounds at {} confidence from up to {} seeds per candidate "
        "(one exact run without random stalls)\n",
        criterion_text(crit, cfg.duration_s), percent(crit.confidence), crit.max_seeds);
  size_t w = 7;
  for (const auto& row : t.rows) w = std::max(w, row.profile.size());
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
  out += fmt::format("{:<{}}  {:>22}  {:<24}  {:<26}  {}\n", "profile", w, col, "band", "P at answer [bounds]",
        "next candidate fails by");
  for (const auto& [n, r, sp] : t.rows)
    out += fmt::format("{:<{}}  {:>22}  {:<24}  {:<26}  {}\n", n, w, best_text(target, r), band(r),
          r.found ? stats_text(r, r.at_best) : "-", r.limited_by.substr(0, 40));
  if (t.with_spread) {
    auto value = [&](double v) {
      CapacityResult tmp;
      tmp.found = v > 0, tmp.best = v, tmp.reached_enough = at_enough(t, v);
      return best_text(target, tmp);
    };
    out += fmt::format("\nOver the ranges of the profiles' estimates (docs/profiles.md, 'Ranges'):\n");
    out += fmt::format("{:<{}}  {:<28}  {}\n", "profile", w, "range, most likely", "decided most by (measure it with)");
    for (const auto& row : t.rows) {
      const Spread& sp = *row.spread;
      const ParamEffect* d = sp.decisive();
      std::string range = sp.low == sp.high ? value(sp.nominal)
                                            : fmt::format("{} - {}, {}", value(sp.low), value(sp.high),
                                                          value(sp.nominal));
      // Every end at --enough: none of them moves the answer below what is enough.
      bool all_enough = target == CapacityTarget::Buffer ? at_enough(t, sp.high) : at_enough(t, sp.low);
      out += fmt::format("{:<{}}  {:<28}  {}\n", row.profile, w, range,
            d ? fmt::format("{} ({})", d->param.name(), measuring_step(d->param))
              : all_enough ? "every end reaches --enough" : "no estimate moves it");
    }
    out += fmt::format("method: corner bounds: each search again with each estimated parameter at either end of its "
          "range, then all at their low-answer and at their high-answer ends (2k + 3 searches for k "
          "parameters, the same seeds); the range is what the observations behind the profiles allow, "
          "not a confidence interval\n");
  }
  bool any_probe = false;
  for (const auto& row : t.rows) any_probe |= !row.result.probes.empty();
  if (target == CapacityTarget::Channels && any_probe) {
    out += fmt::format("\nP(>=1 overrun) by channel count: runs with an overrun / seeds [bounds], against {}:\n",
          percent(crit.max_overrun_probability));
    out += fmt::format("{:<{}}  {:>8}  {:<26}  {}\n", "profile", w, "channels", "P [bounds]", "vs level");
    for (const auto& [n, r, sp] : t.rows)
      for (const auto& pr : r.probes)
        out += fmt::format("{:<{}}  {:>8}  {:<26}  {}\n", n, w, pr.channels, stats_text(r, pr.stats), side_text(pr.stats));
  }
  return out;
}

}  // namespace sd
