// A capacity search's results for the user (STYLE.md 8: the CLI only wires
// options to these): the JSON document (format streamdisk-capacity,
// docs/formats.md) and the human tables, one row per profile.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/status.h"
#include "sim/capacity.h"
#include "sim/recorder.h"
#include "sim/spread.h"

namespace sd {

// "channels", "sample-rate", "buffer" (capacity --find) and back.
std::string_view capacity_target_name(CapacityTarget t);
Result<CapacityTarget> capacity_target_from_name(std::string_view name);

// One profile's answer, with its spread unless --no-spread.
struct CapacityRow {
  std::string profile;
  CapacityResult result;
  std::optional<Spread> spread;
};

// Every profile's answer for one recording and criterion.
struct CapacityTable {
  CapacityTarget target = CapacityTarget::Channels;
  CapacityCriterion criterion;
  RecorderConfig recording;  // the searched quantity is the answer's, not this
  bool with_spread = true;   // the rows carry spreads (the spread table is shown)
  double enough = 0;         // CapacityQuery::enough of every search (0: none)
  std::vector<CapacityRow> rows;
};

// Best first: most channels or highest rate; smallest buffer; stable, and
// profiles without an answer last (a buyer's table, capacity --sort).
void sort_best_first(CapacityTable& t);
// The whole result as JSON: the recording, the criterion, one entry per row.
nlohmann::json capacity_json(const CapacityTable& t);
// The human report: the recording and criterion, a row per profile, the
// spread table and the probes when there are any. Ends with a newline.
std::string capacity_text(const CapacityTable& t);

}  // namespace sd
