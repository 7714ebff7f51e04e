// The lesson page's entry point into the model: a thin C ABI over models/ and
// sim/ (the same sources and the same option translation as `streamdisk
// simulate` and `capacity`), compiled to WebAssembly (web/CMakeLists.txt).
//
// The page writes a JSON request into the buffer sd_request() returns, calls
// sd_call(), and reads the JSON answer (NUL-terminated) at the pointer it
// returns. Requests:
//
//   {"cmd":"profiles"}                      built-in profiles and the parameter table
//   {"cmd":"describe","profile":"P"}        one profile's layers and parameter values
//   {"cmd":"simulate","profile":"P","sets":["device.sustained_mbps=300"],
//    "rec":{"channels":"48","sample_rate":"48k",...},"points":600}
//   {"cmd":"capacity","profile":"P","sets":[...],"rec":{...}}
//
// "rec" holds the command line's recording options as strings (the keys of
// RecordingArgs), so a page setting and `streamdisk simulate` with the same
// strings run the same recording. Errors come back as {"error":"message"},
// the message the CLI prints. Built with -fno-exceptions: the code it calls
// reports errors as values (models/status.h), toml++ included; nothing can
// throw across this boundary.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/capacity.h"
#include "sim/cost.h"
#include "sim/overrun_stats.h"
#include "sim/recorder.h"
#include "sim/recording_options.h"
#include "sim/verdict.h"

namespace sd {
namespace {

using nlohmann::json;

std::string g_request, g_response;

json error(const std::string& message) { return {{"error", message}}; }

// A string member of the request, or `fallback` when absent; a wrong type is
// an error the page made, reported like bad input.
Result<std::string> str(const json& j, const char* key, std::string fallback = {}) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_string()) return Result<std::string>::error(fmt::format("request: '{}' must be a string", key));
  return j[key].get<std::string>();
}

Result<RecordingArgs> recording_args(const json& rec) {
  RecordingArgs a;
  struct Field {
    const char* key;
    std::string* out;
  } fields[] = {{"channels", &a.channels}, {"sample_rate", &a.sample_rate}, {"sample_bits", &a.sample_bits},
                {"format", &a.format},     {"buffer", &a.buffer},           {"block", &a.block},
                {"period", &a.period},     {"duration", &a.duration},       {"header_every", &a.header_every},
                {"fill", &a.fill},         {"split", &a.split}};
  for (auto& f : fields) {
    auto v = str(rec, f.key, *f.out);
    if (!v) return v.status();
    *f.out = *v;
  }
  auto seed = str(rec, "seed", "1");
  if (!seed) return seed.status();
  if (!parse_whole(*seed, a.seed)) return Result<RecordingArgs>::error(fmt::format("--seed {}: give a whole number", *seed));
  auto flag = [&](const char* key) { return rec.is_object() && rec.contains(key) && rec[key].is_boolean() && rec[key].get<bool>(); };
  a.is_float = flag("float");
  a.direct = flag("direct");
  a.fsync = flag("fsync");
  return a;
}

Result<Profile> profile_of(const json& req) {
  auto spec = str(req, "profile");
  if (!spec) return spec.status();
  std::vector<std::string> sets;
  if (req.contains("sets") && req["sets"].is_array())
    for (const auto& s : req["sets"])
      if (s.is_string()) sets.push_back(s.get<std::string>());
  return load_profile(*spec, sets);
}

json profiles() {
  json list = json::array();
  for (const auto& p : builtin_profiles())
    list.push_back({{"name", p.name},
                    {"layer", p.layer ? std::string(layer_name(*p.layer)) : std::string("composite")},
                    {"summary", p.summary},
                    {"layers", p.layers}});
  json params = json::array();
  for (const auto& s : param_table())
    params.push_back({{"layer", std::string(layer_name(s.layer))},
                      {"key", std::string(s.key)},
                      {"unit", std::string(unit_name(s.unit))},
                      {"default", s.default_value ? json(*s.default_value) : json(nullptr)},
                      {"min", s.min},
                      {"max", s.max},
                      {"help", std::string(s.help)}});
  return {{"profiles", list}, {"params", params}};
}

json describe(const json& req) {
  auto p = profile_of(req);
  if (!p) return error(p.message());
  json layers = json::object();
  for (Layer l : kLayers) {
    const LayerProfile* lp = p->layer(l);
    json values = json::object();
    const LayerParams& lpar = p->params(l);
    for (const ParamSpec* s : lpar.specs()) {
      const ParamValue& v = lpar.entry(s->key);
      values[std::string(s->key)] = {{"value", v.value},
                                     {"origin", v.origin == Origin::Profile    ? "profile"
                                                : v.origin == Origin::Override ? "override"
                                                                               : "default"},
                                     {"source", v.source},
                                     {"estimate", v.estimate}};
    }
    layers[std::string(layer_name(l))] = {{"present", lp != nullptr},
                                          {"name", lp ? lp->name : std::string()},
                                          {"summary", lp ? lp->summary : std::string()},
                                          {"source", lp ? lp->source : std::string()},
                                          {"params", values}};
  }
  return {{"name", p->name}, {"summary", p->summary}, {"layers", layers}};
}

// Per-block samples folded into `points` time buckets for the plots: the
// running totals at the bucket's end, the highest ring, dirty and cache level
// in it, and the buckets where periods were dropped.
struct Series {
  struct Sample {
    double t, demand, written, ring, dirty, cache;
    uint64_t dropped;
  };
  std::vector<Sample> all;

  json fold(double duration_s, size_t points) const {
    points = std::clamp<size_t>(points, 2, 5000);
    std::vector<double> t, demand, written, ring, dirty, cache;
    json overruns = json::array();
    size_t i = 0;
    uint64_t dropped_before = 0;
    for (size_t b = 0; b < points && i < all.size(); ++b) {
      double end = duration_s * static_cast<double>(b + 1) / static_cast<double>(points);
      if (b + 1 == points) end = all.back().t;
      if (all[i].t > end) continue;
      double r = 0, d = 0, c = 0;
      size_t last = i;
      for (; i < all.size() && all[i].t <= end; ++i) {
        r = std::max(r, all[i].ring), d = std::max(d, all[i].dirty), c = std::max(c, all[i].cache);
        last = i;
      }
      const Sample& s = all[last];
      t.push_back(s.t), demand.push_back(s.demand), written.push_back(s.written);
      ring.push_back(r), dirty.push_back(d), cache.push_back(c);
      if (s.dropped > dropped_before) overruns.push_back({{"t", s.t}, {"dropped_periods", s.dropped - dropped_before}});
      dropped_before = s.dropped;
    }
    return {{"t", t},         {"demand_bytes", demand}, {"written_bytes", written}, {"ring_bytes", ring},
            {"dirty_bytes", dirty}, {"cache_bytes", cache},   {"overruns", overruns},  {"blocks", all.size()}};
  }
};

json simulate(const json& req) {
  auto p = profile_of(req);
  if (!p) return error(p.message());
  auto args = recording_args(req.contains("rec") ? req["rec"] : json::object());
  if (!args) return error(args.message());
  auto cfg = recorder_config(*args);
  if (!cfg) return error(cfg.message());
  auto mo = model_options(*args, *p);
  if (!mo) return error(mo.message());
  if (auto st = check_cost(estimate_recording(*p, *cfg, *mo)); !st.ok()) return error(st.message());
  ModelDevice dev(*p, *mo);
  VirtualClock clock;
  RecorderHooks hooks;
  Series series;
  double fb = static_cast<double>(cfg->stream.frame_bytes());
  // Only side-effect-free looks at the model here (ModelDevice::state() would
  // start writebacks early and change the run): the page must print what
  // `simulate` prints.
  DeviceLayer& device = dev.device_layer();
  const HostCache& host = dev.host_cache();
  hooks.sample = [&](const RecorderSample& s) {
    double now = clock.now();
    series.all.push_back({s.t_s, static_cast<double>(s.frames_delivered) * fb,
                          static_cast<double>(s.frames_written) * fb, static_cast<double>(s.ring_frames) * fb,
                          host.enabled() ? host.dirty_scheduled(now) : 0,
                          device.burst_bytes() - device.burst_left(now), s.dropped_periods});
  };
  auto r = run_recorder(dev, clock, *cfg, hooks);
  if (!r) return error(r.message());
  ModelState state = dev.state(clock.now());
  // The keys of `streamdisk simulate --json` (cli/cmd_simulate.cpp), plus the plots.
  json j = recording_json(*cfg, *r);
  j["format"] = "streamdisk-simulate";
  j["format_version"] = 1;
  j["profile"] = p->name;
  j["seed"] = args->seed;
  j["device_stalls"] = state.stalls;
  j["device_stall_seconds"] = state.stall_seconds;
  json text = {{"stream", stream_text(cfg->stream)},
               {"written", format_size(static_cast<double>(r->payload_bytes))},
               {"peak_buffer", format_size(static_cast<double>(r->peak_buffer_bytes))},
               {"buffer", format_size(static_cast<double>(r->buffer_bytes))},
               {"first_overrun", r->first_overrun_s ? format_duration(*r->first_overrun_s) : std::string()}};
  size_t points = req.contains("points") && req["points"].is_number_unsigned() ? req["points"].get<size_t>() : 600;
  return {{"result", j},
          {"text", text},
          {"burst_bytes", state.burst_bytes},
          {"series", series.fold(cfg->duration_s, points)}};
}

// The most channels the profile records under capacity's default criterion
// (P(>= 1 overrun) < 5 % at 95 % confidence), as `streamdisk capacity` finds it.
json capacity(const json& req) {
  auto p = profile_of(req);
  if (!p) return error(p.message());
  auto args = recording_args(req.contains("rec") ? req["rec"] : json::object());
  if (!args) return error(args.message());
  auto cfg = recorder_config(*args, 1);
  if (!cfg) return error(cfg.message());
  auto mo = model_options(*args, *p);
  if (!mo) return error(mo.message());
  CapacityQuery q;
  q.base = *cfg, q.model = *mo;
  q.criterion.max_seeds = std::max(200, 3 * seeds_to_settle_below(q.criterion.max_overrun_probability,
                                                                   q.criterion.confidence));
  auto r = find_capacity(*p, q);
  if (!r) return error(r.message());
  return {{"profile", p->name},
          {"criterion", criterion_text(q.criterion, cfg->duration_s)},
          {"found", r->found},
          {"channels", r->best},
          {"band_low", r->band_low},
          {"band_high", r->band_high},
          {"limited_by", r->limited_by},
          {"stalls", r->stalls},
          {"runs", r->runs}};
}

json call(const std::string& text) {
  json req = json::parse(text, nullptr, false);
  if (req.is_discarded() || !req.is_object()) return error("request: not a JSON object");
  auto cmd = str(req, "cmd");
  if (!cmd) return error(cmd.message());
  if (*cmd == "profiles") return profiles();
  if (*cmd == "describe") return describe(req);
  if (*cmd == "simulate") return simulate(req);
  if (*cmd == "capacity") return capacity(req);
  return error(fmt::format("request: unknown cmd '{}'", *cmd));
}

}  // namespace
}  // namespace sd

extern "C" {

// A buffer of `bytes` bytes for the next request (valid until the next call).
__attribute__((export_name("sd_request"))) char* sd_request(size_t bytes) {
  sd::g_request.assign(bytes, '\0');
  return sd::g_request.data();
}

// Answers the request in the buffer; the answer stays valid until the next call.
__attribute__((export_name("sd_call"))) const char* sd_call() {
  sd::g_response = sd::call(sd::g_request).dump();
  return sd::g_response.c_str();
}

__attribute__((export_name("sd_response_size"))) size_t sd_response_size() { return sd::g_response.size(); }

}  // extern "C"
