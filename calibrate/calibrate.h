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
#include "calibrate/pauses.h"
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
  // The block device's own activity over the traces' time (characterize
  // samples its stat file; the same clock as the traces' times), and how
  // often it was read: the pauses the writes met then take their lengths
  // from the device's own stops (calibrate/pauses.h apply_device_lengths).
  std::vector<BlockSample> device_activity;
  double device_period_s = 0;
  std::string device_activity_file;  // or from this file (calibrate --device-activity)
  // > 0: the traces went through a kernel filesystem with a journal the model
  // runs, whatever their headers say (calibrate --journal-commit-ms: traces
  // written before they carried journal_commit_ms).
  double journal_commit_ms = 0;
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
  // With the device's own activity (Options::device_activity): how many of
  // the pauses the writes met took the device's length, and the medians of
  // those pauses' lengths, the device's and the writes' own; and what the
  // scan of that activity found (calibrate/pauses.h DevicePauseScan): its
  // busy gaps, their time and rate, its threshold and the stops over it.
  struct DeviceLengths {
    bool measured = false;
    size_t matched = 0, pauses = 0;
    double device_median_ms = 0, writes_median_ms = 0;
    size_t busy_gaps = 0;
    double busy_s = 0, rate = 0, threshold_s = 0;
    struct Stop {
      double at_s = 0, length_s = 0;  // the completion before it (the traces' clock), its excess
    };
    std::vector<Stop> stops;
  } device_lengths;
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

// The fitted value of `key` ("device.sustained_mbps") in `c`, or null.
Estimate* find_estimate(Calibration& c, const std::string& key);

}  // namespace sd::cal
