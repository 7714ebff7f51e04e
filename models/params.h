// The declarative parameter table (STYLE.md 4, after fio's struct fio_option).
// One row per model parameter: layer, key (unit in the name), unit, default,
// allowed range, help. The same table drives TOML loading, validation,
// `--set key=value` overrides, `show`, JSON output and "did you mean".
#pragma once
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/status.h"

namespace sd {

enum class Layer { Host = 0, Filesystem = 1, Device = 2 };
inline constexpr std::array<Layer, 3> kLayers = {Layer::Host, Layer::Filesystem, Layer::Device};
std::string_view layer_name(Layer l);
std::optional<Layer> layer_from_name(std::string_view s);

// How a value is typed and shown. Values are stored in the unit the key names.
enum class Unit { Bytes, MBps, Microseconds, Milliseconds, MegaBytes, Fraction, Count, Ratio, Flag };
std::string_view unit_name(Unit u);  // "bytes", "MB/s", "us", ...

struct ParamSpec {
  Layer layer;
  std::string_view key;
  Unit unit;
  std::optional<double> default_value;  // nullopt: required in a layer that is present
  double min;                           // inclusive
  double max;                           // inclusive
  std::string_view help;
};

// The whole table, and lookups into it.
std::span<const ParamSpec> param_table();
std::vector<const ParamSpec*> params_of(Layer l);
const ParamSpec* find_param(Layer l, std::string_view key);

// Nearest key among `candidates` by edit distance, for "did you mean"; empty if
// nothing is reasonably close.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// Where a value came from, for `show`.
enum class Origin { Profile, Default, Override };

struct ParamValue {
  double value = 0;
  Origin origin = Origin::Default;
  std::string source;     // citation from the profile, or empty
  bool estimate = false;  // the profile marks this figure as a guess
  // What the profile's observations allow, lo <= value <= hi (docs/profiles.md,
  // "Ranges"); sim/spread.h propagates it. A --set value has none: it is pinned.
  std::optional<std::pair<double, double>> range;
};

// The values of one layer, indexed like params_of(layer).
class LayerParams {
 public:
  LayerParams() = default;
  explicit LayerParams(Layer l);
  Layer layer() const { return layer_; }
  // Value by key; the key must exist in the table (internal invariant).
  double get(std::string_view key) const;
  const ParamValue& entry(std::string_view key) const;
  ParamValue& entry(std::string_view key);
  bool has(std::string_view key) const;  // set by a profile or override (not defaulted)
  // Sets a value after checking its range; the message names the key and the range.
  Status set(std::string_view key, double v, Origin origin, std::string source = {}, bool estimate = false);
  // Gives a set value the range [lo, hi] its estimate may take; checks that
  // the range holds the value and lies in the table's bounds.
  Status set_range(std::string_view key, double lo, double hi);
  // Fills defaults; fails naming the first required key with no value.
  Status finish(std::string_view where);
  const std::vector<const ParamSpec*>& specs() const { return specs_; }

 private:
  Layer layer_ = Layer::Device;
  std::vector<const ParamSpec*> specs_;
  std::vector<ParamValue> values_;
  std::vector<bool> present_;
};

// Numbers in overrides and TOML may carry the unit of their key: "16GB" for
// bytes, "300MB/s" for MB/s, "85%" for fractions, "5ms" for us/ms; a bare
// number is in the key's unit.
Result<double> parse_param_value(const ParamSpec& spec, std::string_view text);

// "value 2 is outside the allowed range 0..1 for device.fill_knee (fraction)".
std::string range_text(const ParamSpec& s);

}  // namespace sd
