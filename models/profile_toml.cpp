// Profiles from TOML text (format_version 1, docs/profiles.md): a layer file,
// or a composite naming or inlining its layers.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "models/input.h"
#include "models/profile_internal.h"
#include "models/units.h"

namespace sd {
namespace profile_detail {
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
      p.files.insert(p.files.end(), sub->files.begin(), sub->files.end());
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

}  // namespace

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

}  // namespace profile_detail

Result<Profile> parse_profile_text(std::string_view text, std::string_view origin) {
  return profile_detail::parse_text_at(text, origin, {}, 0);
}

}  // namespace sd
