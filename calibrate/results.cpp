#include "calibrate/results.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/params.h"
#include "models/units.h"

namespace sd::cal {
namespace {

std::string unit_of(const std::string& key) {
  auto dot = key.find('.');
  const ParamSpec* s = find_param(*layer_from_name(key.substr(0, dot)), key.substr(dot + 1));
  return s ? std::string(unit_name(s->unit)) : "";
}

std::string shown(double v) { return fmt::format("{:.5g}", v); }

}  // namespace

std::string calibration_text(const Calibration& c, const std::string& profile_path) {
  std::string out;
  out += fmt::format("Calibrated '{}' from {} input(s): {}\n\n", c.name, c.inputs.size(), fmt::join(c.inputs, ", "));
  out += fmt::format("  {:<30} {:>12} {:<9} {:>11} {:>9} {:>7}  {}\n", "parameter", "value", "unit", "± (95 %)", "R²",
                     "points", "fit (input)");
  for (const auto& e : c.params) {
    bool base = e.method.starts_with("base profile");
    out += fmt::format("  {:<30} {:>12} {:<9} {:>11} {:>9} {:>7}  {} ({})\n", e.key, shown(e.value), unit_of(e.key),
                       base ? "-" : shown(e.band), base || e.r2 == 0 ? "-" : fmt::format("{:.5f}", e.r2),
                       base ? "-" : fmt::format("{}", e.points), e.method, e.from);
  }
  if (!c.missing.empty()) {
    out += "\nNot fitted, left out of the profile (the model's defaults apply):\n";
    for (const auto& m : c.missing) out += fmt::format("  {:<30} needs {}\n", m.key, m.sweep);
  }
  bool off = false;
  for (const auto& cell : c.read_cells)
    if (!cell.used || std::abs(cell.rel_err) > 0.10) {
      if (!off) out += "\nRead cells more than 10 % off the fitted read model (noise or effects the model lacks):\n";
      off = true;
      out += fmt::format("  {:>9} x {} thread(s): measured {:8.2f} MB/s, model {:8.2f} ({:+.0f} %){}\n",
                         format_size(cell.block), cell.threads, cell.measured, cell.predicted, cell.rel_err * 100,
                         cell.used ? "" : "  [left out of the fit]");
    }
  if (!c.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : c.notes) out += fmt::format("  - {}\n", n);
  }
  if (!profile_path.empty()) out += fmt::format("\nWrote {} (try: streamdisk show {})\n", profile_path, profile_path);
  return out;
}

nlohmann::json calibration_json(const Calibration& c, const std::string& profile_path) {
  nlohmann::json j;
  j["format"] = "streamdisk-calibrate";
  j["format_version"] = 1;
  j["name"] = c.name;
  j["inputs"] = c.inputs;
  j["profile"] = profile_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(profile_path);
  j["params"] = nlohmann::json::array();
  for (const auto& e : c.params)
    j["params"].push_back({{"key", e.key}, {"value", e.value}, {"unit", unit_of(e.key)}, {"band95", e.band},
                           {"r2", e.r2}, {"points", e.points}, {"method", e.method}, {"from", e.from}});
  j["missing"] = nlohmann::json::array();
  for (const auto& m : c.missing) j["missing"].push_back({{"key", m.key}, {"needs", m.sweep}});
  j["read_cells"] = nlohmann::json::array();
  for (const auto& r : c.read_cells)
    j["read_cells"].push_back({{"block_bytes", r.block}, {"threads", r.threads}, {"measured_mbps", r.measured},
                               {"model_mbps", r.predicted}, {"rel_err", r.rel_err}, {"used", r.used}});
  const auto& dl = c.device_lengths;
  auto stops = nlohmann::json::array();
  for (const auto& s : dl.stops) stops.push_back({{"at_s", s.at_s}, {"length_s", s.length_s}});
  j["device_lengths"] = dl.measured ? nlohmann::json{{"matched", dl.matched},
                                                     {"pauses", dl.pauses},
                                                     {"device_median_ms", dl.device_median_ms},
                                                     {"writes_median_ms", dl.writes_median_ms},
                                                     {"threshold_s", dl.threshold_s},
                                                     {"stops", stops}}
                                    : nlohmann::json(nullptr);
  j["notes"] = c.notes;
  return j;
}

}  // namespace sd::cal
