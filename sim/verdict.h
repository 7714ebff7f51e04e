// Human verdicts on a recording result, shared by simulate, capacity and
// (later) record so that every command says the same thing the same way.
#pragma once
#include <string>
#include <vector>

#include "sim/recorder.h"

namespace sd {

// True when every acquired sample reached the file: no overrun, no early stop.
bool recording_ok(const RecorderResult& r);
// One line: "OK: ...", "OVERRUNS: ..." or "FAILS: ...".
std::string verdict_line(const RecorderConfig& c, const RecorderResult& r);
// Problems that do not lose samples in this run but matter (WAV over 2 GiB).
std::vector<std::string> recording_warnings(const RecorderConfig& c, const RecorderResult& r);

}  // namespace sd
