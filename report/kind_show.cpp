// "streamdisk-show": what a profile predicts, as pictures.
#include <cmath>

#include <fmt/format.h>

#include "models/units.h"
#include "report/report.h"

namespace sd {
namespace {

std::string size_tick(double b) { return format_size(b); }
std::string mbps_tick(double v) { return fmt::format("{:g}", v); }

Plot rate_vs_block(const nlohmann::json& j, const std::string& name) {
  Plot p;
  p.id = "rate-vs-block";
  p.title = fmt::format("Write rate vs block size: {}", name);
  p.x_label = "block size per write (log scale)";
  p.y_label = "write rate (MB/s)";
  p.log_x = true;
  p.x_fmt = size_tick;
  p.y_fmt = mbps_tick;
  PlotSeries burst{"burst (cache empty), direct", {}, {}}, sus{"sustained (cache full), direct", {}, {}},
      buf{"sustained, through the page cache", {}, {}, false, true};
  for (const auto& r : j.at("write_rates")) {
    double b = r.at("block_bytes");
    burst.x.push_back(b), burst.y.push_back(r.at("burst_direct_mbps"));
    sus.x.push_back(b), sus.y.push_back(r.at("sustained_direct_mbps"));
    if (r.contains("sustained_buffered_mbps")) buf.x.push_back(b), buf.y.push_back(r["sustained_buffered_mbps"]);
  }
  for (double t = 512; !sus.x.empty() && t <= sus.x.back() * 1.01; t *= 8) p.x_ticks.push_back(t);
  bool has_burst = false;
  for (size_t i = 0; i < burst.y.size(); ++i) has_burst |= std::abs(burst.y[i] - sus.y[i]) > 1e-9;
  if (has_burst) p.series.push_back(burst);
  p.series.push_back(sus);
  if (!buf.x.empty()) p.series.push_back(buf);
  p.caption = fmt::format(
      "Each point is the steady rate of back-to-back sequential writes of one block size, as the model of {} "
      "predicts it. Small blocks are slow because every request pays a fixed cost; the curve flattens once a "
      "block takes much longer to transfer than that cost.{}",
      name, has_burst ? " The upper curve holds only while the drive's burst cache has room; a long recording "
                        "gets the lower one." : "");
  return p;
}

Plot timeline(const nlohmann::json& j, const std::string& name, double burst_mbps, double sus_mbps) {
  Plot p;
  p.id = "sustained-timeline";
  p.title = fmt::format("Writing flat out in 1 MiB blocks: {}", name);
  p.x_label = "time since the recording started (s)";
  p.y_label = "write rate (MB/s)";
  p.y_fmt = mbps_tick;
  double knee = j.at("burst").at("seconds_at_full_speed");
  double burst_bytes = j.at("burst").at("bytes_written_by_then");
  double end = knee > 0 ? std::max(knee * 3, 10.0) : 60.0;
  PlotSeries s{"write rate", {}, {}};
  if (knee > 0) {
    s.x = {0, knee, knee, end};
    s.y = {burst_mbps, burst_mbps, sus_mbps, sus_mbps};
    p.lines.push_back({knee, fmt::format("burst cache full: {} ({} written)", format_duration(knee),
                                         format_size(burst_bytes))});
  } else {
    s.x = {0, end};
    s.y = {sus_mbps, sus_mbps};
  }
  p.series.push_back(s);
  p.lines.push_back({sus_mbps, fmt::format("sustained {}", format_rate(sus_mbps * 1e6)), false});
  p.caption = knee > 0
                  ? fmt::format("What a long recording sees: the drive takes data at {} until its burst cache is "
                                "full after {}, then only at {}. Benchmarks that write less than {} never reach the "
                                "knee, which is why the data sheet figure is the upper line.",
                                format_rate(burst_mbps * 1e6), format_duration(knee), format_rate(sus_mbps * 1e6),
                                format_size(burst_bytes))
                  : fmt::format("This profile has no burst cache: the rate is {} from the first second.",
                                format_rate(sus_mbps * 1e6));
  return p;
}

std::string params_table(const nlohmann::json& j) {
  std::vector<std::vector<std::string>> rows;
  for (const char* layer : {"host", "filesystem", "device"}) {
    if (!j.at("layers").contains(layer)) continue;
    const auto& l = j["layers"][layer];
    if (!l.value("present", false)) continue;
    for (const auto& [key, v] : l.at("params").items()) {
      if (v.value("origin", "") == "default") continue;
      double val = v.at("value").get<double>();
      bool bytes = v.value("unit", "") == "bytes";
      rows.push_back({fmt::format("{}.{}", layer, key), bytes ? format_size(val) : fmt::format("{:g}", val),
                      v.value("unit", ""), v.value("origin", ""), v.value("source", "")});
    }
  }
  return html_table({"parameter", "value", "unit", "origin", "source"}, rows);
}

}  // namespace

Result<ReportSection> render_show(const ReportInput& in) {
  const auto& j = in.doc;
  std::string name = j.at("name");
  ReportSection s;
  s.title = fmt::format("Profile {}", name);
  s.blocks.push_back({para(fmt::format("{} (from {}).", j.value("summary", std::string()), in.name)), {}});
  double burst = 0, sus = 0;
  for (const auto& r : j.at("write_rates"))
    if (r.at("block_bytes").get<double>() == 1048576) burst = r.at("burst_direct_mbps"), sus = r.at("sustained_direct_mbps");
  if (sus == 0) sus = j.at("sustained_mbps_1MiB");
  s.blocks.push_back({{}, rate_vs_block(j, name)});
  s.blocks.push_back({{}, timeline(j, name, burst > 0 ? burst : sus, sus)});
  s.blocks.push_back({para("Parameters set by the profile or on the command line (defaults omitted):") + params_table(j), {}});
  return s;
}

}  // namespace sd
