#include "replay/readers.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "models/input.h"
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

size_t OpList::file_count() const {
  std::set<std::string> files;
  for (const auto& op : ops) files.insert(op.file);
  return files.size();
}

size_t OpList::thread_count() const {
  std::set<int> threads;
  for (const auto& op : ops) threads.insert(op.thread);
  return threads.size();
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
  // -ttt: seconds since the epoch, "1700000000.123456", followed by a call.
  auto is_epoch = [](const std::string& s) {
    auto dot = s.find('.');
    return dot != std::string::npos && dot >= 9 && s.size() > dot + 1 &&
           s.find_first_not_of("0123456789.") == std::string::npos && s.find('.', dot + 1) == std::string::npos;
  };
  auto is_call = [&](const std::string& s) { return s.find('(') != std::string::npos || s.starts_with("---") || s.starts_with("+++") || s == "<..."; };
  std::string c;
  is >> c;
  if (a == "[pid") return true;
  if (is_time(a) || (is_epoch(a) && is_call(b))) return true;
  return std::all_of(a.begin(), a.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         !a.empty() && (is_time(b) || (is_epoch(b) && is_call(c)));
}

}  // namespace

Result<TraceFormat> detect_trace_format(std::istream& in, const std::string& name) {
  std::string line;
  int looked = 0;
  LineReader lines(in, name);
  while (looked < 20 && lines.next(line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++looked;
    if (line.starts_with("# streamdisk-trace") || line.starts_with("#streamdisk-trace")) return TraceFormat::Native;
    if (line.starts_with("fio version ")) return TraceFormat::FioIolog;
    if (looks_like_strace(line)) return TraceFormat::Strace;
  }
  if (!lines.ok()) return lines.status();
  if (looked == 0) return Result<TraceFormat>::error(fmt::format("{}: the trace is empty", name));
  return Result<TraceFormat>::error(fmt::format(
      "{}: cannot tell the trace format: expected a streamdisk trace ('# streamdisk-trace 2'), a fio iolog "
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
    o.direct = r.direct;
    out.ops.push_back(std::move(o));
  }
  return out;
}

Result<OpList> read_ops_file(const std::string& path, TraceFormat fmt) {
  if (std::string why = unreadable_reason(path); !why.empty())
    return Result<OpList>::error(fmt::format("cannot read trace '{}': it {}", path, why));
  std::ifstream file(path);
  if (!file)
    return Result<OpList>::error(
        fmt::format("cannot open trace '{}': {} (check the path)", path, std::strerror(errno)));
  // Detection reads the first lines; a pipe (`replay <(cat trace)`) cannot
  // seek back, so those lines are kept and read again ahead of the rest.
  std::string head;
  if (fmt == TraceFormat::Auto) {
    struct Recording : std::streambuf {
      std::streambuf* src;
      std::string& seen;
      Recording(std::streambuf* s, std::string& out) : src(s), seen(out) {}
      int_type underflow() override { return src->sgetc(); }
      int_type uflow() override {
        int_type c = src->sbumpc();
        if (!traits_type::eq_int_type(c, traits_type::eof())) seen.push_back(traits_type::to_char_type(c));
        return c;
      }
    } rec(file.rdbuf(), head);
    std::istream peek(&rec);
    auto d = detect_trace_format(peek, path);
    if (!d) return d.status();
    fmt = *d;
  }
  ChainedStreambuf chained(std::move(head), file.rdbuf());
  std::istream in(&chained);
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
