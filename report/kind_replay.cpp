// "streamdisk-replay": which devices would have kept up with the recorder.
#include <fmt/format.h>

#include "models/units.h"
#include "report/report.h"

namespace sd {
namespace {

std::string dur(double s) { return s < 1 ? fmt::format("{:.2f} ms", s * 1e3) : format_duration(s); }
std::vector<double> nums(const nlohmann::json& a) { return a.is_array() ? a.get<std::vector<double>>() : std::vector<double>{}; }
std::vector<double> scaled(std::vector<double> v, double k) {
  for (double& x : v) x *= k;
  return v;
}
std::string mb_tick(double v) { return fmt::format("{:g}", v); }

}  // namespace

Result<ReportSection> render_replay(const ReportInput& in) {
  const auto& j = in.doc;
  const auto& t = j.at("trace");
  const auto& opt = j.at("options");
  bool afap = opt.at("mode") == "as-fast-as-possible";
  bool has_buffer = !opt.at("buffer_bytes").is_null();
  double buffer = has_buffer ? opt["buffer_bytes"].get<double>() : 0;
  ReportSection s;
  s.title = fmt::format("Replay of {}", t.at("name").get<std::string>());
  s.blocks.push_back({para(fmt::format(
      "The trace ({}, {} operations on {} file(s)) records {} written over {}. It was replayed {} against each "
      "device below{}.", t.at("format").get<std::string>(), t.at("ops").get<size_t>(), t.at("files").get<size_t>(),
      format_size(t.at("bytes_written")), dur(t.at("recorded_end_s")),
      afap ? "as fast as possible" : "at its recorded times (a late device delays the next write of that thread)",
      afap ? "" : has_buffer ? fmt::format("; the recorder's buffer is {}", format_size(buffer))
                             : fmt::format("; with no buffer size given, 'kept up' means never more than {} late",
                                           dur(opt.at("tolerance_s"))))), {}});
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : j.at("results")) {
    const auto& lat = r.at("write_latency_s");
    std::string kept = r.at("kept_up").is_null() ? "-" : r["kept_up"].get<bool>() ? "yes" : "NO";
    rows.push_back({r.at("name").get<std::string>(), dur(r.at("completion_s")), dur(lat.at("p50")), dur(lat.at("p99")),
                    dur(lat.at("max")), afap ? "-" : dur(r.at("behind_schedule").at("max_s")),
                    std::to_string(r.at("stalls").get<uint64_t>()),
                    afap ? "-" : format_size(r.at("needed_buffer_bytes")),
                    std::to_string(r.at("overruns").get<uint64_t>()), kept});
  }
  s.blocks.push_back({para("Which of these devices would have kept up with this recorder?") +
                          html_table({"device", "finished after", "write p50", "write p99", "write max",
                                      "most behind", "stalls", "buffer needed", "overruns", "kept up"},
                                     rows),
                      {}});
  Plot written;
  written.id = "replay-written";
  written.title = "Data written over time";
  written.x_label = "time since the trace started (s)";
  written.y_label = "data written (MB)";
  written.y_fmt = mb_tick;
  int color = 0;
  for (const auto& r : j.at("results")) {
    const auto& tl = r.at("timeline");
    written.series.push_back(
        {r.at("name"), nums(tl.at("t_s")), scaled(nums(tl.at("written_bytes")), 1e-6), false, false, color++});
  }
  if (!afap && !j.at("results").empty()) {  // drawn last, so it shows over a device that follows it exactly
    const auto& tl = j["results"][0].at("timeline");
    written.series.push_back(
        {"recorder's schedule", nums(tl.at("t_s")), scaled(nums(tl.at("scheduled_bytes")), 1e-6), false, true, 6});
  }
  written.caption = afap ? "Each line is the data a device had written by each moment, replaying the operations back "
                           "to back; the steeper, the faster."
                         : "The dashed line is the data the recorder produced, at the pace it was recorded. A device "
                           "that keeps up follows it; one that is too slow falls below, and the vertical gap is data "
                           "waiting in the recorder's memory.";
  s.blocks.push_back({{}, written});
  if (afap) return s;
  Plot fill;
  fill.id = "replay-buffer";
  fill.title = "Recorder buffer fill over time";
  fill.x_label = "time since the trace started (s)";
  fill.y_label = "data waiting to be written (MB)";
  fill.y_fmt = mb_tick;
  color = 0;
  for (const auto& r : j.at("results")) {
    const auto& tl = r.at("timeline");
    std::string name = r.at("name");
    fill.series.push_back({name, nums(tl.at("t_s")), scaled(nums(tl.at("buffered_bytes")), 1e-6), false, false, color});
    auto times = nums(r.at("overrun_times_s"));
    if (has_buffer && !times.empty()) {
      if (times.size() > 200) times.resize(200);
      fill.series.push_back({fmt::format("overruns on {}", name), times,
                             std::vector<double>(times.size(), buffer * 1e-6), true, false, color});
    }
    ++color;
  }
  if (has_buffer) fill.lines.push_back({buffer * 1e-6, fmt::format("recorder buffer {}", format_size(buffer)), false});
  fill.caption = fmt::format(
      "Data the recorder has produced but the device has not yet finished writing. It must stay below the "
      "recorder's buffer{}: every point above it is an overrun (samples lost). The peak is the buffer each "
      "device would have needed.", has_buffer ? " (red dashed line)" : "");
  s.blocks.push_back({{}, fill});
  if (!t.at("unknown").empty() || !t.at("ignored").empty()) {
    std::vector<std::vector<std::string>> skipped;
    for (const auto& [k, v] : t.at("unknown").items()) skipped.push_back({"unknown call: " + k, std::to_string(v.get<uint64_t>())});
    for (const auto& [k, v] : t.at("ignored").items()) skipped.push_back({k, std::to_string(v.get<uint64_t>())});
    s.blocks.push_back({para("Not replayed (counted while reading the trace):") + html_table({"what", "count"}, skipped), {}});
  }
  return s;
}

}  // namespace sd
