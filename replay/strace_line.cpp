#include "replay/strace_line.h"

#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "models/input.h"

namespace sd {
namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Index of the ')' closing an argument list that starts at `from`, skipping
// quoted strings and nested brackets; npos if the line ends first.
size_t find_close(const std::string& s, size_t from) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 && c == ')') return i;
      --depth;
    }
  }
  return std::string::npos;
}

bool two_digits(const std::string& w, size_t at, int& v) {
  if (!std::isdigit(static_cast<unsigned char>(w[at])) || !std::isdigit(static_cast<unsigned char>(w[at + 1])))
    return false;
  v = (w[at] - '0') * 10 + (w[at + 1] - '0');
  return true;
}

// "12:34:56.123456" (-tt), "12:34:56" (-t) or "1700000000.123456" (-ttt) ->
// seconds. An impossible time of day ("25:61:99") is an error, not 86400 s.
enum class Stamp { Ok, NotAStamp, Impossible };
Stamp parse_stamp(const std::string& w, double& out) {
  if (w.size() >= 8 && w[2] == ':' && w[5] == ':') {
    int h = 0, m = 0, sec = 0;
    if (!two_digits(w, 0, h) || !two_digits(w, 3, m) || !two_digits(w, 6, sec)) return Stamp::NotAStamp;
    double frac = 0;
    if (w.size() > 8) {
      if (w[8] != '.' || w.size() == 9 || w.find_first_not_of("0123456789", 9) != std::string::npos)
        return Stamp::NotAStamp;
      frac = std::strtod(w.c_str() + 8, nullptr);
    }
    if (h > 23 || m > 59 || sec > 60) return Stamp::Impossible;
    out = h * 3600.0 + m * 60.0 + sec + frac;
    return Stamp::Ok;
  }
  auto dot = w.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == w.size() ||
      w.find_first_not_of("0123456789.") != std::string::npos || w.find('.', dot + 1) != std::string::npos)
    return Stamp::NotAStamp;
  out = std::strtod(w.c_str(), nullptr);
  if (!(out >= 0 && out < 1e11)) return Stamp::Impossible;  // past the year 5000
  return Stamp::Ok;
}

// " = 65536 <0.000123>" -> ret, duration. Returns false if there is no " = ".
bool parse_result(const std::string& tail, StraceCall& c) {
  size_t eq = tail.find('=');
  if (eq == std::string::npos || trim(tail.substr(0, eq)) != "") return false;
  std::string rest = trim(tail.substr(eq + 1));
  char* end = nullptr;
  long long v = std::strtoll(rest.c_str(), &end, 0);
  c.ret = (end == rest.c_str()) ? -1 : v;  // '?' (no result) counts as a failure
  size_t lt = rest.rfind('<');
  if (lt != std::string::npos && rest.back() == '>') {
    char* e2 = nullptr;
    std::string d = rest.substr(lt + 1, rest.size() - lt - 2);
    double dur = std::strtod(d.c_str(), &e2);
    if (e2 != d.c_str() && *e2 == '\0' && dur >= 0 && dur < 1e9) c.duration = dur;
  }
  return true;
}

}  // namespace

long long StraceCall::arg_int(size_t i) const {
  if (i >= args.size()) return 0;
  return std::strtoll(args[i].c_str(), nullptr, 0);
}

std::optional<std::string> StraceCall::arg_string(size_t i) const {
  if (i >= args.size()) return std::nullopt;
  const std::string& a = args[i];
  if (a.size() < 2 || a[0] != '"') return std::nullopt;
  std::string out;
  for (size_t k = 1; k < a.size(); ++k) {
    char ch = a[k];
    if (ch == '"') return out;
    if (ch == '\\' && k + 1 < a.size()) {
      char e = a[++k];
      if (e == 'n') out += '\n';
      else if (e == 't') out += '\t';
      else if (e == 'x' && k + 2 < a.size()) {
        out += static_cast<char>(std::strtol(a.substr(k + 1, 2).c_str(), nullptr, 16));
        k += 2;
      } else out += e;
    } else {
      out += ch;
    }
  }
  return std::nullopt;
}

void StraceCall::append_args(const std::string& more) {
  raw_args += more;
  args = split_strace_args(raw_args);
}

double StraceClock::relative(double abs) {
  if (!started) {
    started = true;
    origin = last = abs;
  }
  if (abs + day < last - 43200) day += 86400;  // -tt wrapped past midnight
  last = abs + day;
  return last - origin;
}

std::vector<std::string> split_strace_args(const std::string& raw) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (quoted) {
      cur += c;
      if (c == '\\' && i + 1 < raw.size()) cur += raw[++i];
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

StraceLine parse_strace_line(const std::string& line, StraceClock& clock) {
  StraceLine r;
  std::string s = trim(line);
  if (s.empty() || s.starts_with("strace: ")) return r;
  size_t pos = 0;
  auto next_word = [&]() {
    while (pos < s.size() && s[pos] == ' ') ++pos;
    size_t b = pos;
    while (pos < s.size() && s[pos] != ' ') ++pos;
    return s.substr(b, pos - b);
  };
  std::string w = next_word();
  if (w == "[pid") {
    std::string p = next_word();
    r.call.pid = std::atoi(p.c_str());
    w = next_word();
  } else if (!w.empty() && w.find_first_not_of("0123456789") == std::string::npos) {
    r.call.pid = std::atoi(w.c_str());
    w = next_word();
  }
  double stamp = 0;
  Stamp st = parse_stamp(w, stamp);
  if (st == Stamp::Impossible) {
    r.error = fmt::format("impossible timestamp '{}' (hours 0-23, minutes and seconds 0-59)", excerpt(w, 40));
    return r;
  }
  if (st != Stamp::Ok) {
    r.error = fmt::format("no -tt timestamp where one was expected (found '{}')", excerpt(w, 40));
    return r;
  }
  r.call.start = clock.relative(stamp);
  std::string rest = trim(s.substr(pos));
  if (rest.starts_with("---") || rest.starts_with("+++")) return r;  // signals, exits
  if (rest.starts_with("<... ")) {
    size_t e = rest.find(" resumed>");
    if (e == std::string::npos) {
      r.error = "'<...' without 'resumed>'";
      return r;
    }
    r.call.name = rest.substr(5, e - 5);
    if (r.call.name.size() > 64) {
      r.error = fmt::format("'<... {} resumed>' does not name a system call", excerpt(r.call.name, 40));
      return r;
    }
    size_t from = e + 9;
    size_t close = find_close(rest, from);
    if (close == std::string::npos || !parse_result(rest.substr(close + 1), r.call)) {
      r.error = fmt::format("cannot read the result of the resumed {} call", r.call.name);
      return r;
    }
    r.resumed_args = rest.substr(from, close - from);
    r.kind = StraceLineKind::Resumed;
    return r;
  }
  size_t paren = rest.find('(');
  std::string name = rest.substr(0, paren);
  if (paren == std::string::npos || name.empty() || name.size() > 64 ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
    r.error = fmt::format("expected 'syscall(arguments) = result' after the time, found '{}'", excerpt(rest, 40));
    return r;
  }
  r.call.name = name;
  const std::string kUnfinished = "<unfinished ...>";
  size_t close = find_close(rest, paren + 1);
  if (rest.ends_with(kUnfinished) && (close == std::string::npos || close > rest.size() - kUnfinished.size())) {
    r.call.raw_args = rest.substr(paren + 1, rest.size() - kUnfinished.size() - paren - 1);
    while (!r.call.raw_args.empty() && r.call.raw_args.back() == ' ') r.call.raw_args.pop_back();
    r.call.args = split_strace_args(r.call.raw_args);
    r.kind = StraceLineKind::Unfinished;
    return r;
  }
  if (close == std::string::npos) {
    r.error = fmt::format("the arguments of {}( are not closed (a line cut short?)", name);
    return r;
  }
  if (!parse_result(rest.substr(close + 1), r.call)) {
    r.error = fmt::format("{}(...) has no ' = result'", name);
    return r;
  }
  r.call.raw_args = rest.substr(paren + 1, close - paren - 1);
  r.call.args = split_strace_args(r.call.raw_args);
  r.kind = StraceLineKind::Call;
  return r;
}

}  // namespace sd
