// --fault SPEC (repeatable) and --faults FILE, shared by simulate and mount,
// parsed into the specs of one FaultSchedule (models/fault.h).
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/fault.h"
#include "models/status.h"
#include "sim/inspect.h"
#include "sim/powerloss.h"

namespace sd::cli {

struct FaultArgs {
  std::vector<std::string> specs;
  std::string file;
};

void add_fault_options(CLI::App& sub, FaultArgs& a);
// Every spec of --faults FILE then of --fault, or the first error (bad input).
// powerloss is refused unless `powerloss_ok` (record: real storage).
Result<std::vector<FaultSpec>> fault_specs(const FaultArgs& a, bool powerloss_ok);

// What the faults did, for --json ("faults": [{time_s, fault, event}]) and
// as report rows ("fault  at 12.300 s: ..."; the first few, then a count).
nlohmann::json fault_events_json(const std::vector<FaultEvent>& events);
void print_fault_rows(const std::vector<FaultEvent>& events);

// inspect's JSON for one file (cmd_inspect.cpp), also in simulate's power-loss report.
nlohmann::json inspection_json(const Inspection& r);
// What a power loss left (simulate): rows "power loss" and one "survivor" per
// file, or the JSON object "power_loss".
void print_power_loss(double t, const DurabilityParams& dp, const std::vector<Survivor>& s);
nlohmann::json power_loss_json(double t, const DurabilityParams& dp, const std::vector<Survivor>& s);

}  // namespace sd::cli
