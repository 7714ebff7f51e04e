// calibrate's results for the user (STYLE.md 8: the CLI only wires options to
// these): the fit report as JSON (format streamdisk-calibrate,
// docs/formats.md) and as a table.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "calibrate/calibrate.h"

namespace sd::cal {

// `profile_path`: the file the profile was written to (-o), empty if none.
nlohmann::json calibration_json(const Calibration& c, const std::string& profile_path);
// Every parameter with its band and fit, what was not fitted, read cells off
// the model, notes. Ends with a newline.
std::string calibration_text(const Calibration& c, const std::string& profile_path);

}  // namespace sd::cal
