// measure's and characterize's results for the user (STYLE.md 8: the CLI
// only wires options to these): the JSON documents (formats
// streamdisk-measure and streamdisk-characterize, docs/formats.md) and the
// human reports.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "measure/characterize.h"
#include "measure/measure.h"

namespace sd {

// One sweep: its table, summary, notes and the first error.
nlohmann::json measure_json(const MeasureReport& r);
// The sweep's table, summary and notes. Ends with a newline.
std::string measure_text(const MeasureReport& r);

// `profile_path`: the file the profile was written to (-o), empty if none.
nlohmann::json characterize_json(const CharacterizeReport& r, const std::string& profile_path);
// What was measured, the parameters found and the headline rate. Ends with a newline.
std::string characterize_text(const CharacterizeReport& r, const std::string& profile_path);

}  // namespace sd
