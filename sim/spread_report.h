// How simulate, capacity and show report an answer with its spread
// (sim/spread.h): one text line and one JSON object, the same in each.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/spread.h"

namespace sd {

// Formats an answer value ("6 channels", "62.5 MHz", "5.9 MB/s").
using ValueText = std::function<std::string(double)>;

// "2 - 10 channels, most likely 6 channels"
std::string spread_range_text(const Spread& s, const ValueText& value);
// "filesystem.stall_duration_ms (600 ... 1000 ms) decides most of the spread: 4 - 10 channels alone;
//  measure it with streamdisk characterize: phases paced-..." or "no estimated parameter moves it".
std::string spread_decisive_text(const Spread& s, const ValueText& value);
// {"most_likely", "low", "high", "method", "evaluations", "decisive": {...} | null,
//  "sensitivities": [{"parameter", "value", "range", "answer_at_low", "answer_at_high", "swing", "measured_by"}]}
nlohmann::json spread_json(const Spread& s);

}  // namespace sd
