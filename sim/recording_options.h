// A recording described the way a user gives it (channels, rate, width,
// format, buffer...), as strings with units ("48k", "1MiB", "1.5h"), and its
// translation into a RecorderConfig and ModelOptions. One translation for the
// command line (cli/recording_args.h adds the options) and the lesson page
// (web/), so both run the same recording for the same settings.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"
#include "sim/recorder.h"

namespace sd {

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
  std::string fill;          // device fill level at the start: "50%", or a size (models/model_args.h)
  std::string split;         // start new files at this size; empty: never
  bool direct = false;
  bool fsync = false;
  uint64_t seed = 1;
};

// Parses everything except the channel count when `channels_override` >= 1.
// Messages name the command-line option ("--buffer 1MiX: ...").
Result<RecorderConfig> recorder_config(const RecordingArgs& a, long channels_override = 0);
// Model options (seed, fill level) for a profile.
Result<ModelOptions> model_options(const RecordingArgs& a, const Profile& p);
// "48 ch x 48 kHz x 16-bit = 4.61 MB/s"
std::string stream_text(const StreamSpec& s);

// The JSON keys simulate, record and the lesson page share (so their outputs
// compare key by key); each adds its own ("format", profile and seed, paths...).
nlohmann::json recording_json(const RecorderConfig& c, const RecorderResult& r);

}  // namespace sd
