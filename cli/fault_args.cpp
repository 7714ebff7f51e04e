#include "cli/fault_args.h"

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/recording_args.h"
#include "models/units.h"

namespace sd::cli {

void add_fault_options(CLI::App& sub, FaultArgs& a) {
  sub.add_option("--fault", a.specs,
                 "Make the emulated storage fail: WHAT[:OPS][@TRIGGER][,for=..][,file=GLOB][,p=..], repeatable; "
                 "e.g. eio:write@2GB, delay=500ms@90s, gone@10min, powerloss@30s (docs/faults.md)")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  sub.add_option("--faults", a.file, "Read faults from a TOML file of [[fault]] tables (docs/faults.md)")
      ->type_name("FILE")
      ->check(path_check());
}

Result<std::vector<FaultSpec>> fault_specs(const FaultArgs& a, bool powerloss_ok) {
  std::vector<FaultSpec> out;
  if (!a.file.empty()) {
    auto v = load_fault_file(a.file);
    if (!v) return v.status();
    out = std::move(*v);
  }
  for (const auto& s : a.specs) {
    auto f = parse_fault(s);
    if (!f) return Result<std::vector<FaultSpec>>::error(f.message() + " (--fault)");
    out.push_back(std::move(*f));
  }
  for (const auto& f : out)
    if (f.kind == FaultKind::PowerLoss && !powerloss_ok) return Result<std::vector<FaultSpec>>::error(powerloss_refusal(f));
  return out;
}

nlohmann::json fault_events_json(const std::vector<FaultEvent>& events) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : events) out.push_back({{"time_s", e.time}, {"fault", e.spec}, {"event", e.text}});
  return out;
}

void print_fault_rows(const std::vector<FaultEvent>& events) {
  constexpr size_t kMaxRows = 8;
  for (size_t i = 0; i < events.size() && i < kMaxRows; ++i)
    print_report_row("fault", fmt::format("at {:.3f} s: {}", events[i].time, events[i].text));
  if (events.size() > kMaxRows) print_report_row("faults", fmt::format("{} events in all", events.size()));
}

}  // namespace sd::cli

namespace sd::cli {
namespace {

std::string device_cache_text(const DurabilityParams& dp) {
  if (dp.cache_bytes <= 0) return "no volatile write cache";
  return fmt::format("{} volatile write cache, on media after {}, flush {}", format_size(dp.cache_bytes),
                     format_duration(dp.destage_s), dp.flush_honest ? "honest" : "acknowledged early (lies)");
}

std::string survivor_text(const Survivor& s) {
  if (!s.exists)
    return fmt::format("{}: gone ({} written, its directory entry never became durable)", s.name,
                       format_size(static_cast<double>(s.size_at_loss)));
  std::string t = fmt::format("{}: {} of {} written survive", s.name, format_size(static_cast<double>(s.length)),
                              format_size(static_cast<double>(s.size_at_loss)));
  if (s.data_bytes < s.length)
    t += fmt::format(" ({} of them zeros)", format_size(static_cast<double>(s.length - s.data_bytes)));
  if (!s.inspected) return t + "; " + s.inspect_error;
  const Inspection& r = s.inspection;
  t += fmt::format("; strict reader {:.3f} s, lenient {:.3f} s", r.strict_seconds(), r.lenient_seconds());
  if (r.repair_needed) t += "; header needs repair";
  return t;
}

}  // namespace

void print_power_loss(double t, const DurabilityParams& dp, const std::vector<Survivor>& s) {
  print_report_row("power loss", fmt::format("at {:.3f} s: lengths durable {}; {}", t, length_rule_name(dp.rule),
                                             device_cache_text(dp)));
  constexpr size_t kMaxRows = 8;
  for (size_t i = 0; i < s.size() && i < kMaxRows; ++i) print_report_row("survivor", survivor_text(s[i]));
  if (s.size() > kMaxRows) print_report_row("survivors", fmt::format("{} files in all (--json lists them)", s.size()));
}

nlohmann::json power_loss_json(double t, const DurabilityParams& dp, const std::vector<Survivor>& s) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : s)
    files.push_back({{"name", f.name},
                     {"exists", f.exists},
                     {"length_bytes", f.length},
                     {"written_bytes", f.size_at_loss},
                     {"data_bytes", f.data_bytes},
                     {"inspect", f.inspected ? inspection_json(f.inspection) : nlohmann::json(nullptr)},
                     {"inspect_error", f.inspect_error}});
  return {{"time_s", t},
          {"length_rule", length_rule_name(dp.rule)},
          {"write_cache_bytes", dp.cache_bytes},
          {"write_cache_destage_s", dp.destage_s},
          {"flush_honest", dp.flush_honest},
          {"files", files}};
}

}  // namespace sd::cli
