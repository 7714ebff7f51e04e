// Command-line options describing a recording (channels, rate, width, format,
// buffer...), shared by `simulate`, `capacity` and `record`; the values and
// their translation into a RecorderConfig live in sim/recording_options.h.
#pragma once
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/recorder.h"
#include "sim/recording_options.h"

namespace sd::cli {

// Adds the options; `channels_option` false leaves --channels to the caller.
void add_recording_options(CLI::App& sub, RecordingArgs& a, bool channels_option = true);

// The human report rows simulate and record share, printed as "  key   value".
void print_report_row(std::string_view key, const std::string& value);
std::string written_text(const RecorderResult& r);
// overruns, peak buffer, slowest block: the outcome of a recording.
void print_outcome_rows(const RecorderResult& r);

}  // namespace sd::cli
