#include "models/fault.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "models/input.h"
#include "models/trace.h"
#include "models/units.h"

namespace sd {
namespace {

constexpr uint32_t kAllOps = 0x7f;
constexpr size_t kMaxEvents = 10000;  // a p=0.5 fault over hours must not grow without end
constexpr const char* kForm = "give e.g. eio:write@2GB, delay=500ms@90s or gone@10min (docs/faults.md)";

uint32_t bit(OpKind k) { return 1u << static_cast<unsigned>(k); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "EIO", "eio" -> EIO; any name glibc knows.
int errno_named(std::string_view name) {
  std::string up(name);
  for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (up.size() < 2 || up[0] != 'E') return 0;
  for (int e = 1; e < 256; ++e)
    if (const char* n = strerrorname_np(e); n && up == n) return e;
  return 0;
}

Result<uint32_t> parse_ops(std::string_view text, const std::string& spec) {
  uint32_t mask = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t plus = text.find('+', pos);
    std::string name = lower(text.substr(pos, plus == std::string_view::npos ? std::string_view::npos : plus - pos));
    if (name == "any") mask |= kAllOps;
    else if (auto k = op_from_name(name)) mask |= bit(*k);
    else
      return Result<uint32_t>::error(fmt::format(
          "fault '{}': unknown operation '{}': use write, read, fsync, create, truncate, close, remove or any, "
          "joined by + (eio:write+fsync)", excerpt(spec), excerpt(name, 20)));
    if (plus == std::string_view::npos) break;
    pos = plus + 1;
  }
  return mask;
}

Status parse_what(std::string_view what, FaultSpec& f) {
  size_t eq = what.find('=');
  std::string name = lower(what.substr(0, eq));
  std::string value = eq == std::string_view::npos ? "" : std::string(what.substr(eq + 1));
  auto need_value = [&](const char* example) -> Status {
    if (value.empty())
      return Status::error(fmt::format("fault '{}': {} needs a value: {}", excerpt(f.text), name, example));
    return {};
  };
  auto no_value = [&]() -> Status {
    if (eq != std::string_view::npos)
      return Status::error(fmt::format("fault '{}': {} takes no value: write just {}", excerpt(f.text), name, name));
    return {};
  };
  if (name == "short") {
    f.kind = FaultKind::Short;
    f.ops = bit(OpKind::Write);
    if (!value.empty()) {
      auto v = parse_fraction(value);
      if (!v || *v <= 0 || *v >= 1)
        return Status::error(fmt::format("fault '{}': short={} must be a fraction between 0 and 1 (short=0.5 or "
                                         "short=25%)", excerpt(f.text), excerpt(value, 20)));
      f.fraction = *v;
    }
    f.for_ops = 1;
    return {};
  }
  if (name == "delay") {
    if (Status s = need_value("delay=500ms"); !s.ok()) return s;
    auto v = parse_duration(value);
    if (!v || *v <= 0 || *v > 3600)
      return Status::error(fmt::format("fault '{}': delay={} must be a duration from 1us to 1h (delay=500ms)",
                                       excerpt(f.text), excerpt(value, 20)));
    f.kind = FaultKind::Delay;
    f.delay_s = *v;
    f.ops = kAllOps;
    f.for_ops = 1;
    return {};
  }
  if (name == "rate") {
    if (Status s = need_value("rate=0.25 (a quarter of the modelled rate)"); !s.ok()) return s;
    double v = 0;
    bool pct = !value.empty() && value.back() == '%';
    if (pct) {
      auto fr = parse_fraction(value);
      v = fr ? *fr : -1;
    } else if (!parse_decimal(value, v)) {
      v = -1;
    }
    if (v <= 0 || v > 1000)
      return Status::error(fmt::format("fault '{}': rate={} must be a factor above 0 (rate=0.25 is a quarter of "
                                       "the rate, rate=2 twice)", excerpt(f.text), excerpt(value, 20)));
    f.kind = FaultKind::Rate;
    f.rate_factor = v;
    f.ops = kAllOps;
    return {};
  }
  if (name == "gone" || name == "powerloss") {
    if (Status s = no_value(); !s.ok()) return s;
    f.kind = name == "gone" ? FaultKind::Gone : FaultKind::PowerLoss;
    f.error = EIO;
    f.ops = kAllOps;
    return {};
  }
  if (name == "errno") {
    if (Status s = need_value("errno=EROFS, or just erofs"); !s.ok()) return s;
    name = lower(value);
  } else if (Status s = no_value(); !s.ok()) {
    return s;
  }
  int e = errno_named(name);
  if (e == 0)
    return Status::error(fmt::format("fault '{}': unknown fault '{}': use an errno name (eio, enospc, erofs...), "
                                     "short, delay=TIME, rate=FACTOR, gone or powerloss",
                                     excerpt(f.text), excerpt(name, 20)));
  f.kind = FaultKind::Errno;
  f.error = e;
  f.ops = bit(OpKind::Write);
  return {};
}

bool is_duration_suffix(const std::string& s) {
  for (const char* u : {"s", "sec", "ms", "us", "min", "h", "hr", "d"})
    if (s == u) return true;
  return false;
}

Status parse_trigger(std::string_view text, FaultSpec& f) {
  std::string t = lower(text);
  if (t.rfind("op", 0) == 0) {
    uint64_t n = 0;
    if (!parse_whole(t.substr(2), n, uint64_t{1} << 53) || n == 0)
      return Status::error(fmt::format("fault '{}': @{} must name an operation from op1 on (@op100 = the 100th)",
                                       excerpt(f.text), excerpt(text, 20)));
    f.trigger = TriggerKind::OpCount;
    f.at = static_cast<double>(n);
    return {};
  }
  double v = 0;
  size_t used = 0;
  if (!parse_decimal(t, v, &used))
    return Status::error(fmt::format("fault '{}': @{} is not a time, byte or operation: write @90s, @2GB or @op100",
                                     excerpt(f.text), excerpt(text, 20)));
  std::string suf = t.substr(used);
  if (suf.empty())
    return Status::error(fmt::format("fault '{}': @{} needs a unit: @{}s for a time, @{}B for a byte, @op{} for an "
                                     "operation", excerpt(f.text), excerpt(text, 20), t, t, t));
  if (suf == "m")
    return Status::error(fmt::format("fault '{}': @{} could be minutes or MiB: write @{}min or @{}MiB",
                                     excerpt(f.text), excerpt(text, 20), t.substr(0, used), t.substr(0, used)));
  Result<double> r = is_duration_suffix(suf) ? parse_duration(t) : parse_size(t);
  if (!r) return Status::error(fmt::format("fault '{}': @{}: {}", excerpt(f.text), excerpt(text, 20), r.message()));
  f.trigger = is_duration_suffix(suf) ? TriggerKind::Time : TriggerKind::Byte;
  f.at = f.trigger == TriggerKind::Byte ? std::round(*r) : *r;
  return {};
}

Status parse_option(std::string_view kv, FaultSpec& f, std::vector<std::string>& seen) {
  size_t eq = kv.find('=');
  std::string key = lower(kv.substr(0, eq));
  std::string value = eq == std::string_view::npos ? "" : std::string(kv.substr(eq + 1));
  if (eq == std::string_view::npos || value.empty() || (key != "for" && key != "file" && key != "p"))
    return Status::error(fmt::format("fault '{}': '{}' is not an option: use for=10s, for=3ops, for=forever, "
                                     "file=*.wav or p=0.01", excerpt(f.text), excerpt(kv, 30)));
  if (std::find(seen.begin(), seen.end(), key) != seen.end())
    return Status::error(fmt::format("fault '{}': {}= is given twice: keep one", excerpt(f.text), key));
  seen.push_back(key);
  if (key == "file") {
    f.file_glob = value;
    return {};
  }
  if (key == "p") {
    auto p = parse_fraction(value);
    if (!p || *p <= 0 || *p > 1)
      return Status::error(fmt::format("fault '{}': p={} must be a probability above 0, at most 1 (p=0.01 or p=1%)",
                                       excerpt(f.text), excerpt(value, 20)));
    f.probability = *p;
    return {};
  }
  if (f.kind == FaultKind::Gone || f.kind == FaultKind::PowerLoss)
    return Status::error(fmt::format("fault '{}': a device that is gone stays gone: drop for= (or use eio with "
                                     "for= for errors that end)", excerpt(f.text)));
  std::string v = lower(value);
  f.for_ops = 0;
  f.for_s = std::numeric_limits<double>::infinity();
  if (v == "forever") return {};
  if (v.size() > 3 && v.compare(v.size() - 3, 3, "ops") == 0) {
    uint64_t n = 0;
    if (!parse_whole(v.substr(0, v.size() - 3), n, uint64_t{1} << 53) || n == 0)
      return Status::error(fmt::format("fault '{}': for={} must be 1ops or more", excerpt(f.text), excerpt(value, 20)));
    f.for_ops = n;
    return {};
  }
  auto d = parse_duration(v);
  if (!d || *d <= 0)
    return Status::error(fmt::format("fault '{}': for={} must be a duration (10s), a count (3ops) or forever",
                                     excerpt(f.text), excerpt(value, 20)));
  f.for_s = *d;
  return {};
}

}  // namespace

Result<FaultSpec> parse_fault(std::string_view text) {
  FaultSpec f;
  f.text = std::string(text);
  if (text.empty() || text.size() > 1000 || text.find_first_of(" \t\n\r") != std::string_view::npos)
    return Result<FaultSpec>::error(fmt::format("fault '{}': a fault spec is one word without spaces: {}",
                                                excerpt(text), kForm));
  size_t comma = text.find(',');
  std::string_view head = text.substr(0, comma);
  size_t at = head.find('@');
  std::string_view what_ops = head.substr(0, at);
  size_t colon = what_ops.find(':');
  if (Status s = parse_what(what_ops.substr(0, colon), f); !s.ok()) return s;
  if (colon != std::string_view::npos) {
    if (f.kind == FaultKind::Gone || f.kind == FaultKind::PowerLoss)
      return Result<FaultSpec>::error(fmt::format(
          "fault '{}': {} hits every operation: drop :{}", excerpt(text), f.kind == FaultKind::Gone ? "gone" : "powerloss",
          excerpt(what_ops.substr(colon + 1), 20)));
    auto ops = parse_ops(what_ops.substr(colon + 1), f.text);
    if (!ops) return ops.status();
    f.ops = *ops;
    if (f.kind == FaultKind::Short && (f.ops & ~(bit(OpKind::Write) | bit(OpKind::Read))))
      return Result<FaultSpec>::error(
          fmt::format("fault '{}': a short transfer needs :write or :read", excerpt(text)));
  }
  if (at != std::string_view::npos)
    if (Status s = parse_trigger(head.substr(at + 1), f); !s.ok()) return s;
  std::vector<std::string> seen;
  while (comma != std::string_view::npos) {
    size_t next = text.find(',', comma + 1);
    std::string_view kv = text.substr(comma + 1, next == std::string_view::npos ? std::string_view::npos
                                                                                : next - comma - 1);
    if (Status s = parse_option(kv, f, seen); !s.ok()) return s;
    comma = next;
  }
  return f;
}

Result<std::vector<FaultSpec>> parse_fault_toml(std::string_view text, std::string_view origin) {
  using R = Result<std::vector<FaultSpec>>;
  if (Status st = check_text(text, origin, kProfileLimits); !st.ok()) return st;
  toml::table t;
  try {
    t = toml::parse(text, std::string(origin));
  } catch (const toml::parse_error& e) {
    return R::error(fmt::format("{}:{}: malformed TOML: {}", origin, e.source().begin.line, e.description()));
  }
  std::vector<FaultSpec> out;
  for (auto& [k, v] : t)
    if (k.str() != "fault")
      return R::error(fmt::format("{}: unknown key '{}': a fault file holds [[fault]] tables (docs/faults.md)",
                                  origin, excerpt(k.str(), 30)));
  const toml::array* arr = t["fault"].as_array();
  if (!arr || arr->empty())
    return R::error(fmt::format("{}: no [[fault]] table: add one such as [[fault]] fault = \"eio\" at = \"2GB\"", origin));
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::table* ft = (*arr)[i].as_table();
    if (!ft) return R::error(fmt::format("{}: fault {} is not a table: write [[fault]]", origin, i + 1));
    std::map<std::string, std::string> val;
    for (auto& [k, v] : *ft) {
      std::string key(k.str());
      if (key != "fault" && key != "ops" && key != "at" && key != "for" && key != "file" && key != "p")
        return R::error(fmt::format("{}: fault {}: unknown key '{}': use fault, ops, at, for, file, p", origin, i + 1,
                                    excerpt(key, 30)));
      if (auto s = v.value<std::string>(); s && v.is_string()) val[key] = *s;
      else if (auto d = v.value<double>(); d && key == "p") val[key] = fmt::format("{}", *d);
      else
        return R::error(fmt::format("{}: fault {}: {} must be a string (e.g. at = \"90s\")", origin, i + 1, key));
      if (val[key].empty() || val[key].find_first_of(":@,") != std::string::npos)
        return R::error(fmt::format("{}: fault {}: {} = '{}' must not be empty nor hold ':', '@' or ','", origin,
                                    i + 1, key, excerpt(val[key], 30)));
    }
    if (!val.count("fault"))
      return R::error(fmt::format("{}: fault {}: no 'fault' key: say what goes wrong (fault = \"eio\")", origin, i + 1));
    std::string spec = val["fault"];
    if (val.count("ops")) spec += ":" + val["ops"];
    if (val.count("at")) spec += "@" + val["at"];
    for (const char* k : {"for", "file", "p"})
      if (val.count(k)) spec += fmt::format(",{}={}", k, val[k]);
    auto f = parse_fault(spec);
    if (!f) return R::error(fmt::format("{}: fault {}: {}", origin, i + 1, f.message()));
    out.push_back(std::move(*f));
  }
  return out;
}

Result<std::vector<FaultSpec>> load_fault_file(const std::string& path) {
  auto text = read_input(path, "fault file", kProfileLimits);
  if (!text) return text.status();
  return parse_fault_toml(*text, path);
}

std::string powerloss_refusal(const FaultSpec& f) {
  return fmt::format("fault '{}': record writes to real storage, whose power streamdisk cannot cut: record into a "
                     "streamdisk mount started with --fault {} (docs/tutorials/pull-the-plug.md), or simulate it",
                     excerpt(f.text), excerpt(f.text));
}

// ---------------------------------------------------------------- schedule

void FaultSchedule::add(FaultSpec spec, double origin) {
  Live l;
  l.spec = std::move(spec);
  l.origin = origin;
  faults_.push_back(std::move(l));
}

bool FaultSchedule::matches(const Live& f, const Op& op) const {
  if (f.spec.file_glob.empty()) return true;
  auto it = names_.find(op.file);
  if (it == names_.end()) return false;
  return fnmatch(f.spec.file_glob.c_str(), it->second.c_str(), 0) == 0;
}

void FaultSchedule::event(size_t i, double now, const Op& op, const std::string& what) {
  if (events_.size() >= kMaxEvents) return;
  auto it = names_.find(op.file);
  std::string file = it != names_.end() ? it->second : fmt::format("file {}", op.file);
  std::string where = op.kind == OpKind::Write || op.kind == OpKind::Read ? fmt::format(" at byte {}", op.offset) : "";
  events_.push_back({now, i, faults_[i].spec.text,
                     fmt::format("{}: {} on {} to {}{}", faults_[i].spec.text, what, op_name(op.kind), file, where)});
}

static std::string gone_what(const FaultSpec& s) { return s.kind == FaultKind::PowerLoss ? "power lost" : "device gone"; }

// A gone fault that fires by the clock alone: triggered by time (or from the
// start), on every file, for certain.
static bool clock_gone(const FaultSpec& s) {
  return (s.kind == FaultKind::Gone || s.kind == FaultKind::PowerLoss) && s.file_glob.empty() && s.probability >= 1 &&
         (s.trigger == TriggerKind::Start || s.trigger == TriggerKind::Time);
}

double FaultSchedule::gone_time() const {
  double t = std::numeric_limits<double>::infinity();
  for (const Live& f : faults_)
    if (clock_gone(f.spec)) t = std::min(t, f.origin + (f.spec.trigger == TriggerKind::Time ? f.spec.at : 0));
  return t;
}

void FaultSchedule::tick(double now) {
  if (gone_error_) return;
  for (size_t i = 0; i < faults_.size(); ++i) {
    Live& f = faults_[i];
    double at = f.origin + (f.spec.trigger == TriggerKind::Time ? f.spec.at : 0);
    if (!clock_gone(f.spec) || now < at) continue;
    f.triggered = true, f.start = at, ++f.hits;
    gone_error_ = f.spec.error;
    if (f.spec.kind == FaultKind::PowerLoss) power_lost_at_ = at;
    if (events_.size() < kMaxEvents)
      events_.push_back({at, i, f.spec.text, fmt::format("{}: {} ({} from now on)", f.spec.text, gone_what(f.spec),
                                                         errno_name(f.spec.error))});
    return;
  }
}

FaultSchedule::Decision FaultSchedule::decide(const Op& op, double now) {
  Decision d;
  tick(now);
  if (gone_error_) {
    d.error = gone_error_;
    return d;
  }
  bool data = op.kind == OpKind::Write || op.kind == OpKind::Read;
  for (size_t i = 0; i < faults_.size(); ++i) {
    Live& f = faults_[i];
    const FaultSpec& s = f.spec;
    if (!matches(f, op)) continue;
    bool targeted = s.targets(op.kind);
    uint64_t cut = std::numeric_limits<uint64_t>::max();  // Byte trigger: bytes before the fault byte
    if (!f.triggered) {
      switch (s.trigger) {
        case TriggerKind::Start:
          f.triggered = true, f.start = f.origin;
          break;
        case TriggerKind::Time:
          if (now >= f.origin + s.at) f.triggered = true, f.start = f.origin + s.at;
          break;
        case TriggerKind::OpCount:
          if (targeted && static_cast<double>(++f.ops_seen) >= s.at) f.triggered = true, f.start = now;
          break;
        case TriggerKind::Byte:
          if (op.kind == OpKind::Write && static_cast<double>(f.bytes_seen + op.bytes) > s.at) {
            f.triggered = true, f.start = now;
            cut = static_cast<uint64_t>(s.at) - f.bytes_seen;
          }
          break;
      }
      if (!f.triggered) continue;
    }
    if (!targeted) continue;
    if (now >= f.start + s.for_s || (s.for_ops && f.hits >= s.for_ops)) continue;
    if (s.probability < 1 && rng_.uniform() >= s.probability) continue;
    bool cuts = cut > 0 && cut < op.bytes && op.kind == OpKind::Write;
    switch (s.kind) {
      case FaultKind::Errno:
      case FaultKind::Gone:
      case FaultKind::PowerLoss:
        if (cuts) {
          // The write that reaches the fault byte stops there, as a write(2)
          // that fails part way returns what it did; the next one fails.
          d.max_bytes = std::min(d.max_bytes, cut);
          event(i, now, op, fmt::format("cut to {} bytes", cut));
          continue;
        }
        d.error = s.error;
        if (s.kind != FaultKind::Errno) gone_error_ = s.error;
        if (s.kind == FaultKind::PowerLoss) power_lost_at_ = now;
        event(i, now, op, s.kind == FaultKind::Errno ? errno_name(s.error)
                                                     : fmt::format("{} ({} from now on)", gone_what(s), errno_name(s.error)));
        break;
      case FaultKind::Short: {
        if (!data || op.bytes < 2) continue;
        uint64_t n = cuts ? cut : std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(op.bytes) * s.fraction));
        d.max_bytes = std::min(d.max_bytes, n);
        event(i, now, op, fmt::format("short: {} of {} bytes", n, op.bytes));
        break;
      }
      case FaultKind::Delay:
        d.delay_s += s.delay_s;
        event(i, now, op, fmt::format("delayed {}", format_duration(s.delay_s)));
        break;
      case FaultKind::Rate:
        d.rate_factor *= s.rate_factor;
        if (f.hits == 0) event(i, now, op, fmt::format("rate x{:g} from here", s.rate_factor));
        break;
    }
    ++f.hits;
    if (d.error) break;
  }
  return d;
}

void FaultSchedule::completed(const Op& op, const Completion& c) {
  if (op.kind != OpKind::Write || c.bytes == 0) return;
  for (Live& f : faults_)
    if (f.spec.trigger == TriggerKind::Byte && matches(f, op)) f.bytes_seen += c.bytes;
}

// ---------------------------------------------------------------- device

Completion FaultDevice::submit(const Op& op, double now) {
  FaultSchedule::Decision d = sched_.decide(op, now);
  if (d.error) {
    Completion c{now, d.error, 0};
    sched_.completed(op, c);
    return c;
  }
  Op o = op;
  if ((op.kind == OpKind::Write || op.kind == OpKind::Read) && d.max_bytes < op.bytes) o.bytes = d.max_bytes;
  Completion c = inner_.submit(o, now);
  if (d.rate_factor != 1) c.done = now + (c.done - now) / d.rate_factor;
  c.done += d.delay_s;
  sched_.completed(o, c);
  return c;
}

}  // namespace sd
