#include "calibrate/inputs.h"

#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/trace.h"
#include "models/units.h"

namespace sd::cal {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) out.push_back(cur), cur.clear();
    else if (c != ' ' && c != '\t' && c != '\r') cur += c;
  }
  out.push_back(cur);
  return out;
}

bool to_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return errno == 0 && end && *end == '\0' && std::isfinite(v);
}

Result<std::string> slurp(const std::string& path, const char* what, const char* fix) {
  std::ifstream in(path);
  if (!in) return Result<std::string>::error(fmt::format("cannot open {} '{}': {}", what, path, fix));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<Series> load_native_trace(const std::string& path) {
  auto t = read_trace_file(path);
  if (!t) return t.status();
  return series_from_trace(*t, path);
}

Result<Series> series_from_trace(const Trace& t, const std::string& path) {
  Series s;
  s.name = path;
  s.meta = t.meta;
  for (const auto& r : t.records) {
    if (r.op != OpKind::Write && r.op != OpKind::Read) continue;
    s.ops.push_back({r.start, r.end, r.bytes, r.op == OpKind::Read, r.thread.value_or(0), r.error});
  }
  // Buffered writes feed the page-cache fit, except in sweeps whose point is
  // elsewhere (measure's block-size, threads and fill sweeps run buffered by
  // default; calibrate notes that their times include the page cache).
  auto direct = s.meta.find("direct");
  auto sweep = s.meta.find("sweep");
  bool other_sweep = sweep != s.meta.end() && sweep->second != "sustained" && sweep->second != "buffered";
  s.buffered = !other_sweep && ((direct != s.meta.end() && direct->second == "0") ||
                                (s.meta.count("buffered") && s.meta.at("buffered") == "1"));
  if (s.ops.empty())
    return Result<Series>::error(fmt::format("trace '{}' has no read or write operations to fit", path));
  return s;
}

Result<Series> parse_fio_lat_log(std::istream& in, const std::string& name) {
  Series s;
  s.name = name;
  s.fio = true;
  std::string line;
  size_t lineno = 0, cols = 0;
  double prev_end = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line == "\r") continue;
    auto f = split(line, ',');
    auto where = fmt::format("{}:{}", name, lineno);
    if (cols == 0) {
      cols = f.size();
      if (cols < 5 || cols > 7)
        return Result<Series>::error(fmt::format(
            "{}: {} columns; a fio per-I/O latency log has 5-7 (time, latency, ddir, bs, [offset], prio): "
            "is this a fio log?", where, cols));
    }
    if (f.size() != cols)
      return Result<Series>::error(fmt::format("{}: {} columns where earlier rows had {}", where, f.size(), cols));
    double t_ms, value, ddir, bs;
    if (!to_double(f[0], t_ms) || !to_double(f[1], value) || !to_double(f[2], ddir) || !to_double(f[3], bs) ||
        t_ms < 0 || value < 0)
      return Result<Series>::error(fmt::format("{}: expected numbers 'time_ms, value_ns, ddir, bs, ...'", where));
    if (bs == 0)
      return Result<Series>::error(fmt::format(
          "{}: block size 0 means an averaged log (log_avg_msec > 0); rerun fio without log_avg_msec to get one "
          "row per I/O", where));
    if (ddir != 0 && ddir != 1) continue;  // trims and syncs say nothing about rates
    double lat = value * 1e-9;
    // fio stamps completions in whole ms; latencies are in ns. An I/O that
    // could have started when the previous one ended (the stamp allows 1 ms)
    // is chained back to back; a later start is an idle gap.
    double stamp = t_ms * 1e-3;
    double start = stamp - lat - prev_end < 1e-3 ? prev_end : stamp - lat;
    IoOp op{start, start + lat, static_cast<uint64_t>(bs), ddir == 0, 0, 0};
    prev_end = op.end;
    s.ops.push_back(op);
  }
  if (s.ops.empty())
    return Result<Series>::error(fmt::format("fio log '{}' has no read or write rows", name));
  return s;
}

Result<Series> load_fio_lat_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Result<Series>::error(fmt::format("cannot open fio log '{}': check the path", path));
  if (path.find("_slat.") != std::string::npos)
    return Result<Series>::error(fmt::format(
        "'{}' is a submission-latency log (slat): give the _lat or _clat log of the same run", path));
  return parse_fio_lat_log(in, path);
}

Result<double> parse_fio_size(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  double v;
  if (!to_double(s.substr(0, i), v)) return Result<double>::error(fmt::format("'{}' is not a fio size", text));
  std::string unit = s.substr(i);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  double mult = unit.empty() ? 1 : unit == "k" ? 1024.0 : unit == "m" ? 1048576.0 : unit == "g" ? 1073741824.0 : -1;
  if (mult < 0) return Result<double>::error(fmt::format("'{}' is not a fio size (expected e.g. 4k, 1m)", text));
  return v * mult;
}

Result<std::vector<RatePoint>> parse_fio_json(const std::string& text, const std::string& name) try {
  nlohmann::json j;
  // fio prints notes before the JSON when a job warns; skip to the object.
  auto brace = text.find('{');
  if (brace == std::string::npos || !nlohmann::json::accept(text.substr(brace)))
    return Result<std::vector<RatePoint>>::error(
        fmt::format("'{}' is not fio JSON output: run fio with --output-format=json", name));
  j = nlohmann::json::parse(text.substr(brace));
  if (!j.contains("jobs") || !j["jobs"].is_array())
    return Result<std::vector<RatePoint>>::error(fmt::format("'{}' has no \"jobs\" array: is it fio JSON?", name));
  nlohmann::json global = j.value("global options", nlohmann::json::object());
  std::vector<RatePoint> out;
  for (const auto& job : j["jobs"]) {
    nlohmann::json opts = job.value("job options", nlohmann::json::object());
    auto opt = [&](const char* k) -> std::string {
      if (opts.contains(k)) return opts[k].get<std::string>();
      if (global.contains(k)) return global[k].get<std::string>();
      return {};
    };
    std::string jobname = job.value("jobname", "?");
    std::string bs_text = opt("bs");
    if (bs_text.empty()) bs_text = "4k";  // fio's default block size
    if (bs_text.find_first_of(",-:") != std::string::npos)
      return Result<std::vector<RatePoint>>::error(fmt::format(
          "{} job '{}': bs={} mixes block sizes; give each block size its own job", name, jobname, bs_text));
    auto bs = parse_fio_size(bs_text);
    if (!bs) return Result<std::vector<RatePoint>>::error(fmt::format("{} job '{}': {}", name, jobname, bs.message()));
    int threads = 1;
    if (auto nj = opt("numjobs"); !nj.empty()) threads = std::max(1, std::atoi(nj.c_str()));
    for (const char* dir : {"read", "write"}) {
      if (!job.contains(dir)) continue;
      const auto& d = job[dir];
      if (d.value("io_bytes", 0.0) <= 0) continue;
      RatePoint p;
      p.block_bytes = *bs;
      p.threads = threads;
      p.mbps = d.value("bw_bytes", 0.0) / 1e6;
      p.read = std::string(dir) == "read";
      if (d.contains("lat_ns")) p.seconds_per_op = d["lat_ns"].value("mean", 0.0) * 1e-9;
      p.source = fmt::format("{} job '{}'", name, jobname);
      if (p.mbps > 0) out.push_back(p);
    }
  }
  if (out.empty())
    return Result<std::vector<RatePoint>>::error(fmt::format("'{}': no job did any reads or writes", name));
  return out;
} catch (const nlohmann::json::exception&) {
  // A field of the wrong type ("bs": 4096, "bw_bytes": null, "jobs": [5]).
  return Result<std::vector<RatePoint>>::error(fmt::format(
      "'{}': a field has the wrong type for fio JSON (e.g. a number where fio writes a string): "
      "give fio's --output-format=json output unchanged", name));
}

Result<std::vector<RatePoint>> load_fio_json(const std::string& path) {
  auto text = slurp(path, "fio JSON", "check the path");
  if (!text) return text.status();
  return parse_fio_json(*text, path);
}

Result<std::vector<RatePoint>> parse_rate_table(std::istream& in, const std::string& name) {
  std::vector<RatePoint> out;
  std::string line;
  size_t lineno = 0;
  bool header = false, has_op = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto where = fmt::format("{}:{}", name, lineno);
    if (line.rfind("# streamdisk-table ", 0) == 0 && line != "# streamdisk-table 1")
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: table format '{}' is not version 1 (this streamdisk reads version 1)", where, line.substr(2)));
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      if (line != "block_bytes,threads,mbps" && line != "block_bytes,threads,mbps,op")
        return Result<std::vector<RatePoint>>::error(fmt::format(
            "{}: expected the header 'block_bytes,threads,mbps' (optionally ',op'), got '{}'", where, line));
      header = true;
      has_op = line.ends_with(",op");
      continue;
    }
    auto f = split(line, ',');
    if (f.size() != (has_op ? 4u : 3u))
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: {} fields, the header has {}", where, f.size(), has_op ? 4 : 3));
    RatePoint p;
    auto bs = parse_size(f[0]);
    double threads, mbps;
    if (!bs || *bs <= 0)
      return Result<std::vector<RatePoint>>::error(fmt::format("{}: block size '{}' is not a positive size", where, f[0]));
    if (!to_double(f[1], threads) || threads < 1 || threads != std::floor(threads))
      return Result<std::vector<RatePoint>>::error(fmt::format("{}: threads '{}' is not a whole number >= 1", where, f[1]));
    if (!to_double(f[2], mbps) || mbps <= 0)
      return Result<std::vector<RatePoint>>::error(fmt::format("{}: MB/s '{}' is not a positive number", where, f[2]));
    if (has_op && f[3] != "read" && f[3] != "write")
      return Result<std::vector<RatePoint>>::error(fmt::format("{}: op '{}' must be read or write", where, f[3]));
    p.block_bytes = *bs;
    p.threads = static_cast<int>(threads);
    p.mbps = mbps;
    p.read = !has_op || f[3] == "read";
    p.source = where;
    out.push_back(p);
  }
  if (!header)
    return Result<std::vector<RatePoint>>::error(
        fmt::format("{}: no 'block_bytes,threads,mbps' header: is this a rate table?", name));
  if (out.empty()) return Result<std::vector<RatePoint>>::error(fmt::format("{}: the table has no rows", name));
  return out;
}

Result<std::vector<RatePoint>> load_rate_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Result<std::vector<RatePoint>>::error(fmt::format("cannot open table '{}': check the path", path));
  return parse_rate_table(in, path);
}

}  // namespace sd::cal
