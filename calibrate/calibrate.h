// streamdisk calibrate: measured traces in, a profile out, with an honest
// account of each fit (value, 95 % band, R², points used, which input).
// Pure library code: it reads the input files and returns values; the CLI
// (cli/cmd_calibrate.cpp) prints them and writes the profile file.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibrate/groups.h"
#include "calibrate/read_fit.h"
#include "models/params.h"
#include "models/status.h"

namespace sd::cal {

struct Options {
  std::vector<std::string> traces;     // native traces (writes and/or reads)
  std::vector<std::string> buffered;   // native traces of buffered writes (or a trace whose writes are, Series::direct)
  std::vector<std::string> baselines;  // the same device under a reference filesystem
  std::vector<std::string> fio_logs;   // fio write_lat_log / clat logs (per I/O)
  std::vector<std::string> fio_json;   // fio --output-format=json
  std::vector<std::string> tables;     // block_bytes,threads,mbps CSV tables
  std::optional<Layer> layer;          // write only this layer
  std::string base;                    // profile whose values fill what no input informs
  std::string name = "calibrated";     // the profile's name
};

// A parameter no input informs, and the sweep that would.
struct Missing {
  std::string key;  // "device.recover_mbps"
  std::string sweep;
};

struct Calibration {
  std::string name;
  std::vector<Estimate> params;  // in table order
  std::vector<Missing> missing;  // in table order, for the layers written
  std::vector<CellFit> read_cells;
  std::vector<std::string> notes;   // what the fits assumed or could not do
  // Paced writes did not meet the pauses flat-out writes met: the stalls are
  // the device's, behind a cache (calibrate/pauses.h), whatever the filesystem.
  bool stalls_behind_cache = false;
  // The pauses were too few to fit (their values are marked estimates and carry no ranges).
  bool stalls_too_few = false;
  std::vector<std::string> inputs;  // every file read
  std::vector<Layer> layers;        // the layers the profile holds
  std::string base;                 // --base, if given
};

// Loads every input, runs each parameter group's fit, and decides what goes
// in the profile. Errors: unreadable or malformed inputs, no usable data.
Result<Calibration> calibrate(const Options& opt);
// The same on inputs already in memory (tests, benchmarks); `inputs` names them.
Result<Calibration> calibrate_loaded(std::vector<Series> series, std::vector<RatePoint> rates,
                                     std::vector<std::string> inputs, const Options& opt);

// The profile TOML (format_version 1, docs/profiles.md): fitted values with
// `source` fields naming the inputs and the fit quality; parameters without
// data appear as comments saying which sweep would inform them. The text is
// checked by loading it back (parse + finish) before it is returned.
// `writer` is the subcommand that writes it ("calibrate", "characterize"):
// the header, summary and source name it.
Result<std::string> profile_toml(const Calibration& c, std::string_view writer);

// What would inform `layer.key` (for "not fitted" lines).
std::string sweep_for(Layer layer, std::string_view key);

}  // namespace sd::cal
