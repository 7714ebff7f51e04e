#include "models/trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/input.h"
#include "models/units.h"

namespace sd {
namespace {

const char* kHeader = "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct";
const char* kHeaderV1 = "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error";

const std::pair<int, const char*> kErrnos[] = {
    {ENOSPC, "ENOSPC"}, {EFBIG, "EFBIG"}, {EBADF, "EBADF"}, {EINVAL, "EINVAL"}, {EIO, "EIO"},
    {ENOENT, "ENOENT"}, {EEXIST, "EEXIST"}, {EACCES, "EACCES"}, {EROFS, "EROFS"}, {EINTR, "EINTR"},
};

std::string quote_if_needed(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Splits one CSV line (RFC 4180 quoting, no embedded newlines).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// Limits of what a trace row may say (issue 11 §6): times within a century,
// sizes and offsets within the largest device the model takes (1e17 bytes).
constexpr double kMaxSeconds = 3.2e9;
constexpr uint64_t kMaxBytes = kMaxStatedBytes;
constexpr uint64_t kMaxSmall = 1'000'000;  // thread ids, queue depths

bool parse_num(const std::string& s, int& out) {
  uint64_t v = 0;
  if (!parse_whole(s, v, 0x7fffffff)) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

std::string errno_name(int e) {
  if (e == 0) return "0";
  for (auto& [v, n] : kErrnos)
    if (v == e) return n;
  return std::to_string(e);
}

std::optional<int> errno_from_name(const std::string& s) {
  if (s.empty() || s == "0") return 0;
  for (auto& [v, n] : kErrnos)
    if (s == n) return v;
  int v = 0;
  if (parse_num(s, v) && v < 4096) return v;
  return std::nullopt;
}

Result<std::optional<double>> meta_number(const std::map<std::string, std::string>& meta, const std::string& key,
                                          const std::string& name, double max) {
  auto it = meta.find(key);
  if (it == meta.end()) return std::optional<double>();
  double v = 0;
  if (!parse_decimal(it->second, v) || v < 0 || v > max)
    return Result<std::optional<double>>::error(
        fmt::format("{}: header line '# {}={}' must be a number from 0 to {:g}", name, key, excerpt(it->second, 40),
                    max));
  return std::optional<double>(v);
}

TraceModel TraceModel::of(const std::string& profile, const std::vector<std::string>& sets, const ModelOptions& mo) {
  TraceModel m;
  m.profile = profile;
  m.sets = sets;
  m.seed = mo.seed;
  if (mo.capacity_bytes >= 0) m.capacity_bytes = mo.capacity_bytes;
  if (mo.prefill_bytes > 0) m.prefill_bytes = mo.prefill_bytes;
  return m;
}

void TraceModel::write(std::map<std::string, std::string>& meta) const {
  if (!profile.empty()) meta["profile"] = profile;
  for (size_t i = 0; i < sets.size(); ++i) meta[fmt::format("set{}", i + 1)] = sets[i];
  if (seed) meta["seed"] = fmt::format("{}", *seed);
  if (capacity_bytes) meta["capacity_bytes"] = fmt::format("{:.0f}", *capacity_bytes);
  if (prefill_bytes) meta["prefill_bytes"] = fmt::format("{:.0f}", *prefill_bytes);
  if (overhead_credit_s) meta["overhead_credit_s"] = fmt::format("{:g}", *overhead_credit_s);
}

Result<TraceModel> TraceModel::read(const std::map<std::string, std::string>& meta, const std::string& name) {
  TraceModel m;
  if (auto it = meta.find("profile"); it != meta.end()) m.profile = it->second;
  for (int i = 1;; ++i) {
    auto it = meta.find(fmt::format("set{}", i));
    if (it == meta.end()) break;
    m.sets.push_back(it->second);
  }
  auto seed = meta_number(meta, "seed", name, 1.8e19);
  if (!seed) return seed.status();
  if (*seed) m.seed = static_cast<uint64_t>(**seed);
  for (auto [key, field] : {std::pair{"capacity_bytes", &m.capacity_bytes}, std::pair{"prefill_bytes", &m.prefill_bytes}}) {
    auto v = meta_number(meta, key, name, 1e17);
    if (!v) return v.status();
    *field = *v;
  }
  auto credit = meta_number(meta, "overhead_credit_s", name, 1);
  if (!credit) return credit.status();
  m.overhead_credit_s = *credit;
  return m;
}

ModelOptions TraceModel::model_options(ModelOptions base) const {
  if (seed) base.seed = *seed;
  if (capacity_bytes) base.capacity_bytes = *capacity_bytes;
  if (prefill_bytes) base.prefill_bytes = *prefill_bytes;
  return base;
}

std::optional<OpKind> op_from_name(const std::string& s) {
  for (OpKind k : {OpKind::Create, OpKind::Write, OpKind::Read, OpKind::Fsync, OpKind::Truncate, OpKind::Close,
                   OpKind::Remove})
    if (op_name(k) == s) return k;
  return std::nullopt;
}

std::string format_trace_row(const TraceRecord& r) {
  std::string row = fmt::format("{:.9f},{:.9f},{},{},{},{},", r.start, r.end, op_name(r.op), quote_if_needed(r.file),
                                r.offset, r.bytes);
  if (r.thread) row += std::to_string(*r.thread);
  row += ',';
  if (r.queue_depth) row += std::to_string(*r.queue_depth);
  row += ',';
  if (r.modelled_end) row += fmt::format("{:.9f}", *r.modelled_end);
  row += ',';
  row += errno_name(r.error);
  row += r.direct ? ",1" : ",0";
  return row;
}

Status TraceWriter::open(const std::string& path, const std::map<std::string, std::string>& meta,
                         OutputRules rules) {
  if (Status st = out_.open(path, rules); !st.ok()) return st;
  std::FILE* f = out_.stream();
  fmt::print(f, "# streamdisk-trace {}\n", kTraceFormatVersion);
  for (const auto& [k, v] : meta) fmt::print(f, "# {}={}\n", k, v);
  fmt::print(f, "{}\n", kHeader);
  return {};
}

void TraceWriter::write(const TraceRecord& r) {
  if (!out_.is_open()) return;
  std::string row = format_trace_row(r);
  row += '\n';
  std::fwrite(row.data(), 1, row.size(), out_.stream());
}

Status TraceWriter::close() { return out_.commit(); }

void TraceWriter::abandon() { out_.abandon(); }

Result<Trace> read_trace(std::istream& in, const std::string& name) {
  Trace t;
  std::string line;
  LineReader lines(in, name);
  bool header_seen = false, magic_seen = false;
  int version = kTraceFormatVersion;
  auto err = [&](const std::string& what) {
    return Result<Trace>::error(fmt::format("{}:{}: {}", name, lines.lineno(), what));
  };
  auto seconds = [](const std::string& f, double& v) { return parse_decimal(f, v) && v >= 0 && v <= kMaxSeconds; };
  while (lines.next(line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string body = line.substr(1);
      while (!body.empty() && body[0] == ' ') body.erase(0, 1);
      if (body.starts_with("streamdisk-trace ")) {
        if (!parse_num(body.substr(17), version) || version < 1 || version > kTraceFormatVersion)
          return err(fmt::format("trace format version '{}' is not supported (this streamdisk reads versions 1 to {})",
                                 excerpt(body.substr(17)), kTraceFormatVersion));
        magic_seen = true;
      } else if (auto eq = body.find('='); eq != std::string::npos) {
        t.meta[body.substr(0, eq)] = body.substr(eq + 1);
      }
      continue;
    }
    if (!header_seen) {
      if (!magic_seen)
        return err(fmt::format("not a streamdisk trace: the first line must be '# streamdisk-trace {}' (for fio or "
                               "strace logs, see `streamdisk replay --help`)",
                               kTraceFormatVersion));
      const char* header = version == 1 ? kHeaderV1 : kHeader;
      if (line != header)
        return err(fmt::format("unexpected column header for format version {}: expected '{}'", version, header));
      header_seen = true;
      continue;
    }
    auto f = split_csv(line);
    const size_t fields = version == 1 ? 10 : 11;
    if (f.size() != fields) return err(fmt::format("expected {} fields, found {}", fields, f.size()));
    TraceRecord r;
    if (!seconds(f[0], r.start) || !seconds(f[1], r.end))
      return err(fmt::format("start_s and end_s must be seconds from 0 to {:g}, found '{}' and '{}'", kMaxSeconds,
                             excerpt(f[0], 30), excerpt(f[1], 30)));
    if (r.end < r.start) return err("end_s is before start_s");
    auto op = op_from_name(f[2]);
    if (!op) return err(fmt::format("unknown op '{}'", excerpt(f[2], 30)));
    r.op = *op;
    r.file = f[3];
    if (r.file.size() > 4096) return err("the file name is longer than 4096 characters");
    if (!f[4].empty() && !parse_whole(f[4], r.offset, kMaxBytes))
      return err(fmt::format("offset '{}' must be a whole number of bytes from 0 to 1e17", excerpt(f[4], 30)));
    if (!f[5].empty() && !parse_whole(f[5], r.bytes, kMaxBytes))
      return err(fmt::format("bytes '{}' must be a whole number from 0 to 1e17", excerpt(f[5], 30)));
    if (r.offset + r.bytes > kMaxBytes) return err("offset + bytes is past 1e17 bytes (100 PB)");
    uint64_t small = 0;
    if (!f[6].empty()) {
      if (!parse_whole(f[6], small, kMaxSmall))
        return err(fmt::format("thread '{}' must be a whole number from 0 to 1000000", excerpt(f[6], 30)));
      r.thread = static_cast<int>(small);
    }
    if (!f[7].empty()) {
      if (!parse_whole(f[7], small, kMaxSmall))
        return err(fmt::format("queue_depth '{}' must be a whole number from 0 to 1000000", excerpt(f[7], 30)));
      r.queue_depth = static_cast<int>(small);
    }
    if (!f[8].empty()) {
      double v;
      if (!seconds(f[8], v))
        return err(fmt::format("modelled_end_s '{}' must be seconds from 0 to {:g}", excerpt(f[8], 30), kMaxSeconds));
      r.modelled_end = v;
    }
    auto e = errno_from_name(f[9]);
    if (!e) return err(fmt::format("unknown error '{}' (an errno name such as ENOSPC, or 0)", excerpt(f[9], 30)));
    r.error = *e;
    if (fields > 10) {
      if (f[10] != "0" && f[10] != "1") return err(fmt::format("direct '{}' must be 0 or 1", excerpt(f[10], 30)));
      r.direct = f[10] == "1";
    }
    t.records.push_back(std::move(r));
  }
  if (!lines.ok()) return lines.status();
  t.version = version;
  if (!header_seen) {
    return Result<Trace>::error(fmt::format("{}:{}: {}", name, std::max<size_t>(lines.lineno(), 1),
                                            magic_seen ? "no column header line"
                                                       : "empty file, or not a streamdisk trace"));
  }
  return t;
}

Result<Trace> read_trace_file(const std::string& path) {
  if (std::string why = unreadable_reason(path); !why.empty())
    return Result<Trace>::error(fmt::format("cannot read trace '{}': it {}", path, why));
  std::ifstream in(path);
  if (!in) return Result<Trace>::error(fmt::format("cannot open trace '{}': {}", path, std::strerror(errno)));
  return read_trace(in, path);
}

}  // namespace sd
