// streamdisk show PROFILE [--set k=v] [--json] | show --params
#include <cmath>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/spread_report.h"
#include "models/analytic.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/spread.h"

namespace sd::cli {
namespace {

struct ShowArgs {
  ProfileArgs prof;
  std::string positional;
  bool json = false;
  bool params = false;
  double fill = 0;
};

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

// The sustained rate (1 MiB blocks, what a long recording gets) over the
// ranges of the profile's estimates: closed form, so cheap.
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

std::string rate_value(double v) { return format_rate(v); }

std::vector<double> block_sizes() {
  std::vector<double> out;
  for (double b = 512; b <= 8.0 * 1048576; b *= 2) out.push_back(b);
  return out;
}

nlohmann::json to_json(const Profile& p, double fill) {
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

void print_params_table() {
  for (Layer l : kLayers) {
    fmt::print("[{}]\n", layer_name(l));
    for (const ParamSpec* s : params_of(l)) {
      std::string def = s->default_value ? fmt::format("{:.10g}", *s->default_value) : "required";
      fmt::print("  {:<22} {:<9} default {:<10} range {}\n      {}\n", s->key, unit_name(s->unit), def,
                 range_text(*s), s->help);
    }
    fmt::print("\n");
  }
}

void print_human(const Profile& p, double fill) {
  fmt::print("Profile {}{}\n", p.name, p.summary.empty() ? "" : ": " + p.summary);
  for (Layer l : kLayers) {
    const LayerProfile* lp = p.layer(l);
    if (!lp) {
      fmt::print("  {:<10}  (none: {})\n", layer_name(l),
                 l == Layer::Host ? "no page cache, no syscall cost" : "no filesystem costs or limits");
      continue;
    }
    fmt::print("  {:<10}  {} [{}] {}\n", layer_name(l), lp->name, lp->origin, lp->summary);
    if (!lp->source.empty()) fmt::print("  {:<10}    source: {}\n", "", lp->source);
  }
  fmt::print("\nParameters (origin: profile, default or --set; 'estimate' marks a figure the profile guesses)\n");
  for (Layer l : kLayers) {
    for (const ParamSpec* s : params_of(l)) {
      const ParamValue& v = p.params(l).entry(s->key);
      if (!p.has(l) && v.origin == Origin::Default) continue;
      fmt::print("  {:<32} {:<26} {}\n", fmt::format("{}.{}", layer_name(l), s->key), value_text(*s, v.value),
                 origin_text(v));
      if (v.range) fmt::print("      range: {} ... {}\n", value_text(*s, v.range->first), value_text(*s, v.range->second));
      if (!v.source.empty()) fmt::print("      source: {}\n", v.source);
    }
  }
  bool cache = p.params(Layer::Host).get("dirty_limit_bytes") > 0;
  bool burst_cache = p.params(Layer::Device).get("burst_bytes") > 0;
  fmt::print("\nPredicted write rate, sequential writes back to back{}:\n",
             fill > 0 ? fmt::format(", device {:.0f} % full", fill * 100) : "");
  fmt::print("  {:>9}", "block");
  if (burst_cache) fmt::print("  {:>14}  {:>18}", "burst (direct)", "sustained (direct)");
  else fmt::print("  {:>14}", "direct");
  if (cache) fmt::print("  {:>20}", burst_cache ? "sustained (buffered)" : "buffered, cache full");
  fmt::print("\n");
  for (double b : block_sizes()) {
    fmt::print("  {:>9}", format_size(b));
    if (burst_cache) fmt::print("  {:>14}", format_rate(write_rate(p, b, Phase::Burst, true, fill)));
    fmt::print("  {:>{}}", format_rate(write_rate(p, b, Phase::Sustained, true, fill)), burst_cache ? 18 : 14);
    if (cache) fmt::print("  {:>20}", format_rate(write_rate(p, b, Phase::Sustained, false, fill)));
    fmt::print("\n");
  }
  const LayerParams& d = p.params(Layer::Device);
  double burst = d.get("burst_bytes");
  if (burst > 0) {
    auto ex = burst_exhaustion(p, INFINITY, 1048576);
    fmt::print("\nBurst cache: {} at {}; writing flat out in 1 MiB blocks it is full after {} ({} written).\n",
               format_size(burst), format_rate(write_rate(p, 1048576, Phase::Burst, true, fill)),
               format_duration(ex.seconds), format_size(ex.bytes));
  } else {
    fmt::print("\nBurst cache: none (every write goes at the sustained rate).\n");
  }
  fmt::print("Sustained rate (1 MiB blocks, what a long recording gets): {}\n",
             format_rate(write_rate(p, 1048576, Phase::Sustained, !cache, fill)));
  Spread sp = sustained_spread(p, fill);
  fmt::print("Over the estimates' ranges: {}\n  {}\n  ({})\n", spread_range_text(sp, rate_value),
             spread_decisive_text(sp, rate_value), spread_method(sp));
}

}  // namespace

Handler setup_show(CLI::App& sub) {
  auto a = std::make_shared<ShowArgs>();
  sub.add_option("name", a->positional, "Profile to show (same as --profile)");
  add_profile_options(sub, a->prof, /*required=*/false);
  sub.add_flag("--json", a->json, "Print JSON instead of text");
  sub.add_flag("--params", a->params, "List every model parameter: unit, default, allowed range, meaning");
  sub.add_option("--fill", a->fill, "Predict at this fill level (0..1)")->check(decimal_check() & CLI::Range(0.0, 1.0));
  sub.footer(
      "Examples:\n"
      "  streamdisk show samsung-960evo-250g\n"
      "  streamdisk show rpi4-buster+exfat-fuse+sandisk-ultrafit-16g --json\n"
      "  streamdisk show crio-9014 --set device.op_overhead_us=20000\n"
      "  streamdisk show --params");
  return [a] {
    if (a->params) {
      print_params_table();
      return kExitOk;
    }
    std::string spec = !a->positional.empty() ? a->positional : a->prof.profile;
    if (spec.empty()) return bad_input("show needs a profile: streamdisk show NAME (`streamdisk profiles` lists them)");
    if (!a->positional.empty() && !a->prof.profile.empty())
      return bad_input("give the profile once: either `show NAME` or `show --profile NAME`");
    auto p = load_profile(spec, a->prof.sets);
    if (!p) return bad_input(p.message());
    if (a->json)
      fmt::print("{}\n", to_json(*p, a->fill).dump(2));
    else
      print_human(*p, a->fill);
    return kExitOk;
  };
}

}  // namespace sd::cli
