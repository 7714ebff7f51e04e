// The generic layout, for kinds without a dedicated renderer (simulate,
// capacity, measure, calibrate, and kinds newer than this code). It reads
// the JSON's shape, following three conventions (docs/formats.md):
//   - scalars (top level, or one object deep) -> a key/value table;
//   - an array of flat objects -> a table, and, if a column is block_bytes,
//     fill, channels, t_s or time_s, a plot of the *_mbps / *_bytes / *_s
//     columns against it ("measured_*" columns drawn as points, so measured
//     vs fitted reads at a glance);
//   - {"columns": [names], "rows": [[values]]} -> the same, as records;
//   - an object with a "t_s" array -> a timeline of its other arrays of the
//     same length, with "overrun_times_s" as markers at "buffer_bytes".
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "models/units.h"
#include "report/report.h"

namespace sd {
namespace {

using json = nlohmann::json;

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
  return v.is_null() ? "-" : v.dump();
}

bool is_scalar(const json& v) { return v.is_primitive(); }

// Scale and unit for a column name: bytes -> MB, *_mbps -> MB/s, *_s -> s.
std::pair<double, std::string> unit_of(const std::string& key) {
  if (key.ends_with("bytes")) return {1e-6, "MB"};
  if (key.ends_with("mbps")) return {1, "MB/s"};
  if (key.ends_with("_s")) return {1, "s"};
  return {1, ""};
}

const char* kXKeys[] = {"block_bytes", "fill", "fill_before", "channels", "t_s", "time_s", "start_s", "buffer_bytes"};
const char* kGroupKeys[] = {"threads", "queue_depth", "thread_count"};

void records(const std::string& key, const json& arr, std::vector<ReportBlock>& out) {
  std::vector<std::string> cols;
  for (const auto& [k, v] : arr.front().items())
    if (is_scalar(v)) cols.push_back(k);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < arr.size() && i < 60; ++i) {
    std::vector<std::string> r;
    for (const auto& c : cols) r.push_back(arr[i].contains(c) ? scalar_text(arr[i][c]) : "");
    rows.push_back(std::move(r));
  }
  std::string note = arr.size() > 60 ? fmt::format(" (first 60 of {} rows)", arr.size()) : "";
  out.push_back({para(fmt::format("{}{}:", key, note)) + html_table(cols, rows), {}});
  std::string xk;
  for (const char* k : kXKeys)
    if (xk.empty() && arr.front().contains(k) && arr.front()[k].is_number()) xk = k;
  if (xk.empty()) return;
  // Rows that differ in a thread count become one series per count.
  std::string gk;
  std::vector<double> groups = {0};
  for (const char* k : kGroupKeys) {
    if (!gk.empty() || k == xk || !arr.front().contains(k) || !arr.front()[k].is_number()) continue;
    std::set<double> vals;
    for (const auto& r : arr)
      if (r.contains(k) && r[k].is_number()) vals.insert(r[k].get<double>());
    if (vals.size() > 1) gk = k, groups.assign(vals.begin(), vals.end());
  }
  Plot p;
  p.id = key;
  p.log_x = xk == "block_bytes";
  if (p.log_x) p.x_fmt = [](double b) { return format_size(b); };
  auto [xs, xu] = unit_of(xk);
  p.x_label = fmt::format("{}{}", xk, p.log_x ? " (log scale)" : xu.empty() ? "" : " (" + xu + ")");
  // One unit per plot: rates if there are any (what a sweep is about), else the first.
  std::string yunit;
  for (const auto& c : cols) {
    auto u = unit_of(c).second;
    if (c != xk && c != gk && arr.front()[c].is_number() && !u.empty() && (yunit.empty() || u == "MB/s")) yunit = u;
  }
  int col = 0;
  for (const auto& c : cols) {
    if (c == xk || c == gk || !arr.front()[c].is_number()) continue;
    auto [ys, yu] = unit_of(c);
    if (yu != yunit) continue;
    for (size_t g = 0; g < groups.size(); ++g) {
      bool measured = c.find("measured") != std::string::npos;
      PlotSeries s{gk.empty() ? c : fmt::format("{} ({}={:g})", c, gk, groups[g]), {}, {}, measured, false,
                   static_cast<int>(gk.empty() ? col : g)};
      for (const auto& r : arr) {
        if (!gk.empty() && !(r.contains(gk) && r[gk].is_number() && r[gk].get<double>() == groups[g])) continue;
        if (r.contains(xk) && r[xk].is_number() && r.contains(c) && r[c].is_number())
          s.x.push_back(r[xk].get<double>() * (p.log_x ? 1 : xs)), s.y.push_back(r[c].get<double>() * ys);
      }
      if (!s.x.empty()) p.series.push_back(std::move(s));
    }
    ++col;
  }
  if (p.series.empty()) return;
  p.y_label = fmt::format("value ({})", yunit);
  p.title = fmt::format("{} against {}", key, xk);
  p.caption = fmt::format("The numeric columns of '{}' in {} against {}. Points are measurements, lines are model "
                          "or fitted values.", key, yunit, xk);
  out.push_back({{}, std::move(p)});
}

void timeline(const std::string& key, const json& obj, const json& doc, std::vector<ReportBlock>& out) {
  std::vector<double> t = obj["t_s"].get<std::vector<double>>();
  std::map<std::string, Plot> by_unit;
  for (const auto& [k, v] : obj.items()) {
    if (k == "t_s" || !v.is_array() || v.size() != t.size() || (!v.empty() && !v.front().is_number())) continue;
    auto [sc, u] = unit_of(k);
    Plot& p = by_unit[u];
    std::vector<double> y = v.get<std::vector<double>>();
    for (double& x : y) x *= sc;
    p.series.push_back({k, t, y});
  }
  for (auto& [u, p] : by_unit) {
    p.id = key + "-" + (u.empty() ? "values" : u == "MB/s" ? "rate" : u);
    p.title = fmt::format("{} over time", key);
    p.x_label = "time (s)";
    p.y_label = u.empty() ? "value" : fmt::format("value ({})", u);
    if (u == "MB" && doc.contains("buffer_bytes") && doc["buffer_bytes"].is_number()) {
      double b = doc["buffer_bytes"].get<double>() * 1e-6;
      p.lines.push_back({b, fmt::format("buffer {}", format_size(b * 1e6)), false});
      const json& ov = obj.contains("overrun_times_s") ? obj["overrun_times_s"] : doc.value("overrun_times_s", json());
      if (ov.is_array() && !ov.empty()) {
        auto times = ov.get<std::vector<double>>();
        p.series.push_back({"overruns", times, std::vector<double>(times.size(), b), true, false, 1});
      }
    }
    p.caption = fmt::format("The time series of '{}' in {}{}.", key, u.empty() ? "their own units" : u,
                            p.lines.empty() ? "" : "; the red line is the buffer, points on it mark overruns");
    out.push_back({{}, std::move(p)});
  }
}

void visit(const std::string& path, const json& obj, const json& doc, int depth, std::vector<ReportBlock>& out) {
  if (obj.contains("t_s") && obj["t_s"].is_array() && !obj["t_s"].empty()) timeline(path, obj, doc, out);
  // A columnar table: {"columns": [names], "rows": [[values]]}.
  if (obj.contains("columns") && obj.contains("rows") && obj["columns"].is_array() && obj["rows"].is_array() &&
      !obj["rows"].empty()) {
    json recs = json::array();
    auto names = obj["columns"];
    for (const auto& row : obj["rows"]) {
      json r = json::object();
      for (size_t i = 0; i < names.size() && row.is_array() && i < row.size(); ++i) r[names[i].get<std::string>()] = row[i];
      recs.push_back(std::move(r));
    }
    records(path.empty() ? "rows" : path, recs, out);
  }
  for (const auto& [k, v] : obj.items()) {
    std::string p = path.empty() ? k : path + "." + k;
    if (v.is_array() && !v.empty() && v.front().is_object()) {
      records(p, v, out);
      for (size_t i = 0; i < v.size() && i < 8 && depth < 3; ++i) visit(fmt::format("{}[{}]", p, i), v[i], doc, depth + 1, out);
    } else if (v.is_object() && depth < 3) {
      visit(p, v, doc, depth + 1, out);
    }
  }
}

}  // namespace

Result<ReportSection> render_generic(const ReportInput& in) {
  const json& d = in.doc;
  ReportSection s;
  std::string kind = d["format"].get<std::string>().substr(11);  // after "streamdisk-"
  std::string label = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>()
                      : d.contains("profile") && d["profile"].is_string() ? d["profile"].get<std::string>()
                                                                          : in.name;
  s.title = fmt::format("{} {}", kind, label);
  s.title[0] = static_cast<char>(std::toupper(s.title[0]));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : d.items()) {
    if (k == "format") continue;
    if (is_scalar(v)) rows.push_back({k, scalar_text(v)});
    else if (v.is_object())
      for (const auto& [k2, v2] : v.items())
        if (is_scalar(v2)) rows.push_back({k + "." + k2, scalar_text(v2)});
  }
  s.blocks.push_back({para(fmt::format("From {}.", in.name)) + html_table({"field", "value"}, rows), {}});
  visit("", d, d, 0, s.blocks);
  return s;
}

}  // namespace sd
