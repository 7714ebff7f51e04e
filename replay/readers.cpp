#include "replay/readers.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/trace.h"

namespace sd {

bool OpList::has_durations() const {
  return !ops.empty() && std::all_of(ops.begin(), ops.end(), [](const ReplayOp& o) { return o.duration >= 0; });
}

double OpList::recorded_end() const {
  double end = 0;
  for (const auto& o : ops) end = std::max(end, o.start + std::max(0.0, o.duration));
  return end;
}

double OpList::bytes_written() const {
  double b = 0;
  for (const auto& o : ops)
    if (o.kind == OpKind::Write) b += static_cast<double>(o.bytes);
  return b;
}

Result<TraceFormat> trace_format_from_name(const std::string& s) {
  if (s == "auto") return TraceFormat::Auto;
  if (s == "native") return TraceFormat::Native;
  if (s == "fio" || s == "fio-iolog") return TraceFormat::FioIolog;
  if (s == "strace") return TraceFormat::Strace;
  return Result<TraceFormat>::error(
      fmt::format("unknown trace format '{}': use auto, native, fio or strace", s));
}

namespace {

// An strace line starts with an optional pid and a -tt time: "123  10:00:00.123456 ".
bool looks_like_strace(const std::string& line) {
  std::istringstream is(line);
  std::string a, b;
  is >> a >> b;
  auto is_time = [](const std::string& s) {
    return s.size() >= 9 && s[2] == ':' && s[5] == ':' && s[8] == '.' &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; });
  };
  if (a == "[pid") return true;
  if (is_time(a)) return true;
  return std::all_of(a.begin(), a.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         !a.empty() && is_time(b);
}

}  // namespace

Result<TraceFormat> detect_trace_format(std::istream& in, const std::string& name) {
  std::string line;
  int looked = 0;
  while (looked < 20 && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++looked;
    if (line.starts_with("# streamdisk-trace") || line.starts_with("#streamdisk-trace")) return TraceFormat::Native;
    if (line.starts_with("fio version ")) return TraceFormat::FioIolog;
    if (looks_like_strace(line)) return TraceFormat::Strace;
  }
  return Result<TraceFormat>::error(fmt::format(
      "{}: cannot tell the trace format: expected a streamdisk trace ('# streamdisk-trace 1'), a fio iolog "
      "('fio version 2 iolog') or `strace -f -tt -T` output (name it with --format native|fio|strace)",
      name));
}

Result<OpList> read_native_ops(std::istream& in, const std::string& name) {
  auto t = read_trace(in, name);
  if (!t) return t.status();
  OpList out;
  out.name = name;
  out.format = "native";
  out.meta = t->meta;
  out.ops.reserve(t->records.size());
  for (const auto& r : t->records) {
    ReplayOp o;
    o.start = r.start;
    o.duration = r.end - r.start;
    o.kind = r.op;
    o.file = r.file;
    o.offset = r.offset;
    o.bytes = r.bytes;
    o.thread = r.thread.value_or(0);
    out.ops.push_back(std::move(o));
  }
  return out;
}

Result<OpList> read_ops_file(const std::string& path, TraceFormat fmt) {
  std::ifstream in(path);
  if (!in)
    return Result<OpList>::error(
        fmt::format("cannot open trace '{}': {} (check the path)", path, std::strerror(errno)));
  if (fmt == TraceFormat::Auto) {
    auto d = detect_trace_format(in, path);
    if (!d) return d.status();
    fmt = *d;
    in.clear();
    in.seekg(0);
  }
  Result<OpList> r = Result<OpList>::error("unreachable");
  switch (fmt) {
    case TraceFormat::Native: r = read_native_ops(in, path); break;
    case TraceFormat::FioIolog: r = read_fio_iolog(in, path); break;
    case TraceFormat::Strace: r = read_strace(in, path); break;
    case TraceFormat::Auto: break;
  }
  bool data = r && std::any_of(r->ops.begin(), r->ops.end(), [](const ReplayOp& o) {
    return o.kind == OpKind::Write || o.kind == OpKind::Read;
  });
  if (r && !data)
    return Result<OpList>::error(fmt::format(
        "{}: no writes or reads to replay{}", path,
        r->format == "strace" ? " (if the program writes through a redirected fd, add dup2,dup3,fcntl to strace's "
                                "-e trace=; run strace with -f so child processes are followed)"
                              : ""));
  return r;
}

}  // namespace sd
