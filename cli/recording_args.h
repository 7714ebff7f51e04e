// Options describing a recording (channels, rate, width, format, buffer...),
// shared by `simulate` and `capacity`, and their translation into a
// RecorderConfig. Values stay strings until parsed so sizes and durations
// accept units ("1MiB", "1.5h").
#pragma once
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/model_device.h"
#include "models/status.h"
#include "sim/recorder.h"

namespace sd::cli {

struct RecordingArgs {
  std::string channels = "1";
  std::string sample_rate = "48k";
  std::string sample_bits = "16";
  bool is_float = false;
  std::string format = "raw";
  std::string buffer = "1MiB";
  std::string block;         // empty: buffer / 2
  std::string period;        // frames; empty: automatic
  std::string duration = "60s";
  std::string header_every;  // a duration; empty: only at the end
  std::string fill;          // device fill level at the start, "50%"
  std::string split;         // start new files at this size; empty: never
  bool direct = false;
  bool fsync = false;
  uint64_t seed = 1;
};

// Adds the options; `channels_option` false leaves --channels to the caller.
void add_recording_options(CLI::App& sub, RecordingArgs& a, bool channels_option = true);
// Parses everything except --channels when `channels_override` >= 1.
Result<RecorderConfig> recorder_config(const RecordingArgs& a, long channels_override = 0);
// Model options (seed, fill level) for a profile.
Result<ModelOptions> model_options(const RecordingArgs& a, const Profile& p);
// "48 ch x 48 kHz x 16-bit = 4.61 MB/s"
std::string stream_text(const StreamSpec& s);

// The JSON keys simulate and record share (so their outputs compare line by
// line); each command adds its own ("format", profile and seed, paths...).
nlohmann::json recording_json(const RecorderConfig& c, const RecorderResult& r);

// The human report rows simulate and record share, printed as "  key   value".
void print_report_row(std::string_view key, const std::string& value);
std::string written_text(const RecorderResult& r);
// overruns, peak buffer, slowest block: the outcome of a recording.
void print_outcome_rows(const RecorderResult& r);

}  // namespace sd::cli
