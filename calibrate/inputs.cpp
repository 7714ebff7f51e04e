#include "calibrate/inputs.h"

#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/input.h"
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

bool to_double(const std::string& s, double& v) { return parse_decimal(s, v); }

// Opens a calibration input for reading line by line; says what the path is
// if it is not a readable file.
Status open_input(std::ifstream& in, const std::string& path, const char* what) {
  if (std::string why = unreadable_reason(path); !why.empty())
    return Status::error(fmt::format("cannot read {} '{}': it {}", what, path, why));
  in.open(path);
  if (!in) return Status::error(fmt::format("cannot open {} '{}': check the path", what, path));
  return {};
}

// Series::direct: the column where the trace has one, else the header.
std::optional<bool> writes_direct(const Trace& t) {
  if (t.version >= 2) {
    size_t writes = 0, direct = 0;
    for (const auto& r : t.records)
      if (r.op == OpKind::Write) ++writes, direct += r.direct;
    if (writes == 0 || (direct > 0 && direct < writes)) return std::nullopt;
    return direct == writes;
  }
  auto d = t.meta.find("direct");
  if (d == t.meta.end() || (d->second != "0" && d->second != "1")) return std::nullopt;
  return d->second == "1";
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
  for (const char* key : {"capacity_bytes", "prefill_bytes"})
    if (auto v = meta_number(t.meta, key, path, 1e17); !v) return v.status();
  for (const auto& r : t.records) {
    if (r.op != OpKind::Write && r.op != OpKind::Read) continue;
    s.ops.push_back({r.start, r.end, r.bytes, r.op == OpKind::Read, r.thread.value_or(0), r.error});
  }
  // Buffered writes feed the page-cache fit, except in sweeps whose point is
  // elsewhere (measure's block-size, threads and fill sweeps run buffered by
  // default; calibrate notes that their times include the page cache).
  s.direct = writes_direct(t);
  auto sweep = s.meta.find("sweep");
  bool other_sweep = sweep != s.meta.end() && sweep->second != "sustained" && sweep->second != "buffered";
  s.buffered = !other_sweep && (s.direct == false || (s.meta.count("buffered") && s.meta.at("buffered") == "1"));
  if (s.ops.empty())
    return Result<Series>::error(fmt::format("trace '{}' has no read or write operations to fit", path));
  return s;
}

Result<Series> parse_fio_lat_log(std::istream& in, const std::string& name) {
  Series s;
  s.name = name;
  s.fio = true;
  std::string line;
  size_t cols = 0;
  double prev_end = 0;
  LineReader lines(in, name);
  while (lines.next(line)) {
    if (line.empty()) continue;
    auto f = split(line, ',');
    auto where = fmt::format("{}:{}", name, lines.lineno());
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
        t_ms < 0 || value < 0 || t_ms > 1e14 || value > 1e16 || bs < 0 || bs > 1e12 || bs != std::floor(bs))
      return Result<Series>::error(fmt::format(
          "{}: expected numbers 'time_ms, value_ns, ddir, bs, ...' (times and latencies of 0 or more, a whole block "
          "size), found '{}'", where, excerpt(line, 60)));
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
  if (!lines.ok()) return lines.status();
  if (s.ops.empty())
    return Result<Series>::error(fmt::format("fio log '{}' has no read or write rows", name));
  return s;
}

Result<Series> load_fio_lat_log(const std::string& path) {
  std::ifstream in;
  if (Status st = open_input(in, path, "fio log"); !st.ok()) return st;
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
  if (!to_double(s.substr(0, i), v)) return Result<double>::error(fmt::format("'{}' is not a fio size", excerpt(text, 40)));
  std::string unit = s.substr(i);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();
  double mult = unit.empty() ? 1 : unit == "k" ? 1024.0 : unit == "m" ? 1048576.0 : unit == "g" ? 1073741824.0 : -1;
  if (mult < 0) return Result<double>::error(fmt::format("'{}' is not a fio size (expected e.g. 4k, 1m)", excerpt(text, 40)));
  if (v * mult <= 0 || v * mult > 1e12)
    return Result<double>::error(fmt::format("fio size '{}' is outside 1 byte..1 TB", excerpt(text, 40)));
  return v * mult;
}

namespace {

using Points = Result<std::vector<RatePoint>>;
using nlohmann::json;

// A field of fio's JSON with the type fio writes, or a message naming it.
Result<double> json_number(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key) || obj[key].is_null()) return 0.0;
  const json& v = obj[key];
  if (!v.is_number())
    return Result<double>::error(
        fmt::format("{}: \"{}\" must be a number, found {} (is this fio's JSON output?)", where, key, v.type_name()));
  double d = v.get<double>();
  if (!std::isfinite(d) || d < 0)
    return Result<double>::error(fmt::format("{}: \"{}\" = {} must be 0 or more", where, key, d));
  return d;
}

Result<std::string> json_option(const json& opts, const json& global, const char* key, const std::string& where) {
  for (const json* o : {&opts, &global}) {
    if (!o->is_object() || !o->contains(key)) continue;
    const json& v = (*o)[key];
    if (!v.is_string())
      return Result<std::string>::error(fmt::format(
          "{}: option \"{}\" must be a string as fio writes it, found {}", where, key, v.type_name()));
    return v.get<std::string>();
  }
  return std::string();
}

}  // namespace

Result<std::vector<RatePoint>> parse_fio_json(const std::string& text, const std::string& name) try {
  if (Status st = check_text(text, name, kJsonLimits); !st.ok()) return st;
  // fio prints notes before the JSON when a job warns; skip to the object.
  auto brace = text.find('{');
  json j = brace == std::string::npos ? json() : json::parse(text.begin() + static_cast<long>(brace), text.end(),
                                                             nullptr, /*allow_exceptions=*/false);
  if (brace == std::string::npos || j.is_discarded() || !j.is_object())
    return Points::error(fmt::format("'{}' is not fio JSON output: run fio with --output-format=json", name));
  if (!j.contains("jobs") || !j["jobs"].is_array())
    return Points::error(fmt::format("'{}' has no \"jobs\" array: is it fio JSON?", name));
  json global = j.contains("global options") ? j["global options"] : json::object();
  if (!global.is_object())
    return Points::error(fmt::format("'{}': \"global options\" must be an object, found {}", name, global.type_name()));
  std::vector<RatePoint> out;
  size_t index = 0;
  for (const auto& job : j["jobs"]) {
    std::string where = fmt::format("{} jobs[{}]", name, index++);
    if (!job.is_object())
      return Points::error(fmt::format("{}: each job must be an object, found {}", where, job.type_name()));
    json opts = job.contains("job options") ? job["job options"] : json::object();
    if (!opts.is_object())
      return Points::error(fmt::format("{}: \"job options\" must be an object, found {}", where, opts.type_name()));
    std::string jobname = "?";
    if (job.contains("jobname")) {
      if (!job["jobname"].is_string())
        return Points::error(fmt::format("{}: \"jobname\" must be a string, found {}", where, job["jobname"].type_name()));
      jobname = excerpt(job["jobname"].get<std::string>(), 40);
    }
    where = fmt::format("{} job '{}'", name, jobname);
    auto bs_opt = json_option(opts, global, "bs", where);
    if (!bs_opt) return bs_opt.status();
    std::string bs_text = *bs_opt;
    if (bs_text.empty()) bs_text = "4k";  // fio's default block size
    if (bs_text.find_first_of(",-:") != std::string::npos)
      return Points::error(fmt::format("{}: bs={} mixes block sizes; give each block size its own job", where,
                                       excerpt(bs_text, 40)));
    auto bs = parse_fio_size(bs_text);
    if (!bs) return Points::error(fmt::format("{}: {}", where, bs.message()));
    int threads = 1;
    auto nj = json_option(opts, global, "numjobs", where);
    if (!nj) return nj.status();
    if (!nj->empty()) {
      uint64_t n = 0;
      if (!parse_whole(*nj, n, 100000) || n < 1)
        return Points::error(fmt::format("{}: numjobs '{}' is not a whole number from 1 to 100000", where,
                                         excerpt(*nj, 30)));
      threads = static_cast<int>(n);
    }
    for (const char* dir : {"read", "write"}) {
      if (!job.contains(dir)) continue;
      const auto& d = job[dir];
      std::string dwhere = fmt::format("{} {}", where, dir);
      if (!d.is_object()) return Points::error(fmt::format("{}: must be an object, found {}", dwhere, d.type_name()));
      auto io = json_number(d, "io_bytes", dwhere);
      if (!io) return io.status();
      if (*io <= 0) continue;
      auto bw = json_number(d, "bw_bytes", dwhere);
      if (!bw) return bw.status();
      RatePoint p;
      p.block_bytes = *bs;
      p.threads = threads;
      p.mbps = *bw / 1e6;
      p.read = std::string(dir) == "read";
      if (d.contains("lat_ns")) {
        if (!d["lat_ns"].is_object())
          return Points::error(fmt::format("{}: \"lat_ns\" must be an object, found {}", dwhere, d["lat_ns"].type_name()));
        auto mean = json_number(d["lat_ns"], "mean", dwhere + " lat_ns");
        if (!mean) return mean.status();
        p.seconds_per_op = *mean * 1e-9;
      }
      p.source = where;
      if (p.mbps > 0) out.push_back(p);
    }
  }
  if (out.empty()) return Points::error(fmt::format("'{}': no job did any reads or writes", name));
  return out;
} catch (const nlohmann::json::exception&) {
  // A field of the wrong type ("bs": 4096, "bw_bytes": null, "jobs": [5]).
  return Result<std::vector<RatePoint>>::error(fmt::format(
      "'{}': a field has the wrong type for fio JSON (e.g. a number where fio writes a string): "
      "give fio's --output-format=json output unchanged", name));
}

Result<std::vector<RatePoint>> load_fio_json(const std::string& path) {
  auto text = read_input(path, "fio JSON", kJsonLimits);
  if (!text) return text.status();
  return parse_fio_json(*text, path);
}

Result<std::vector<RatePoint>> parse_rate_table(std::istream& in, const std::string& name) {
  std::vector<RatePoint> out;
  std::string line;
  LineReader lines(in, name);
  bool header = false, has_op = false;
  while (lines.next(line)) {
    auto where = fmt::format("{}:{}", name, lines.lineno());
    if (line.rfind("# streamdisk-table ", 0) == 0 && line != "# streamdisk-table 1")
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: table format '{}' is not version 1 (this streamdisk reads version 1)", where,
                      excerpt(line.substr(2), 40)));
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      if (line != "block_bytes,threads,mbps" && line != "block_bytes,threads,mbps,op")
        return Result<std::vector<RatePoint>>::error(fmt::format(
            "{}: expected the header 'block_bytes,threads,mbps' (optionally ',op'), got '{}'", where, excerpt(line)));
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
    if (!bs || *bs < 1 || *bs > 1e12)
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: block size '{}' is not a size from 1 byte to 1 TB", where, excerpt(f[0], 30)));
    if (!to_double(f[1], threads) || threads < 1 || threads > 100000 || threads != std::floor(threads))
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: threads '{}' is not a whole number from 1 to 100000", where, excerpt(f[1], 30)));
    if (!to_double(f[2], mbps) || mbps <= 0 || mbps > 1e7)
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: MB/s '{}' is not a number above 0 (and at most 1e7)", where, excerpt(f[2], 30)));
    if (has_op && f[3] != "read" && f[3] != "write")
      return Result<std::vector<RatePoint>>::error(
          fmt::format("{}: op '{}' must be read or write", where, excerpt(f[3], 30)));
    p.block_bytes = *bs;
    p.threads = static_cast<int>(threads);
    p.mbps = mbps;
    p.read = !has_op || f[3] == "read";
    p.source = where;
    out.push_back(p);
  }
  if (!lines.ok()) return lines.status();
  if (!header)
    return Result<std::vector<RatePoint>>::error(
        fmt::format("{}: no 'block_bytes,threads,mbps' header: is this a rate table?", name));
  if (out.empty()) return Result<std::vector<RatePoint>>::error(fmt::format("{}: the table has no rows", name));
  return out;
}

Result<std::vector<RatePoint>> load_rate_table(const std::string& path) {
  std::ifstream in;
  if (Status st = open_input(in, path, "table"); !st.ok()) return st;
  return parse_rate_table(in, path);
}

Result<DeviceActivity> parse_device_activity(std::istream& in, const std::string& name) {
  using R = Result<DeviceActivity>;
  DeviceActivity a;
  std::string line;
  LineReader lines(in, name);
  bool magic = false, header = false;
  while (lines.next(line)) {
    auto where = fmt::format("{}:{}", name, lines.lineno());
    if (!magic) {
      if (line != "# streamdisk-device-activity 1")
        return R::error(fmt::format("{}: expected '# streamdisk-device-activity 1' (the device-activity.log "
                                    "characterize --keep-traces writes), got '{}'",
                                    where, excerpt(line)));
      magic = true;
      continue;
    }
    if (line.rfind("# sample_period_s=", 0) == 0) {
      if (!to_double(line.substr(18), a.period_s) || !(a.period_s > 0) || a.period_s > 10)
        return R::error(fmt::format("{}: sample_period_s '{}' is not a number of seconds above 0 (at most 10)",
                                    where, excerpt(line.substr(18), 30)));
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      if (line != "t_s,written_bytes,in_flight")
        return R::error(fmt::format("{}: expected the header 't_s,written_bytes,in_flight', got '{}'", where,
                                    excerpt(line)));
      header = true;
      continue;
    }
    auto f = split(line, ',');
    BlockSample x;
    if (f.size() != 3 || !to_double(f[0], x.t) || !to_double(f[1], x.written) || !to_double(f[2], x.in_flight) ||
        !(x.t >= 0) || x.t > 1e9 || !(x.written >= 0) || x.written > static_cast<double>(kMaxStatedBytes) ||
        !(x.in_flight >= 0) || x.in_flight > 1e6)
      return R::error(fmt::format("{}: expected t_s,written_bytes,in_flight (three numbers, none negative), got '{}'",
                                  where, excerpt(line)));
    if (!a.samples.empty() && (x.t < a.samples.back().t || x.written < a.samples.back().written))
      return R::error(fmt::format("{}: time or bytes written went back: the rows must be in the order they were read",
                                  where));
    a.samples.push_back(x);
  }
  if (!lines.ok()) return lines.status();
  if (!magic) return R::error(fmt::format("{}: empty: is this a device-activity.log?", name));
  if (!(a.period_s > 0)) return R::error(fmt::format("{}: no '# sample_period_s=' line", name));
  if (a.samples.empty()) return R::error(fmt::format("{}: no rows", name));
  return a;
}

Result<DeviceActivity> load_device_activity(const std::string& path) {
  std::ifstream in;
  if (Status st = open_input(in, path, "device activity"); !st.ok()) return st;
  return parse_device_activity(in, path);
}

}  // namespace sd::cal
