#include "measure/results.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/trace.h"
#include "models/units.h"
#include "sim/format.h"
#include "sim/spread_report.h"

namespace sd {
namespace {

// A table cell, by its column's name (units in the names).
std::string cell(const std::string& col, double v) {
  if (std::isnan(v)) return "-";
  if (col.ends_with("_bytes") || col == "bytes") return v == 0 ? "0" : format_size(v);
  if (col.ends_with("_mbps")) return fmt::format("{:.1f}", v);
  if (col.starts_with("fill")) return fmt::format("{:.1f} %", v * 100);
  if (col == "threads" || col == "channels") return fmt::format("{:.0f}", v);
  if (col == "format") return std::string(format_name(static_cast<FormatKind>(static_cast<int>(v))));
  return fmt::format("{:.3f}", v);
}

std::string value_text(const FoundParam& f) {
  if (f.unit == "bytes") return format_size(f.value);
  // Whole numbers as they are (30000 ms, not 3e+04); others to 4 digits.
  if (f.value == std::floor(f.value) && std::fabs(f.value) < 1e9) return fmt::format("{:.0f}", f.value);
  return fmt::format("{:.4g}", f.value);
}

uint64_t block_of(const RecorderConfig& r) { return r.block_bytes ? r.block_bytes : r.buffer_bytes / 2; }

std::string recorder_text(const RecorderConfig& r) {
  return fmt::format("{} buffer, {} blocks, {}, {} ch x {}-bit, {}{}", format_size(static_cast<double>(r.buffer_bytes)),
                     format_size(static_cast<double>(block_of(r))), format_name(r.format), r.stream.channels,
                     r.stream.sample_bits, format_duration(r.duration_s), r.direct ? ", O_DIRECT" : "");
}

}  // namespace

std::string measure_text(const MeasureReport& r) {
  std::string out;
  out += fmt::format("streamdisk measure --sweep {} on {} ({}, fsync {})\n", sweep_name(r.sweep), r.target,
      r.direct_used        ? "O_DIRECT"
      : r.direct_requested ? "O_DIRECT requested, not direct: see the notes"
                           : "buffered",
      r.fsync);
  const auto& cols = r.table.columns;
  for (const auto& c : cols) out += fmt::format("{:>{}}", c, std::max<size_t>(12, c.size() + 2));
  out += fmt::format("\n");
  for (const auto& row : r.table.rows) {
    for (size_t i = 0; i < cols.size(); ++i)
      out += fmt::format("{:>{}}", cell(cols[i], row[i]), std::max<size_t>(12, cols[i].size() + 2));
    out += fmt::format("\n");
  }
  for (const auto& [k, v] : r.summary) out += fmt::format("{:<24} {}\n", k, cell(k, v));
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  if (r.cancelled) out += fmt::format("interrupted: partial results, test files removed, no trace written\n");
  return out;
}

nlohmann::json measure_json(const MeasureReport& r) {
  nlohmann::json j = {{"format", "streamdisk-measure"}, {"format_version", 1}, {"sweep", sweep_name(r.sweep)},
                      {"target", r.target}, {"direct_requested", r.direct_requested}, {"direct_used", r.direct_used},
                      {"fsync", r.fsync}, {"notes", r.notes}, {"cancelled", r.cancelled},
                      {"columns", r.table.columns}};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.table.rows) {
    nlohmann::json jr = nlohmann::json::array();
    for (size_t i = 0; i < row.size(); ++i)
      jr.push_back(r.table.columns[i] == "format" ? nlohmann::json(cell("format", row[i])) : nlohmann::json(row[i]));
    rows.push_back(jr);
  }
  j["rows"] = rows;
  j["summary"] = nlohmann::json::object();
  for (const auto& [k, v] : r.summary) j["summary"][k] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  j["error"] = r.error ? errno_name(r.error) : "";
  return j;
}

std::string characterize_text(const CharacterizeReport& r, const std::string& profile_path) {
  std::string out;
  out += fmt::format("streamdisk characterize {}\n", r.target);
  out += fmt::format("  filesystem: {} ({}: {})\n", r.fs.fstype.empty() ? "?" : r.fs.fstype,
      r.fs.userspace ? "userspace driver: its own work is inside the writer's call" : "kernel driver", r.fs.how);
  if (r.fs.userspace && !r.fs.driver_how.empty()) out += fmt::format("  driver's device I/O: {}\n", r.fs.driver_how);
  out += fmt::format("  space: {} free of {}; the run stays below {:.0f} % full (writes at most {} at once)\n\n",
      format_size(r.free_bytes), format_size(r.total_bytes), r.safe_fill * 100, format_size(r.max_bytes));
  out += fmt::format("  {:<16} {:>9} {:>10}  {}\n", "phase", "time", "written", "result");
  for (const auto& p : r.phases)
    out += fmt::format("  {:<16} {:>9} {:>10}  {}\n", p.name, format_duration(p.seconds), format_size(p.bytes), p.result);
  out += fmt::format("\n  {:<30} {:>12} {:<6} {:<12} {}\n", "parameter", "value", "unit", "phase", "how sure");
  for (const auto& f : r.found)
    out += fmt::format("  {:<30} {:>12} {:<6} {:<12} {}\n", f.key, value_text(f), f.unit == "bytes" ? "" : f.unit, f.phase,
        f.sure);
  if (!r.burst_verdict.empty()) out += fmt::format("\n  write cache: {}\n", r.burst_verdict);
  if (r.cpu_busy_others >= 0)
    out += fmt::format("  CPU used by other processes during the run: {:.0f} % of the machine{}{}\n", r.cpu_busy_others * 100,
                       r.fs.userspace ? " (the userspace driver's included)" : "",
                       r.cpu_busy_idle >= 0 ? fmt::format("; before the first write: {:.0f} %", r.cpu_busy_idle * 100)
                                            : std::string());
  if (!r.device_pauses.text.empty()) out += fmt::format("  the device's own pauses: {}\n", r.device_pauses.text);
  if (!r.notes.empty()) {
    out += fmt::format("\nNotes:\n");
    for (const auto& n : r.notes) out += fmt::format("  - {}\n", n);
  }
  out += fmt::format("\nHighest clean data rate: {} for a recorder with {}\n",
      r.capacity.found ? format_rate(r.headline_bytes_per_s) : "none (even the lowest rate tried overran)",
      recorder_text(r.recorder));
  out += fmt::format("  {}\n", r.criterion);
  if (!r.capacity.limited_by.empty()) out += fmt::format("  the next rate up fails by: {}\n", r.capacity.limited_by);
  if (!r.check.text.empty()) out += fmt::format("  checked on the storage: {}\n", r.check.text);
  if (r.spread && r.capacity.found) {
    double frame = static_cast<double>(r.recorder.stream.frame_bytes());
    ValueText rate = [&](double sample_rate) { return format_rate(sample_rate * frame); };
    if (r.calibration.stalls_too_few)
      out += "  the pauses were too few for intervals (see the notes): the spread below leaves them out; a longer "
             "--budget measures more of them\n";
    if (rate(r.spread->low) == rate(r.spread->high))
      out += fmt::format("  over the measured values' 95 % intervals: {} at either end\n", rate(r.spread->nominal));
    else
      out += fmt::format("  over the measured values' 95 % intervals: {}\n  {}\n", spread_range_text(*r.spread, rate),
                         spread_decisive_text(*r.spread, rate));
  }
  for (const auto& t : r.traces) out += fmt::format("Kept trace {}\n", t);
  if (!profile_path.empty())
    out += fmt::format("Wrote {} (try: streamdisk capacity -p {} --find sample-rate --buffer 4MiB)\n", profile_path,
        profile_path);
  return out;
}

nlohmann::json characterize_json(const CharacterizeReport& r, const std::string& profile_path) {
  nlohmann::json j = {{"format", "streamdisk-characterize"},
                      {"format_version", 1},
                      {"target", r.target},
                      {"filesystem",
                       {{"fstype", r.fs.fstype},
                        {"userspace", r.fs.userspace},
                        {"how", r.fs.how},
                        {"driver_io", driver_io_name(r.fs.driver_io)},
                        {"driver_how", r.fs.driver_how}}},
                      {"total_bytes", r.total_bytes},
                      {"free_bytes", r.free_bytes},
                      {"safe_fill", r.safe_fill},
                      {"max_bytes", r.max_bytes},
                      {"idle", {{"waited_s", r.idle_waited_s}, {"quiet_s", r.idle_quiet_s}, {"how", r.idle_how}}},
                      {"write_cache", r.burst_verdict},
                      {"seconds", r.seconds},
                      {"cpu_busy_others", r.cpu_busy_others >= 0 ? nlohmann::json(r.cpu_busy_others) : nlohmann::json(nullptr)},
                      {"cpu_busy_idle", r.cpu_busy_idle >= 0 ? nlohmann::json(r.cpu_busy_idle) : nlohmann::json(nullptr)},
                      {"profile", profile_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(profile_path)},
                      {"notes", r.notes},
                      {"traces", r.traces}};
  const auto& dp = r.device_pauses;
  j["device_pauses"] = dp.measured ? nlohmann::json{{"device", dp.device},
                                                    {"busy_gaps", dp.busy_gaps},
                                                    {"busy_s", dp.busy_s},
                                                    {"rate_bytes_per_s", dp.rate},
                                                    {"threshold_s", dp.threshold_s},
                                                    {"lengths_s", dp.lengths_s},
                                                    {"at_s", dp.at_s},
                                                    {"median_s", dp.median_s},
                                                    {"fit_median_s", dp.fit_median_s},
                                                    {"matched", r.calibration.device_lengths.matched},
                                                    {"matched_device_median_s", r.calibration.device_lengths.device_median_ms / 1e3},
                                                    {"matched_writes_median_s", r.calibration.device_lengths.writes_median_ms / 1e3},
                                                    {"text", dp.text}}
                                   : nlohmann::json(nullptr);
  j["phases"] = nlohmann::json::array();
  for (const auto& p : r.phases)
    j["phases"].push_back({{"name", p.name}, {"seconds", p.seconds}, {"bytes", p.bytes}, {"result", p.result}});
  j["params"] = nlohmann::json::array();
  for (const auto& f : r.found)
    j["params"].push_back({{"key", f.key}, {"value", f.value}, {"unit", f.unit}, {"phase", f.phase}, {"sure", f.sure}});
  j["headline"] = {{"found", r.capacity.found},
                   {"data_rate_bytes_per_s", r.headline_bytes_per_s},
                   {"sample_rate", r.capacity.found ? nlohmann::json(r.capacity.best) : nlohmann::json(nullptr)},
                   {"criterion", r.criterion},
                   {"seeds", r.capacity.at_best.seeds},
                   {"seeds_with_overrun", r.capacity.at_best.seeds_with_overrun},
                   {"overrun_probability_bounds", {r.capacity.at_best.p.low, r.capacity.at_best.p.high}},
                   {"limited_by", r.capacity.limited_by},
                   // in sample rate, like sample_rate; data_rate_range_bytes_per_s: [low, high] x frame bytes
                   {"spread", r.spread ? spread_json(*r.spread) : nlohmann::json(nullptr)},
                   {"data_rate_range_bytes_per_s",
                    r.spread ? nlohmann::json{r.spread->low * static_cast<double>(r.recorder.stream.frame_bytes()),
                                              r.spread->high * static_cast<double>(r.recorder.stream.frame_bytes())}
                             : nlohmann::json(nullptr)},
                   {"check",
                    r.check.text.empty()
                        ? nlohmann::json(nullptr)
                        : nlohmann::json{{"ran", r.check.ran},
                                         {"rate_bytes_per_s", r.check.rate},
                                         {"seconds", r.check.seconds},
                                         {"writes", r.check.writes},
                                         {"late", r.check.late},
                                         {"max_lag_s", r.check.max_lag},
                                         {"ring_room_bytes", r.check.room},
                                         {"fell_behind", r.check.fell_behind},
                                         {"cache_used_up", r.check.cache_used_up},
                                         {"text", r.check.text}}},
                   {"recorder",
                    {{"buffer_bytes", r.recorder.buffer_bytes},
                     {"block_bytes", block_of(r.recorder)},
                     {"format", std::string(format_name(r.recorder.format))},
                     {"channels", r.recorder.stream.channels},
                     {"sample_bits", r.recorder.stream.sample_bits},
                     {"duration_s", r.recorder.duration_s}}}};
  return j;
}

}  // namespace sd
