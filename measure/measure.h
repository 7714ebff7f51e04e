// `streamdisk measure`: runs one sweep (sim/sweeps.h) against real storage
// (RealDevice on a RealClock) or, with a profile, against the model in
// virtual time, and returns a report the CLI prints as a table or JSON.
// The same sweep code runs in both cases (DESIGN.md "One idea").
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/status.h"
#include "sim/sweeps.h"

namespace sd {

enum class SweepKind { BlockSize, Threads, Sustained, Fill, Formats };
std::string_view sweep_name(SweepKind k);
std::optional<SweepKind> sweep_from_name(std::string_view s);

inline constexpr double kMaxFillTo = 0.95;  // the fill sweep never goes above this

struct MeasureConfig {
  SweepKind sweep = SweepKind::BlockSize;
  std::string path;          // directory on the storage to measure (empty: use `profile`)
  std::string profile;       // run the sweep on this profile in virtual time instead
  std::vector<std::string> sets;  // --set overrides for the profile
  bool direct = false;
  FsyncMode fsync = FsyncMode::End;
  std::vector<uint64_t> blocks;   // empty: the sweep's default
  std::vector<int> threads;       // empty: 1..4
  double seconds = 0;             // per point (0: the sweep's quick default)
  double size = 0;                // bytes cap per point / file (0: quick default)
  double fill_to = 0;             // fill sweep: required, <= kMaxFillTo
  double fill_step = 0;           // fill sweep: bytes per step (0: 5 % of capacity)
  std::vector<FormatKind> formats;  // formats sweep (empty: raw, tdms, w64)
  std::vector<uint32_t> channels;   // formats sweep (empty: 4, 8, 16, 32)
  uint32_t sample_bits = 16;        // formats sweep
  bool until_steady = false;      // sustained
  double window = 0.5;            // sustained: rate window (s)
  std::string trace_path;         // native trace CSV ("" none, "-" stdout)
  std::vector<std::string> trace_inputs;  // files the trace must not be (the profile's TOML files)
  std::string command_line;       // recorded in the trace header
  std::function<void(const SweepProgress&)> progress;
  // A line for the user while the sweep goes on: a test file left in place
  // because another program's file took its name (measure/real_device.h).
  std::function<void(const std::string&)> warn;
  const std::atomic<bool>* cancel = nullptr;
};

struct MeasureReport {
  SweepKind sweep = SweepKind::BlockSize;
  std::string target;              // the directory, or "model:<profile>"
  bool direct_requested = false, direct_used = false;
  std::string fsync;
  std::vector<std::string> notes;  // fallbacks, cache dropping, errors per point
  SweepTable table;
  std::vector<std::pair<std::string, double>> summary;  // named figures (units in the names)
  int error = 0;  // first errno that cut a point or the run short (the CLI exits 1)
  bool cancelled = false;
  std::string output_error;  // the trace could not be written (disk full...): the CLI exits 1
};

// Errors are bad input (missing directory, not enough free space, fill target
// refused, unknown profile): the message names the problem and the fix.
Result<MeasureReport> run_measure(const MeasureConfig& cfg);

}  // namespace sd
