// The mount's summary at unmount, for the user (STYLE.md 8: the CLI only
// wires options to these): as JSON (format streamdisk-mount-summary,
// docs/formats.md) and as the lines mount prints on stderr.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "fusefs/mount.h"

namespace sd::fusefs {

// `profile`: the profile's name as given.
nlohmann::json summary_json(const MountSummary& s, const std::string& profile);
// Traffic, errors, stalls, fill, reply lateness, and what a power loss left.
// Ends with a newline.
std::string summary_text(const MountSummary& s);

}  // namespace sd::fusefs
