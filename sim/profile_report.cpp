#include "sim/profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "models/analytic.h"
#include "models/units.h"
#include "sim/spread_report.h"

namespace sd {
namespace {

std::string origin_text(const ParamValue& v) {
  std::string o = v.origin == Origin::Default ? "default" : v.origin == Origin::Override ? "--set" : "profile";
  if (v.estimate) o += ", estimate";
  return o;
}

std::string value_text(const ParamSpec& s, double v) {
  switch (s.unit) {
    case Unit::Bytes:
      if (v == 0) return "0";
      return fmt::format("{} ({:.0f})", format_size(v), v);
    case Unit::MBps: return fmt::format("{:g} MB/s", v);
    case Unit::Microseconds: return fmt::format("{:g} us", v);
    case Unit::Milliseconds: return fmt::format("{:g} ms", v);
    case Unit::MegaBytes: return fmt::format("{:g} MB", v);
    case Unit::Fraction: return fmt::format("{:g} ({:g} %)", v, v * 100);
    case Unit::Count:
    case Unit::Ratio: return fmt::format("{:g}", v);
    case Unit::Flag: return v != 0 ? "1 (yes)" : "0 (no)";
  }
  return "?";
}

std::string rate_value(double v) { return format_rate(v); }

// The block sizes of the predicted-rate table: 512 B to 8 MiB.
std::vector<double> block_sizes() {
  std::vector<double> out;
  for (double b = 512; b <= 8.0 * 1048576; b *= 2) out.push_back(b);
  return out;
}

}  // namespace

// Closed form, so cheap.
Spread sustained_spread(const Profile& p, double fill) {
  auto r = propagate(p, [fill](const std::vector<const Profile*>& batch) {
    std::vector<double> out;
    for (const Profile* q : batch) {
      bool cache = q->params(Layer::Host).get("dirty_limit_bytes") > 0;
      out.push_back(write_rate(*q, 1048576, Phase::Sustained, !cache, fill));
    }
    return Result<std::vector<double>>(std::move(out));
  });
  if (!r) std::abort();  // the callback cannot fail
  return *r;
}

nlohmann::json profile_json(const Profile& p, double fill) {
  nlohmann::json j;
  j["format"] = "streamdisk-show";
  j["format_version"] = 1;
  j["name"] = p.name;
  j["summary"] = p.summary;
  for (Layer l : kLayers) {
    nlohmann::json lj;
    const LayerProfile* lp = p.layer(l);
    lj["present"] = lp != nullptr;
    if (lp) {
      lj["name"] = lp->name;
      lj["summary"] = lp->summary;
      lj["source"] = lp->source;
      lj["origin"] = lp->origin;
    }
    for (const ParamSpec* s : params_of(l)) {
      const ParamValue& v = p.params(l).entry(s->key);
      lj["params"][std::string(s->key)] = {{"value", v.value},
                                           {"unit", std::string(unit_name(s->unit))},
                                           {"origin", origin_text(v)},
                                           {"estimate", v.estimate},
                                           {"source", v.source}};
      if (v.range) lj["params"][std::string(s->key)]["range"] = {v.range->first, v.range->second};
    }
    j["layers"][std::string(layer_name(l))] = lj;
  }
  bool cache = p.params(Layer::Host).get("dirty_limit_bytes") > 0;
  for (double b : block_sizes()) {
    nlohmann::json r = {{"block_bytes", b},
                        {"burst_direct_mbps", write_rate(p, b, Phase::Burst, true, fill) / 1e6},
                        {"sustained_direct_mbps", write_rate(p, b, Phase::Sustained, true, fill) / 1e6}};
    if (cache) r["sustained_buffered_mbps"] = write_rate(p, b, Phase::Sustained, false, fill) / 1e6;
    j["write_rates"].push_back(r);
  }
  auto ex = burst_exhaustion(p, INFINITY, 1048576);
  j["burst"] = {{"bytes", p.params(Layer::Device).get("burst_bytes")},
                {"seconds_at_full_speed", ex.seconds},
                {"bytes_written_by_then", ex.bytes}};
  j["sustained_mbps_1MiB"] = write_rate(p, 1048576, Phase::Sustained, true, fill) / 1e6;
  j["fill"] = fill;
  j["sustained_spread"] = spread_json(sustained_spread(p, fill));
  return j;
}

std::string param_table_text() {
  std::string out;
  for (Layer l : kLayers) {
    out += fmt::format("[{}]\n", layer_name(l));
    for (const ParamSpec* s : params_of(l)) {
      std::string def = s->default_value ? fmt::format("{:.10g}", *s->default_value) : "required";
      out += fmt::format("  {:<22} {:<9} default {:<10} range {}\n      {}\n", s->key, unit_name(s->unit), def,
                         range_text(*s), s->help);
    }
    out += "\n";
  }
  return out;
}

std::string profile_text(const Profile& p, double fill) {
  std::string out;
  out += fmt::format("Profile {}{}\n", p.name, p.summary.empty() ? "" : ": " + p.summary);
  for (Layer l : kLayers) {
    const LayerProfile* lp = p.layer(l);
    if (!lp) {
      out += fmt::format("  {:<10}  (none: {})\n", layer_name(l),
                 l == Layer::Host ? "no page cache, no syscall cost" : "no filesystem costs or limits");
      continue;
    }
    out += fmt::format("  {:<10}  {} [{}] {}\n", layer_name(l), lp->name, lp->origin, lp->summary);
    if (!lp->source.empty()) out += fmt::format("  {:<10}    source: {}\n", "", lp->source);
  }
  out += fmt::format("\nParameters (origin: profile, default or --set; 'estimate' marks a figure the profile guesses)\n");
  for (Layer l : kLayers) {
    for (const ParamSpec* s : params_of(l)) {
      const ParamValue& v = p.params(l).entry(s->key);
      if (!p.has(l) && v.origin == Origin::Default) continue;
      out += fmt::format("  {:<32} {:<26} {}\n", fmt::format("{}.{}", layer_name(l), s->key), value_text(*s, v.value),
                 origin_text(v));
      if (v.range) out += fmt::format("      range: {} ... {}\n", value_text(*s, v.range->first), value_text(*s, v.range->second));
      if (!v.source.empty()) out += fmt::format("      source: {}\n", v.source);
    }
  }
  bool cache = p.params(Layer::Host).get("dirty_limit_bytes") > 0;
  bool burst_cache = p.params(Layer::Device).get("burst_bytes") > 0;
  out += fmt::format("\nPredicted write rate, sequential writes back to back{}:\n",
             fill > 0 ? fmt::format(", device {:.0f} % full", fill * 100) : "");
  out += fmt::format("  {:>9}", "block");
  if (burst_cache) out += fmt::format("  {:>14}  {:>18}", "burst (direct)", "sustained (direct)");
  else out += fmt::format("  {:>14}", "direct");
  if (cache) out += fmt::format("  {:>20}", burst_cache ? "sustained (buffered)" : "buffered, cache full");
  out += fmt::format("\n");
  for (double b : block_sizes()) {
    out += fmt::format("  {:>9}", format_size(b));
    if (burst_cache) out += fmt::format("  {:>14}", format_rate(write_rate(p, b, Phase::Burst, true, fill)));
    out += fmt::format("  {:>{}}", format_rate(write_rate(p, b, Phase::Sustained, true, fill)), burst_cache ? 18 : 14);
    if (cache) out += fmt::format("  {:>20}", format_rate(write_rate(p, b, Phase::Sustained, false, fill)));
    out += fmt::format("\n");
  }
  const LayerParams& d = p.params(Layer::Device);
  double burst = d.get("burst_bytes");
  if (burst > 0) {
    auto ex = burst_exhaustion(p, INFINITY, 1048576);
    out += fmt::format("\nBurst cache: {} at {}; writing flat out in 1 MiB blocks it is full after {} ({} written).\n",
               format_size(burst), format_rate(write_rate(p, 1048576, Phase::Burst, true, fill)),
               format_duration(ex.seconds), format_size(ex.bytes));
  } else {
    out += fmt::format("\nBurst cache: none (every write goes at the sustained rate).\n");
  }
  out += fmt::format("Sustained rate (1 MiB blocks, what a long recording gets): {}\n",
             format_rate(write_rate(p, 1048576, Phase::Sustained, !cache, fill)));
  Spread sp = sustained_spread(p, fill);
  out += fmt::format("Over the estimates' ranges: {}\n  {}\n  ({})\n", spread_range_text(sp, rate_value),
             spread_decisive_text(sp, rate_value), spread_method(sp));
  return out;
}

nlohmann::json profiles_json(const std::vector<ProfileInfo>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : list)
    out.push_back({{"name", p.name},
                   {"layer", p.layer ? std::string(layer_name(*p.layer)) : "composite"},
                   {"summary", p.summary},
                   {"layers", p.layers}});
  return out;
}

std::string profiles_text(const std::vector<ProfileInfo>& list) {
  std::string out;
  size_t w = 0;
  for (const auto& p : list) w = std::max(w, p.name.size());
  std::string group = "-";
  for (const auto& p : list) {
    std::string g = p.layer ? std::string(layer_name(*p.layer)) : "composite (host+filesystem+device)";
    if (g != group) {
      out += fmt::format("{}{}:\n", group == "-" ? "" : "\n", g);
      group = g;
    }
    out += fmt::format("  {:<{}}  {}\n", p.name, w, p.summary);
    if (!p.layers.empty()) out += fmt::format("  {:<{}}    = {}\n", "", w, p.layers);
  }
  out += "\nShow one: streamdisk show NAME    Combine: --profile HOST+FILESYSTEM+DEVICE\n";
  return out;
}

}  // namespace sd
