// A replay's results for the user (STYLE.md 8: the CLI only wires options to
// these): the JSON document (format streamdisk-replay, docs/formats.md), the
// human table with its verdict, and the replay itself as a native trace.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/trace.h"
#include "replay/ops.h"
#include "replay/replayer.h"

namespace sd {

// One device a trace was replayed on.
struct ReplayResult {
  std::string kind;  // "profile" (a model in virtual time) or "path" (--target: real storage)
  std::string name;  // the profile's name, or the directory
  ReplayStats s;
};

// The whole result as JSON: the trace, the options and one entry per device.
nlohmann::json replay_json(const OpList& ops, const ReplayOptions& o, const std::vector<ReplayResult>& rows,
                           uint64_t seed);
// The human report: what the trace holds, a table with a row per device and
// (unless as fast as possible) a one-line verdict. Ends with a newline.
std::string replay_text(const OpList& ops, const ReplayOptions& o, const std::vector<ReplayResult>& rows);
// The replay as a native trace: issue and completion of every op of `ops`.
void write_replay_trace(TraceWriter& w, const OpList& ops, const ReplayRun& run);

}  // namespace sd
