// The calibrated profile as TOML, and what would inform each missing parameter.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "models/profile.h"

namespace sd::cal {
namespace {

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

std::string number(const ParamSpec& spec, double v) {
  if (spec.unit == Unit::Bytes || spec.unit == Unit::Count) return fmt::format("{:.0f}", std::max(v, spec.min));
  std::string s = fmt::format("{:.6g}", std::clamp(v, spec.min, spec.max));
  // TOML floats need a digit after any '.', and "1e+09" is fine; plain ints are fine too.
  return s;
}

// `writer`: the subcommand that fitted it ("calibrate", "characterize").
std::string source_text(const Estimate& e, std::string_view writer) {
  if (e.method.starts_with("base profile")) return fmt::format("{}: {}", e.method, e.from);
  return fmt::format("streamdisk {}, {} of {}: ± {:.3g} (95 %), R² {:.4f}, {} points", writer, e.method, e.from,
                     e.band, e.r2, e.points);
}

// The range a fitted value carries (docs/profiles.md, "Ranges"): its 95 %
// interval, so `capacity`, `simulate` and `show` answer with the spread the
// measurement allows. Not for what nothing varies: kernel settings and other
// exact readings (band 0), the device's size, the read side (a recording only
// writes).
std::string range_of(const ParamSpec& spec, const Estimate& e) {
  if (e.method.starts_with("base profile") || spec.key == "capacity_bytes" || spec.key.starts_with("read_")) return "";
  double lo = e.lo, hi = e.hi;
  if (lo > hi) {
    if (!(e.band > 0)) return "";
    lo = e.value - e.band, hi = e.value + e.band;
  }
  lo = std::clamp(std::min(lo, e.value), spec.min, spec.max), hi = std::clamp(std::max(hi, e.value), spec.min, spec.max);
  std::string a = number(spec, lo), b = number(spec, hi);
  if (a == b) return "";
  return fmt::format(", range = [{}, {}]", a, b);
}

void write_layer(std::string& out, const Calibration& c, Layer l, bool single, std::string_view writer) {
  std::string ln(layer_name(l));
  if (!single) out += fmt::format("\n[{}]\nname = {}\n", ln, toml_string(c.name + "-" + ln));
  out += single ? "\n[params]\n" : fmt::format("\n[{}.params]\n", ln);
  for (const ParamSpec* spec : params_of(l)) {
    std::string key = fmt::format("{}.{}", ln, spec->key);
    auto it = std::find_if(c.params.begin(), c.params.end(), [&](const Estimate& e) { return e.key == key; });
    if (it == c.params.end()) continue;
    out += fmt::format("{} = {{ value = {}{}, source = {}{} }}\n", spec->key, number(*spec, it->value),
                       range_of(*spec, *it), toml_string(source_text(*it, writer)),
                       it->method.starts_with("base profile") || it->estimate ? ", estimate = true" : "");
  }
  bool header = false;
  for (const auto& m : c.missing)
    if (m.key.starts_with(ln + ".")) {
      if (!header) out += "# Not fitted (no input informs them; the model's defaults apply):\n";
      header = true;
      out += fmt::format("#   {}: needs {}\n", m.key.substr(ln.size() + 1), m.sweep);
    }
}

}  // namespace

std::string sweep_for(Layer layer, std::string_view key) {
  static constexpr const char* kStallSweep =
      "a long sustained write and paced writes at a few rates, with per-write latencies (pauses are their "
      "outliers; the pause fit left this out)";
  static constexpr const char* kFsStallSweep = "a sustained write and paced writes with --layer filesystem";
  static const std::pair<const char*, const char*> kSweeps[] = {
      {"device.capacity_bytes", "a fill sweep written until ENOSPC (or `# capacity_bytes=` in its trace)"},
      {"device.sustained_mbps", "a sustained-write timeline (or a block-size sweep)"},
      {"device.burst_bytes", "a sustained write long enough to exhaust the write cache"},
      {"device.burst_mbps", "a sustained write long enough to exhaust the write cache"},
      {"device.recover_mbps", "a sustained write with idle gaps after the cache is full"},
      {"device.recover_idle_ms", "a sustained write with idle gaps of 2+ lengths after the cache is full"},
      {"device.catchup_ms", "a flat-out sustained write with 4+ pauses, each with 16 clean writes before and after "
                            "it (where none is made up beyond chance it stays 0)"},
      {"device.op_overhead_us", "a block-size sweep (3+ block sizes, direct writes)"},
      {"device.seek_penalty_us", "an interleaved-files sweep (streamdisk characterize writes one)"},
      {"device.fill_knee", "a fill sweep (write until ENOSPC)"},
      {"device.fill_floor", "a fill sweep (write until ENOSPC)"},
      {"device.stall_interval_mb", kStallSweep},
      {"device.stall_period_ms", kStallSweep},
      {"device.stall_period_jitter", kStallSweep},
      {"device.stall_interval_jitter", kStallSweep},
      {"device.stall_duration_ms", kStallSweep},
      {"device.stall_duration_sigma", kStallSweep},
      {"device.stall2_interval_mb", kStallSweep},
      {"device.stall2_period_ms", kStallSweep},
      {"device.stall2_duration_ms", kStallSweep},
      {"device.stall2_duration_sigma", kStallSweep},
      {"device.read_mbps", "a threads x block-size read table (--table, --fio-json or read traces)"},
      {"device.read_latency_us", "a threads x block-size read table with small blocks"},
      {"device.read_max_mbps", "a threads x block-size read table with several threads"},
      {"device.read_queue_depth", "a threads x block-size read table with several threads"},
      {"host.dirty_limit_bytes", "buffered writes (a trace whose writes have direct 0, or --buffered)"},
      {"host.memory_mbps", "buffered writes (a trace whose writes have direct 0, or --buffered)"},
      {"host.syscall_us", "nothing separately: it is part of op_overhead_us"},
      {"filesystem.request_us", "the same block-size sweep under two filesystems (--baseline)"},
      {"filesystem.driver_mbps", "the same block-size sweep under two filesystems (--baseline)"},
      {"filesystem.stall_interval_mb", kFsStallSweep},
      {"filesystem.stall_period_ms", kFsStallSweep},
      {"filesystem.stall_period_jitter", kFsStallSweep},
      {"filesystem.stall_interval_jitter", kFsStallSweep},
      {"filesystem.stall_duration_ms", kFsStallSweep},
      {"filesystem.stall_duration_sigma", kFsStallSweep},
      {"filesystem.stall2_interval_mb", kFsStallSweep},
      {"filesystem.stall2_period_ms", kFsStallSweep},
      {"filesystem.stall2_duration_ms", kFsStallSweep},
      {"filesystem.stall2_duration_sigma", kFsStallSweep},
  };
  std::string k = fmt::format("{}.{}", layer_name(layer), key);
  for (const auto& [name, sweep] : kSweeps)
    if (k == name) return sweep;
  return "a sweep this version does not fit (set it by hand if you know it)";
}

Result<std::string> profile_toml(const Calibration& c, std::string_view writer) {
  bool single = c.layers.size() == 1;
  std::vector<std::string> inputs;
  for (const auto& i : c.inputs) inputs.push_back(i);
  std::string out = fmt::format("# Written by `streamdisk {}`. Each value's source gives the fit, its 95 % band,\n"
                                "# R² and the points used. Format: docs/profiles.md (profile format 1).\n",
                                writer);
  out += "format_version = 1\n";
  if (single) out += fmt::format("layer = {}\n", toml_string(std::string(layer_name(c.layers[0]))));
  out += fmt::format("name = {}\n", toml_string(c.name));
  out += fmt::format("summary = {}\n", toml_string(fmt::format("calibrated from {} input(s) by streamdisk {}",
                                                               c.inputs.size(), writer)));
  out += fmt::format("source = {}\n", toml_string(fmt::format("streamdisk {}: {}{}", writer, fmt::join(inputs, ", "),
                                                              c.base.empty() ? "" : "; base profile " + c.base)));
  for (Layer l : c.layers) write_layer(out, c, l, single, writer);
  // Load it back: what calibrate writes must load in every other command.
  auto check = parse_profile_text(out, c.name + ".toml");
  if (!check) return Result<std::string>::error(fmt::format("internal: the calibrated profile does not parse: {}", check.message()));
  if (Status st = check->finish(); !st.ok()) {
    bool no_device = std::find(c.layers.begin(), c.layers.end(), Layer::Device) == c.layers.end();
    if (no_device) return out;  // a host or filesystem layer alone composes with a device later
    return Result<std::string>::error(fmt::format(
        "the fitted profile is incomplete: {}; add the trace that informs it, or --base PROFILE to take the rest "
        "from a known profile", st.message()));
  }
  return out;
}

}  // namespace sd::cal
