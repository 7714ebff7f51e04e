#include "cli/fault_args.h"

#include <fmt/format.h>

#include "cli/recording_args.h"

namespace sd::cli {

void add_fault_options(CLI::App& sub, FaultArgs& a) {
  sub.add_option("--fault", a.specs,
                 "Make the emulated storage fail: WHAT[:OPS][@TRIGGER][,for=..][,file=GLOB][,p=..], repeatable; "
                 "e.g. eio:write@2GB, delay=500ms@90s, gone@10min (docs/faults.md)")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  sub.add_option("--faults", a.file, "Read faults from a TOML file of [[fault]] tables (docs/faults.md)")
      ->type_name("FILE");
}

Result<std::vector<FaultSpec>> fault_specs(const FaultArgs& a) {
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
    if (f.kind == FaultKind::PowerLoss) return Result<std::vector<FaultSpec>>::error(powerloss_refusal(f));
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
