#include "models/profile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "models/builtin_profiles.h"
#include "models/input.h"
#include "models/units.h"

namespace sd {
namespace fs = std::filesystem;
namespace {

const std::vector<std::string> kLayerTopKeys = {"format_version", "layer", "name", "summary", "source", "params"};
const std::vector<std::string> kCompositeTopKeys = {"format_version", "name", "summary", "source",
                                                    "host", "filesystem", "device"};

Status unknown_key(std::string_view origin, std::string_view what, std::string_view key,
                   const std::vector<std::string>& allowed) {
  std::string hint = nearest(key, allowed);
  return Status::error(fmt::format("{}: unknown {} '{}'{}", origin, what, key,
                                   hint.empty() ? fmt::format(" (allowed: {})", fmt::join(allowed, ", "))
                                                : fmt::format(" (did you mean '{}'?)", hint)));
}

std::string str_or(const toml::table& t, std::string_view key) {
  if (auto v = t[key].value<std::string>()) return *v;
  return {};
}

// `range = [lo, hi]`: two numbers (or strings with units, like the value).
Result<std::pair<double, double>> parse_range(const ParamSpec& spec, const toml::node& n) {
  using R = Result<std::pair<double, double>>;
  const toml::array* a = n.as_array();
  std::string fix = fmt::format("write range = [low, high] in {}, e.g. range = [1, 2]", unit_name(spec.unit));
  if (!a || a->size() != 2) return R::error(fmt::format("range must be two numbers: {}", fix));
  double ends[2];
  for (size_t i = 0; i < 2; ++i) {
    const toml::node& e = *a->get(i);
    if (e.is_boolean()) return R::error(fmt::format("range holds true/false: {}", fix));
    if (auto d = e.value<double>()) {
      ends[i] = *d;
    } else if (auto str = e.value<std::string>()) {
      auto parsed = parse_param_value(spec, *str);
      if (!parsed) return R::error(fmt::format("range: {}", parsed.message()));
      ends[i] = *parsed;
    } else {
      return R::error(fmt::format("range holds something other than a number: {}", fix));
    }
  }
  return std::make_pair(ends[0], ends[1]);
}

// Reads one layer's definition (a layer file, or an inline table in a composite).
Result<LayerProfile> parse_layer(const toml::table& t, Layer layer, std::string_view origin, bool inline_table) {
  std::vector<std::string> allowed = inline_table ? std::vector<std::string>{"name", "summary", "source", "params"}
                                                  : kLayerTopKeys;
  for (auto&& [k, v] : t)
    if (std::find(allowed.begin(), allowed.end(), k.str()) == allowed.end())
      return unknown_key(origin, "key", k.str(), allowed);
  LayerProfile lp;
  lp.name = str_or(t, "name");
  if (lp.name.empty())
    lp.name = inline_table ? "inline" : fs::path(std::string(origin)).stem().string();
  lp.summary = str_or(t, "summary");
  lp.source = str_or(t, "source");
  lp.origin = std::string(origin);
  lp.params = LayerParams(layer);
  const toml::table* params = t["params"].as_table();
  if (!params) {
    if (t.contains("params"))
      return Result<LayerProfile>::error(fmt::format("{}: 'params' must be a table: write [params]", origin));
    return lp;  // a layer with nothing set: all defaults (show says so)
  }
  for (auto&& [k, node] : *params) {
    std::string key(k.str());
    const ParamSpec* spec = find_param(layer, key);
    if (!spec) {
      Status st = lp.params.set(key, 0, Origin::Profile);  // produces the "did you mean" message
      return Result<LayerProfile>::error(fmt::format("{}: {}", origin, st.message()));
    }
    double value = 0;
    std::string source;
    bool estimate = false;
    const toml::node* vnode = &node;
    if (auto* tbl = node.as_table()) {
      for (auto&& [ik, iv] : *tbl)
        if (ik.str() != "value" && ik.str() != "source" && ik.str() != "estimate" && ik.str() != "range")
          return unknown_key(origin, fmt::format("field of '{}'", key), ik.str(),
                             {"value", "source", "estimate", "range"});
      vnode = tbl->get("value");
      if (!vnode)
        return Result<LayerProfile>::error(
            fmt::format("{}: '{}' has no value: write {} = {{ value = ..., source = \"...\" }}", origin, key, key));
      source = str_or(*tbl, "source");
      estimate = (*tbl)["estimate"].value_or(false);
    }
    if (auto* i = vnode->as_integer(); i && i->flags() != toml::value_flags::none)
      return Result<LayerProfile>::error(fmt::format(
          "{}: '{}' is written in hexadecimal, octal or binary: write it in decimal (as on the command line)", origin,
          key));
    if (vnode->is_boolean())
      return Result<LayerProfile>::error(
          fmt::format("{}: '{}' must be a number (in {}), not true/false: write 0 or 1", origin, key,
                      unit_name(spec->unit)));
    if (auto d = vnode->value<double>()) {
      value = *d;
    } else if (auto s = vnode->value<std::string>()) {
      auto parsed = parse_param_value(*spec, *s);
      if (!parsed) return Result<LayerProfile>::error(fmt::format("{}: {}: {}", origin, key, parsed.message()));
      value = *parsed;
    } else {
      return Result<LayerProfile>::error(
          fmt::format("{}: '{}' must be a number (in {}), e.g. {} = 12.5", origin, key, unit_name(spec->unit), key));
    }
    Status st = lp.params.set(key, value, Origin::Profile, source, estimate);
    if (!st.ok()) return Result<LayerProfile>::error(fmt::format("{}: {}", origin, st.message()));
    if (const toml::table* tbl = node.as_table(); tbl && tbl->contains("range")) {
      auto range = parse_range(*spec, *tbl->get("range"));
      if (!range)
        return Result<LayerProfile>::error(fmt::format("{}: {}.{}: {}", origin, layer_name(layer), key,
                                                       range.message()));
      st = lp.params.set_range(key, range->first, range->second);
      if (!st.ok()) return Result<LayerProfile>::error(fmt::format("{}: {}", origin, st.message()));
    }
  }
  return lp;
}

Result<Profile> load_part(std::string_view part, int depth);

Result<Profile> parse_table(const toml::table& t, std::string_view origin, const fs::path& base_dir, int depth) {
  if (auto fv = t["format_version"].value<int64_t>(); !fv || *fv != kProfileFormatVersion)
    return Result<Profile>::error(fmt::format(
        "{}: format_version must be {} (this streamdisk reads profile format {}): add `format_version = {}`",
        origin, kProfileFormatVersion, kProfileFormatVersion, kProfileFormatVersion));
  Profile p;
  p.name = str_or(t, "name");
  p.summary = str_or(t, "summary");
  p.source = str_or(t, "source");
  if (const toml::node* ln_node = t.get("layer")) {
    std::string ln = str_or(t, "layer");
    auto layer = layer_from_name(ln);
    if (!layer) {
      std::ostringstream shown;
      ln_node->visit([&](auto&& n) { shown << n; });
      return Result<Profile>::error(
          fmt::format("{}: layer = {} is not a layer: use \"host\", \"filesystem\" or \"device\"", origin,
                      excerpt(shown.str())));
    }
    auto lp = parse_layer(t, *layer, origin, false);
    if (!lp) return lp.status();
    p.set_layer(std::move(*lp));
    return p;
  }
  for (auto&& [k, v] : t)
    if (std::find(kCompositeTopKeys.begin(), kCompositeTopKeys.end(), k.str()) == kCompositeTopKeys.end())
      return unknown_key(origin, "key", k.str(), kCompositeTopKeys);
  bool any = false;
  for (Layer l : kLayers) {
    const toml::node* n = t.get(layer_name(l));
    if (!n) continue;
    any = true;
    if (auto s = n->value<std::string>()) {
      std::string ref = *s;
      // A relative path in a file is relative to that file.
      if ((ref.find('/') != std::string::npos || ref.ends_with(".toml")) && !base_dir.empty() &&
          fs::path(ref).is_relative())
        ref = (base_dir / ref).string();
      auto sub = load_part(ref, depth + 1);
      if (!sub) return Result<Profile>::error(fmt::format("{}: {}: {}", origin, layer_name(l), sub.message()));
      const LayerProfile* lp = sub->layer(l);
      if (!lp)
        return Result<Profile>::error(fmt::format("{}: {} = \"{}\" is not a {} profile", origin, layer_name(l), *s,
                                                  layer_name(l)));
      p.set_layer(*lp);
    } else if (auto* tbl = n->as_table()) {
      auto lp = parse_layer(*tbl, l, fmt::format("{} [{}]", origin, layer_name(l)), true);
      if (!lp) return lp.status();
      p.set_layer(std::move(*lp));
    } else {
      return Result<Profile>::error(fmt::format(
          "{}: {} must be a profile name (\"{}\" = \"ext4\") or a table of params", origin, layer_name(l),
          layer_name(l)));
    }
  }
  if (!any)
    return Result<Profile>::error(fmt::format(
        "{}: neither `layer = \"...\"` nor any of host/filesystem/device is set: a profile needs one", origin));
  return p;
}

struct Builtin {
  std::string name;
  std::string path;
  std::string_view text;
};

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> v = [] {
    std::vector<Builtin> out;
    for (const auto& e : builtin_profile_texts()) {
      std::string stem = fs::path(std::string(e.path)).stem().string();
      out.push_back({stem, std::string(e.path), e.text});
    }
    return out;
  }();
  return v;
}

Result<Profile> parse_text_at(std::string_view text, std::string_view origin, const fs::path& base, int depth) {
  if (Status st = check_text(text, origin, kProfileLimits); !st.ok()) return st;
  toml::table t;
  auto malformed = [&](const toml::parse_error& e) {
    return Result<Profile>::error(fmt::format("{}:{}: malformed TOML: {}", origin, e.source().begin.line,
                                              e.description()));
  };
#if TOML_EXCEPTIONS
  try {
    t = toml::parse(text, std::string(origin));
  } catch (const toml::parse_error& e) {
    return malformed(e);
  }
#else  // the WebAssembly build (web/) has no exceptions: toml++ returns the error
  toml::parse_result parsed = toml::parse(text, std::string(origin));
  if (!parsed) return malformed(parsed.error());
  t = std::move(parsed).table();
#endif
  return parse_table(t, origin, base, depth);
}

Result<Profile> load_part(std::string_view part, int depth) {
  if (depth > 8) return Result<Profile>::error(fmt::format("profile '{}' includes itself (or nests too deeply)", part));
  for (const auto& b : builtins())
    if (b.name == part) {
      auto p = parse_text_at(b.text, "built-in " + b.path, {}, depth);
      if (p)
        for (Layer l : kLayers)
          if (p->has(l)) {
            LayerProfile lp = *p->layer(l);
            if (lp.origin.starts_with("built-in ")) lp.origin = "built-in";
            p->set_layer(std::move(lp));
          }
      return p;
    }
  fs::path path{std::string(part)};
  std::error_code ec;
  bool looks_like_path = part.find('/') != std::string_view::npos || part.ends_with(".toml");
  if (fs::exists(path, ec) || looks_like_path) {
    // A file, a pipe (`show <(...)`), or something that is not a profile file:
    // say what it is rather than "does not exist".
    if (std::string why = unreadable_reason(path.string()); !why.empty())
      return Result<Profile>::error(fmt::format("profile file '{}' {}{}", excerpt(part), why,
                                                why.starts_with("does not") ? ""
                                                                             : ": give a profile TOML file or a "
                                                                               "built-in name (`streamdisk profiles`)"));
    auto text = read_input(path.string(), "profile file", kProfileLimits);
    if (!text) return text.status();
    return parse_text_at(*text, path.string(), path.parent_path(), depth);
  }
  std::vector<std::string> names;
  for (const auto& b : builtins()) names.push_back(b.name);
  std::string hint = nearest(part, names);
  return Result<Profile>::error(fmt::format("unknown profile '{}'{}; `streamdisk profiles` lists the built-in ones",
                                            excerpt(part), hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
}

// A built-in device profile to name in a hint (one that exists).
std::string example_device_profile() {
  std::string best;
  for (const auto& info : builtin_profiles())
    if (info.layer == Layer::Device && (best.empty() || info.name == "samsung-960evo-250g")) best = info.name;
  return best.empty() ? "DEVICE" : best;
}

}  // namespace

const LayerProfile* Profile::layer(Layer l) const {
  const auto& o = layers_[static_cast<int>(l)];
  return o ? &*o : nullptr;
}

void Profile::set_layer(LayerProfile lp) {
  Layer l = lp.params.layer();
  layers_[static_cast<int>(l)] = std::move(lp);
}

const LayerParams& Profile::params(Layer l) const {
  const auto& o = layers_[static_cast<int>(l)];
  return o ? o->params : defaults_[static_cast<int>(l)];
}

LayerParams& Profile::mutable_params(Layer l) {
  auto& o = layers_[static_cast<int>(l)];
  return o ? o->params : defaults_[static_cast<int>(l)];
}

Status Profile::apply_override(std::string_view assignment) {
  if (assignment.size() > 300)
    return Status::error(fmt::format("--set '{}' is {} characters long: give key=value, e.g. device.sustained_mbps=20",
                                     excerpt(assignment), assignment.size()));
  auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    return Status::error(fmt::format("--set '{}' needs the form key=value, e.g. --set device.sustained_mbps=20",
                                     assignment));
  std::string key(assignment.substr(0, eq));
  std::string value(assignment.substr(eq + 1));
  std::vector<Layer> layers;
  std::string bare = key;
  if (auto dot = key.find('.'); dot != std::string::npos) {
    auto l = layer_from_name(key.substr(0, dot));
    if (!l)
      return Status::error(fmt::format("--set {}: '{}' is not a layer: use host., filesystem. or device.", excerpt(assignment),
                                       key.substr(0, dot)));
    layers = {*l};
    bare = key.substr(dot + 1);
  } else {
    for (Layer l : kLayers)
      if (find_param(l, bare)) layers.push_back(l);
    if (layers.size() > 1)
      return Status::error(fmt::format("--set {}: '{}' exists in several layers: write {}.{} or {}.{}", excerpt(assignment),
                                       bare, layer_name(layers[0]), bare, layer_name(layers[1]), bare));
    if (layers.empty()) {
      std::vector<std::string> all;
      for (const auto& s : param_table()) all.push_back(std::string(layer_name(s.layer)) + "." + std::string(s.key));
      std::vector<std::string> bare_keys;
      for (const auto& s : param_table()) bare_keys.emplace_back(s.key);
      std::string hint = nearest(bare, bare_keys);
      return Status::error(fmt::format("--set: unknown parameter '{}'{}; `streamdisk show --params` lists them", excerpt(bare),
                                       hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
  }
  Layer l = layers[0];
  const ParamSpec* spec = find_param(l, bare);
  if (!spec) return mutable_params(l).set(bare, 0, Origin::Override);  // "did you mean" message
  auto v = parse_param_value(*spec, value);
  if (!v) return Status::error(fmt::format("--set {}: {}", excerpt(assignment), v.message()));
  if (!has(l)) {
    LayerProfile lp;
    lp.name = "(--set)";
    lp.origin = "--set";
    lp.params = LayerParams(l);
    set_layer(std::move(lp));
  }
  Status st = mutable_params(l).set(bare, *v, Origin::Override, "--set on the command line");
  if (!st.ok()) return Status::error(fmt::format("--set: {}", st.message()));
  return {};
}

Status Profile::finish() {
  for (Layer l : kLayers) {
    LayerParams& lp = mutable_params(l);
    std::string where = has(l) ? fmt::format("profile '{}' ({})", layer(l)->name, layer(l)->origin)
                               : fmt::format("profile '{}'", name);
    if (!has(l) && l == Layer::Device)
      return Status::error(fmt::format("profile '{}' has no device layer: add one, e.g. '{}+{}' "
                                       "(`streamdisk profiles` lists the device profiles)", excerpt(name), excerpt(name),
                                       example_device_profile()));
    Status st = lp.finish(where);
    if (!st.ok()) return st;
  }
  const LayerParams& d = params(Layer::Device);
  if (d.get("burst_bytes") > 0 && d.get("burst_mbps") <= 0)
    return Status::error(fmt::format("profile '{}': device.burst_bytes is set but burst_mbps is 0: give the burst "
                                     "cache's write rate (burst_mbps = ...)", name));
  if (d.get("fill_floor") < 1 && d.get("fill_knee") >= 1)
    return Status::error(fmt::format("profile '{}': device.fill_floor < 1 has no effect unless fill_knee < 1", name));
  return {};
}

Result<Profile> parse_profile_text(std::string_view text, std::string_view origin) {
  return parse_text_at(text, origin, {}, 0);
}

Result<Profile> load_profile_unfinished(std::string_view spec) {
  if (spec.empty()) return Result<Profile>::error("empty --profile: name a profile (`streamdisk profiles` lists them)");
  Profile out;
  out.name = std::string(spec);
  std::map<Layer, std::string> set_by;  // which part set each layer explicitly
  int parts = 0;
  for (std::string_view part : split_profile_spec(spec)) {
    if (part.empty())
      return Result<Profile>::error(fmt::format("profile '{}' has an empty part between '+' signs", spec));
    auto p = load_part(part, 0);
    if (!p) return p.status();
    ++parts;
    int layers_here = 0;
    for (Layer l : kLayers) layers_here += p->has(l);
    for (Layer l : kLayers) {
      if (!p->has(l)) continue;
      // Two single-layer parts for the same layer is almost surely a mistake.
      if (layers_here == 1 && set_by.count(l))
        return Result<Profile>::error(fmt::format("profile '{}': the {} layer is given twice ('{}' and '{}')", spec,
                                                  layer_name(l), set_by[l], part));
      if (layers_here == 1) set_by[l] = std::string(part);
      out.set_layer(*p->layer(l));
    }
    if (parts == 1) {  // a single part keeps its own summary and source
      out.summary = p->summary;
      out.source = p->source;
    }
  }
  if (parts > 1) out.summary.clear();
  return out;
}

Result<Profile> load_profile(std::string_view spec, const std::vector<std::string>& overrides) {
  auto p = load_profile_unfinished(spec);
  if (!p) return p;
  for (const auto& o : overrides) {
    Status st = p->apply_override(o);
    if (!st.ok()) return st;
  }
  Status st = p->finish();
  if (!st.ok()) return st;
  return p;
}

std::vector<ProfileInfo> builtin_profiles() {
  std::vector<ProfileInfo> out;
  for (const auto& b : builtins()) {
    auto p = parse_text_at(b.text, "built-in " + b.path, {}, 0);
    ProfileInfo info;
    info.name = b.name;
    if (!p) {
      info.summary = "BROKEN: " + p.message();
      out.push_back(info);
      continue;
    }
    int n = 0;
    std::vector<std::string> names;
    for (Layer l : kLayers)
      if (p->has(l)) {
        ++n;
        info.layer = l;
        names.push_back(p->layer(l)->name);
      }
    if (n == 1) {
      info.summary = p->layer(*info.layer)->summary;
    } else {
      info.layer.reset();
      info.summary = p->summary;
      info.layers = fmt::format("{}", fmt::join(names, "+"));
    }
    out.push_back(info);
  }
  auto rank = [](const ProfileInfo& i) { return i.layer ? static_cast<int>(*i.layer) : -1; };
  std::stable_sort(out.begin(), out.end(), [&](const ProfileInfo& a, const ProfileInfo& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.name < b.name;
  });
  return out;
}

}  // namespace sd
