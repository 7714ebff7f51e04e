// streamdisk capacity --profile P [--profile Q | 'glob*'] [--find channels|sample-rate|buffer]
#include <fnmatch.h>
#include <unistd.h>

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/recording_args.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/capacity.h"
#include "sim/cost.h"

namespace sd::cli {
namespace {

struct CapArgs {
  std::vector<std::string> profiles;
  std::vector<std::string> sets;
  RecordingArgs rec;
  std::string find = "channels";
  int seeds = 5;
  std::vector<uint32_t> probes;
  bool json = false;
};

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// Expands glob parts ("rpi4-*+exfat-*+sandisk-*") over the built-in names.
// A whole-spec glob keeps only profiles that include a device layer.
Result<std::vector<std::string>> expand_specs(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  auto list = builtin_profiles();
  for (const auto& spec : specs) {
    if (!has_glob(spec)) {
      out.push_back(spec);
      continue;
    }
    // Each combination: the spec so far and the layers it already has.
    struct Combo {
      std::string spec;
      unsigned layers = 0;
    };
    auto layer_bit = [&](const std::string& name) {
      for (const auto& p : list)
        if (p.name == name && p.layer) return 1u << static_cast<int>(*p.layer);
      return 0u;  // a file or a composite: not checked here
    };
    std::vector<Combo> combos = {{}};
    size_t start = 0;
    bool single = spec.find('+') == std::string::npos;
    while (start <= spec.size()) {
      size_t plus = spec.find('+', start);
      std::string part = spec.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
      std::vector<std::string> names;
      if (!has_glob(part)) names.push_back(part);
      else for (const auto& p : list) {
        // Alone, a glob names whole stacks (composites, devices); inside
        // HOST+FS+DEVICE each part names one layer.
        if (single ? (p.layer && *p.layer != Layer::Device) : !p.layer) continue;
        if (fnmatch(part.c_str(), p.name.c_str(), 0) == 0) names.push_back(p.name);
      }
      if (names.empty())
        return Result<std::vector<std::string>>::error(
            fmt::format("--profile '{}': no built-in profile matches '{}' (`streamdisk profiles` lists them)", spec,
                        part));
      std::vector<Combo> next;
      for (const auto& c : combos)
        for (const auto& n : names) {
          unsigned bit = layer_bit(n);
          if (c.layers & bit) continue;  // that layer is already set: not a valid stack
          next.push_back({c.spec.empty() ? n : c.spec + "+" + n, c.layers | bit});
        }
      combos = std::move(next);
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    if (combos.empty())
      return Result<std::vector<std::string>>::error(
          fmt::format("--profile '{}' matches no valid host+filesystem+device stack", spec));
    for (const auto& c : combos) out.push_back(c.spec);
  }
  return out;
}

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

std::string probe_text(const CapacityResult& r) {
  std::string s;
  for (const auto& p : r.probes) s += fmt::format("{}{}:{:.2g}", s.empty() ? "" : " ", p.channels, p.probability());
  return s;
}

nlohmann::json result_json(const std::string& name, CapacityTarget t, const CapacityResult& r) {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : r.probes)
    probes.push_back({{"channels", p.channels},
                      {"seeds_with_overrun", p.seeds_with_overrun},
                      {"seeds", p.seeds},
                      {"probability", p.probability()}});
  return {{"profile", name},
          {"found", r.found},
          {"best", r.found ? nlohmann::json(r.best) : nlohmann::json(nullptr)},
          {"limited_by", r.limited_by},
          {"first_overrun_s", r.first_overrun_s >= 0 ? nlohmann::json(r.first_overrun_s) : nlohmann::json(nullptr)},
          {"seeds", r.seeds_used},
          {"runs", r.runs},
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
  sub.add_option("--seeds", a->seeds, "Stall seeds per candidate (1..N; default 5)")->check(whole_number_check() & CLI::Range(1, 1000));
  sub.add_option("--probe", a->probes, "Channel counts at which to report P(>=1 overrun), e.g. --probe 18,32,48")
      ->delimiter(',');
  sub.add_flag("--json", a->json, "Print JSON instead of a table");
  sub.footer(
      "A candidate passes when every seed records the whole duration with no overrun and no early stop\n"
      "(file-size limit, full device). Profiles without stalls need one seed.\n\n"
      "Examples:\n"
      "  streamdisk capacity -p rpi4-buster+exfat-fuse+sandisk-ultrafit-16g -r 48k -b 16 -f w64 -d 1.5h\n"
      "  streamdisk capacity -p 'rpi4-*+exfat-*+sandisk-*' -r 48k -b 16 -f w64 --buffer 1MiB -d 1.5h --probe 18,32,48\n"
      "  streamdisk capacity -p usrp-2974 --find sample-rate -c 2 -b 16 --buffer 256MiB -d 10min\n"
      "  streamdisk capacity -p crio-9014 --find buffer -c 4 -r 51.2k -b 32 -d 20min");
  return [a] {
    CapacityTarget target;
    if (a->find == "channels") target = CapacityTarget::Channels;
    else if (a->find == "sample-rate") target = CapacityTarget::SampleRate;
    else if (a->find == "buffer") target = CapacityTarget::Buffer;
    else return bad_input(fmt::format("--find '{}': use channels, sample-rate or buffer", a->find));
    for (uint32_t c : a->probes)
      if (c < 1) return bad_input("--probe channel counts must be 1 or more");
    auto specs = expand_specs(a->profiles);
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
    if (auto st = check_capacity_cost(all, *cfg, a->seeds); !st.ok()) return bad_input(st.message());
    bool tty = isatty(STDERR_FILENO) != 0;
    nlohmann::json out = nlohmann::json::array();
    std::vector<std::pair<std::string, CapacityResult>> rows;
    for (const auto& p : profiles) {
      auto mo = model_options(a->rec, p);
      if (!mo) return bad_input(mo.message());
      CapacityQuery q{*cfg, target, a->seeds, *mo, a->probes};
      if (tty) fmt::print(stderr, "\rsearching {}...", p.name);
      auto r = find_capacity(p, q);
      if (tty) fmt::print(stderr, "\r{:80}\r", "");
      if (!r) return bad_input(r.message());
      out.push_back(result_json(p.name, target, *r));
      rows.emplace_back(p.name, std::move(*r));
    }
    if (a->json) {
      fmt::print("{}\n", nlohmann::json{{"format", "streamdisk-capacity"},
                                        {"format_version", 1},
                                        {"find", a->find},
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
    fmt::print("capacity ({}): {}, {}, buffer {}, {}, seeds 1-{}\n", a->find, what, format_name(cfg->format),
               format_size(static_cast<double>(cfg->buffer_bytes)), format_duration(cfg->duration_s), a->seeds);
    size_t w = 7;
    for (const auto& [n, r] : rows) w = std::max(w, n.size());
    std::string col = target == CapacityTarget::Channels ? "max channels" : target == CapacityTarget::SampleRate
                                                                              ? "max sample rate" : "min buffer";
    fmt::print("{:<{}}  {:>15}  {:<30}{}\n", "profile", w, col, "next candidate fails by",
               target == CapacityTarget::Channels ? "  P(>=1 overrun) at channels" : "");
    for (const auto& [n, r] : rows)
      fmt::print("{:<{}}  {:>15}  {:<30}{}\n", n, w, best_text(target, r), r.limited_by.substr(0, 30),
                 target == CapacityTarget::Channels ? "  " + probe_text(r) : "");
    return kExitOk;
  };
}

}  // namespace sd::cli
