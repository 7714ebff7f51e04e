#include "replay/results.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/input.h"
#include "models/units.h"

namespace sd {
namespace {

nlohmann::json json_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json row_json(const ReplayResult& r) {
  const ReplayStats& s = r.s;
  nlohmann::json tl;
  for (const auto& p : s.timeline) {
    tl["t_s"].push_back(p.t);
    tl["buffered_bytes"].push_back(p.buffered_bytes);
    tl["written_bytes"].push_back(p.written_bytes);
    tl["scheduled_bytes"].push_back(p.scheduled_bytes);
  }
  return {{"target", r.kind},
          {"name", r.name},
          {"completion_s", s.completion_s},
          {"writes", s.writes},
          {"bytes_written", s.bytes_written},
          {"behind_schedule", {{"max_s", s.max_behind_s}, {"mean_s", s.mean_behind_s},
                               {"at_end_s", s.completion_s - s.recorded_end_s}}},
          {"write_latency_s", {{"p50", s.write_latency_s[0]}, {"p90", s.write_latency_s[1]},
                               {"p99", s.write_latency_s[2]}, {"p99_9", s.write_latency_s[3]},
                               {"max", s.write_latency_s[4]}}},
          {"fsync_max_s", s.fsync_max_s},
          {"stalls", s.stalls},
          {"stall_seconds", s.stall_seconds},
          {"needed_buffer_bytes", s.needed_buffer_bytes},
          {"overruns", s.overruns},
          {"overrun_times_s", s.overrun_times},
          {"errors", s.errors},
          {"failed_ops", s.failed_ops},
          {"failed_write_bytes", s.failed_write_bytes},
          {"first_error", s.first_error ? nlohmann::json{{"op_index", s.first_error->op},
                                                         {"t_s", s.first_error->t},
                                                         {"op", s.first_error->kind},
                                                         {"file", s.first_error->file},
                                                         {"error", s.first_error->error}}
                                        : nlohmann::json()},
          {"kept_up", s.kept_up ? nlohmann::json(*s.kept_up) : nlohmann::json()},
          {"timeline", tl}};
}

std::string ms(double s) { return s < 1 ? fmt::format("{:.2f} ms", s * 1e3) : format_duration(s); }

}  // namespace

nlohmann::json replay_json(const OpList& ops, const ReplayOptions& o, const std::vector<ReplayResult>& rows,
                           uint64_t seed) {
  nlohmann::json j;
  j["format"] = "streamdisk-replay";
  j["format_version"] = 1;
  j["trace"] = {{"name", ops.name},
                {"format", ops.format},
                {"ops", ops.ops.size()},
                {"files", ops.file_count()},
                {"threads", ops.thread_count()},
                {"bytes_written", ops.bytes_written()},
                {"recorded_end_s", ops.recorded_end() * o.time_scale},
                {"has_durations", ops.has_durations()},
                {"recorded_needed_buffer_bytes", json_or_null(recorded_needed_buffer(ops, o.time_scale))},
                {"unknown", ops.unknown},
                {"ignored", ops.ignored}};
  j["options"] = {{"mode", o.as_fast_as_possible ? "as-fast-as-possible" : o.open_loop ? "open-loop" : "recorded-times"},
                  {"time_scale", o.time_scale},
                  {"buffer_bytes", o.buffer_bytes >= 0 ? nlohmann::json(o.buffer_bytes) : nlohmann::json()},
                  {"tolerance_s", o.tolerance_s},
                  {"seed", seed}};
  for (const auto& r : rows) j["results"].push_back(row_json(r));
  return j;
}

std::string replay_text(const OpList& ops, const ReplayOptions& o, const std::vector<ReplayResult>& rows) {
  std::string out;
  double rec = ops.recorded_end() * o.time_scale;
  out += fmt::format("Trace {} ({}): {} ops on {} file(s), {} thread(s), {} written{}\n", ops.name, ops.format,
             ops.ops.size(), ops.file_count(), ops.thread_count(), format_size(ops.bytes_written()),
             rec > 0 ? fmt::format(" over {} recorded", ms(rec)) : " (no times recorded)");
  for (const auto& [why, n] : ops.ignored) out += fmt::format("  not replayed: {} x {}\n", n, why);
  if (!ops.unknown.empty()) {
    std::string u;
    for (const auto& [name, n] : ops.unknown) u += fmt::format("{}{} x {}", u.empty() ? "" : ", ", name, n);
    out += fmt::format("  unknown calls/actions (counted, not replayed): {}\n", u);
  }
  if (auto need = recorded_needed_buffer(ops, o.time_scale); need && !o.as_fast_as_possible)
    out += fmt::format("  as recorded, the recorder had up to {} waiting to be written\n", format_size(*need));
  if (o.as_fast_as_possible)
    out += fmt::format("Replayed as fast as possible (each thread back to back).\n\n");
  else
    out += fmt::format("Replayed at the recorded times (x{:g}); {}.\n\n", o.time_scale,
               o.buffer_bytes >= 0 ? fmt::format("recorder buffer {}", format_size(o.buffer_bytes))
                                   : fmt::format("no --buffer given: 'kept up' means never more than {} behind",
                                                 ms(o.tolerance_s)));
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.name.size() + (r.kind == "path" ? 5 : 0));
  // The "failed" column appears when an operation failed somewhere (then a
  // line per device below names the first error).
  bool any_failed = std::any_of(rows.begin(), rows.end(), [](const ReplayResult& r) { return r.s.failed_ops > 0; });
  auto failed_cell = [&](const std::string& v) { return any_failed ? fmt::format(" {:>7}", v) : std::string(); };
  out += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>10} {:>11} {:>7} {:>11}{} {:>8}\n", "device", w, "finished",
             "write p50", "write p99", "write max", "behind max", "stalls", "buffer need", failed_cell("failed"),
             "kept up");
  for (const auto& r : rows) {
    const ReplayStats& s = r.s;
    std::string name = r.kind == "path" ? "path " + r.name : r.name;
    out += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>10} {:>11} {:>7} {:>11}{} {:>8}\n", name, w,
               ms(s.completion_s), ms(s.write_latency_s[0]), ms(s.write_latency_s[2]), ms(s.write_latency_s[4]),
               o.as_fast_as_possible ? "-" : ms(s.max_behind_s), r.kind == "path" ? "-" : std::to_string(s.stalls),
               o.as_fast_as_possible ? "-" : format_size(s.needed_buffer_bytes), failed_cell(std::to_string(s.failed_ops)),
               !s.kept_up ? "-" : *s.kept_up ? "yes" : fmt::format("NO{}", s.overruns ? fmt::format(" ({})", s.overruns) : ""));
  }
  for (const auto& r : rows)
    if (const auto& e = r.s.first_error)
      out += fmt::format("{}: {} of {} operations failed ({} B not written); first: {} of '{}' at {}: {}\n",
                 r.kind == "path" ? "path " + r.name : r.name, r.s.failed_ops, r.s.ops,
                 format_size(r.s.failed_write_bytes), e->kind, excerpt(e->file, 60), ms(e->t), e->error);
  if (o.as_fast_as_possible) return out;
  std::vector<std::string> ok, late;
  for (const auto& r : rows)
    (r.s.kept_up.value_or(false) ? ok : late)
        .push_back(r.s.failed_ops ? fmt::format("{} ({} failed operations)", r.name, r.s.failed_ops) : r.name);
  out += fmt::format("\nVerdict: {} of {} would have kept up with this recorder{}{}.\n", ok.size(), rows.size(),
             ok.empty() ? "" : ": " + fmt::format("{}", fmt::join(ok, ", ")),
             late.empty() ? "" : fmt::format("; {}: {}", any_failed ? "too slow or failing" : "too slow", fmt::join(late, ", ")));
  return out;
}

// The replay itself as a native trace: issue and completion of every op.
void write_replay_trace(TraceWriter& w, const OpList& ops, const ReplayRun& run) {
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const ReplayOp& op = ops.ops[i];
    const OpOutcome& o = run.outcomes[i];
    TraceRecord r;
    r.start = o.issue, r.end = o.done, r.op = op.kind, r.file = op.file, r.offset = op.offset, r.bytes = op.bytes;
    r.thread = op.thread;
    r.error = o.error;
    r.direct = o.direct;
    w.write(r);
  }
}

}  // namespace sd
