// The Profile type: its layers, --set overrides and the checks across
// parameters. Loading: profile_compose.cpp (specs), profile_toml.cpp (TOML),
// profile_builtins.cpp (the built-in registry).
#include "models/profile.h"

#include <fmt/format.h>

#include "models/input.h"
#include "models/profile_internal.h"

namespace sd {

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
                                       profile_detail::example_device_profile()));
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

}  // namespace sd
