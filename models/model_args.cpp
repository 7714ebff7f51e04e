#include "models/model_args.h"

#include <fmt/format.h>

#include "models/units.h"

namespace sd {

Result<ModelOptions> apply_model_args(const ModelArgs& a, const Profile& p, ModelOptions m) {
  using R = Result<ModelOptions>;
  if (a.seed) m.seed = *a.seed;
  if (!a.capacity.empty()) {
    auto c = parse_size(a.capacity);
    if (!c || *c <= 0)
      return R::error(fmt::format("{} {}: give a size such as 16GB or 512MiB", a.capacity_option, a.capacity));
    m.capacity_bytes = *c;
  }
  if (a.prefill.empty()) return m;
  const std::string& opt = a.prefill_option;
  // "85%" and "0.85" are fractions, "10GB" a size; a bare "85" is ambiguous.
  bool has_unit = a.prefill.find_first_not_of("0123456789.") != std::string::npos;
  bool percent = a.prefill.find('%') != std::string::npos;
  bool fraction = percent || !has_unit;
  auto v = fraction ? parse_fraction(a.prefill) : parse_size(a.prefill);
  if (!v)
    return R::error(percent ? fmt::format("{} {}: {}", opt, a.prefill, v.message())
                            : fmt::format("{} {}: give a fraction (85% or 0.85) or a size with its unit (10GB)", opt,
                                          a.prefill));
  double cap = m.capacity_bytes >= 0 ? m.capacity_bytes : p.params(Layer::Device).get("capacity_bytes");
  if (cap <= 0 && *v > 0)
    return R::error(a.capacity_option.empty()
                        ? fmt::format("{} needs a device capacity, and profile '{}' has none: add --set "
                                      "device.capacity_bytes=64GB",
                                      opt, p.name)
                        : fmt::format("{} needs a capacity: the profile has none, so give {} too (e.g. 16GB)", opt,
                                      a.capacity_option));
  double bytes = fraction ? *v * cap : *v;
  if (bytes > cap)
    return R::error(fmt::format("{} {} is more than the capacity ({}): give at most 100%", opt, a.prefill,
                                format_size(cap)));
  m.prefill_bytes = bytes;
  return m;
}

}  // namespace sd
