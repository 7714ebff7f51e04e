// Profiles: a stack of up to three layers (host, filesystem, device), each a
// named set of parameters from the table in params.h, loaded from TOML.
//
//   streamdisk ... --profile rpi4-buster+exfat-fuse+sandisk-ultrafit-16g
//   streamdisk ... --profile ./my-device.toml --set device.sustained_mbps=20
//
// A spec is one or more parts joined by '+'. A part is a built-in name (see
// `streamdisk profiles`) or a path to a TOML file; a composite profile sets
// several layers, and later parts replace the layers they set. The format is
// described in docs/profiles.md (format_version 1).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/params.h"
#include "models/status.h"

namespace sd {

inline constexpr int kProfileFormatVersion = 1;

struct LayerProfile {
  std::string name;     // "sandisk-ultrafit-16g", or "inline" inside a composite
  std::string summary;  // one line for `profiles`
  std::string source;   // where the layer's figures come from, overall
  std::string origin;   // "built-in" or the file path it was read from
  LayerParams params;
};

class Profile {
 public:
  std::string name;     // the spec as given, or the composite's name
  std::string summary;
  std::string source;   // a composite's own notes
  // Every profile file it was read from: the spec's file parts and the files
  // a composite file names for its layers (a command's output must be none of them).
  std::vector<std::string> files;

  bool has(Layer l) const { return layers_[static_cast<int>(l)].has_value(); }
  const LayerProfile* layer(Layer l) const;
  void set_layer(LayerProfile lp);
  // A layer's parameters; an absent layer yields the table's defaults (which
  // add no cost). Only valid after finish().
  const LayerParams& params(Layer l) const;
  LayerParams& mutable_params(Layer l);  // for overrides, before finish()

  // Applies "key=value" (key is "layer.key", or a bare key if only one layer has it).
  Status apply_override(std::string_view assignment);
  // Fills defaults and checks cross-parameter rules; call once after loading.
  Status finish();

 private:
  std::optional<LayerProfile> layers_[3];
  LayerParams defaults_[3] = {LayerParams(Layer::Host), LayerParams(Layer::Filesystem), LayerParams(Layer::Device)};
};

// A spec's parts, split at each '+' ("a++b" gives an empty part).
std::vector<std::string_view> split_profile_spec(std::string_view spec);
// Expands glob parts ("rpi4-*+exfat-*+sandisk-*") over the built-in names,
// keeping specs without a glob as they are. Alone, a glob names whole stacks
// (composites, devices); inside HOST+FS+DEVICE each part names one layer, and
// combinations that set a layer twice are left out. An error names the spec
// (as --profile) when a part matches nothing.
Result<std::vector<std::string>> expand_profile_globs(const std::vector<std::string>& specs);

// Loads a spec (see above), without finishing it, so overrides can follow.
Result<Profile> load_profile_unfinished(std::string_view spec);
// Loads, applies `overrides` ("key=value"), finishes. What the CLI calls.
Result<Profile> load_profile(std::string_view spec, const std::vector<std::string>& overrides = {});
// Parses TOML text; `origin` names the text in messages.
Result<Profile> parse_profile_text(std::string_view text, std::string_view origin);

struct ProfileInfo {
  std::string name;
  std::optional<Layer> layer;  // nullopt: a composite
  std::string summary;
  std::string layers;          // for composites: "host+filesystem+device" names
};
// Every built-in profile, sorted by layer then name.
std::vector<ProfileInfo> builtin_profiles();

}  // namespace sd
