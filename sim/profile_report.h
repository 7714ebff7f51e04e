// What `show` says about a profile (STYLE.md 8: the CLI only wires options to
// these): its layers and parameters with their origins, and the write rates
// the model predicts (models/analytic.h), with the sustained rate's spread
// over the estimates' ranges; as JSON (format streamdisk-show,
// docs/formats.md) and as text. Also `show --params`, the parameter table,
// and `profiles`, the list of built-in profiles.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/profile.h"
#include "sim/spread.h"

namespace sd {

// The sustained rate (1 MiB blocks, what a long recording gets) over the
// ranges of the profile's estimates, at device fill level `fill` (0..1).
Spread sustained_spread(const Profile& p, double fill);

nlohmann::json profile_json(const Profile& p, double fill);
// Ends with a newline.
std::string profile_text(const Profile& p, double fill);
// Every model parameter: unit, default, allowed range, meaning. Ends with a blank line.
std::string param_table_text();

// The built-in profiles (models/profile.h builtin_profiles): a JSON array of
// {name, layer ("composite" for a stack), summary, layers}, and the text list
// grouped by layer. The text ends with a newline.
nlohmann::json profiles_json(const std::vector<ProfileInfo>& list);
std::string profiles_text(const std::vector<ProfileInfo>& list);

}  // namespace sd
