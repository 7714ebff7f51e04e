// The model options a user gives as text on the command line (or the lesson
// page): --capacity, --prefill (mount, replay) or --fill (simulate, the
// lesson page) and --seed. One parser for every command, so "85%", "0.85"
// and "10GB" mean the same device wherever they are given.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"

namespace sd {

struct ModelArgs {
  std::string capacity;  // a size ("16GB", "512MiB") that replaces the profile's; empty: keep
  // How full the device is at the start: a fraction ("85%", "0.85") of the
  // capacity or a size with its unit ("10GB"); a bare "85" is refused as
  // ambiguous. Empty: keep.
  std::string prefill;
  std::optional<uint64_t> seed;  // the stalls' seed; nullopt: keep
  // The options' names, for messages: the prefill is `--fill` in simulate;
  // empty `capacity_option`: the command has none (the fix is a --set).
  std::string prefill_option = "--prefill";
  std::string capacity_option = "--capacity";
};

// `base` with `a` applied for profile `p`. The capacity a prefill fraction
// refers to (and may not exceed) is --capacity, else base's (a trace's
// header), else the profile's. Errors name the option, the value and the fix.
Result<ModelOptions> apply_model_args(const ModelArgs& a, const Profile& p, ModelOptions base = {});

}  // namespace sd
