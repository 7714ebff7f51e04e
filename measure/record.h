// `streamdisk record DIR`: the simulator's recorder (sim/recorder.h) in wall
// time on a RealDevice, writing real files in the chosen format, filled with
// a reference signal that readers can check sample by sample. It reports the
// same RecorderResult as `simulate`, so the two compare line by line.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/fault.h"
#include "models/status.h"
#include "sim/recorder.h"

namespace sd {

// The reference signal: channel c (0-based), frame n. An integer sample of
// `bits` bits (signed, as stored in every format but 8-bit WAV, which stores
// it + 128), or for float streams a value in [-1, 1). Channels differ, so a
// reader that swaps or drops channels is caught.
int64_t reference_sample(uint32_t channel, uint64_t frame, uint32_t bits);
double reference_sample_float(uint32_t channel, uint64_t frame);

struct RecordOptions {
  std::string dir;                 // existing directory; files are named from rec.base_name
  RecorderConfig rec;
  std::string trace_path;          // native trace CSV ("" none)
  std::vector<std::string> trace_inputs;  // files the trace must not be (--faults FILE)
  std::string command_line;        // recorded in the trace header
  std::function<void(double)> progress;  // fraction of the acquisition done
  const std::atomic<bool>* cancel = nullptr;  // set (Ctrl-C): stop, remove the partial files
  // A line for the user: a partial file left in place when removing it,
  // because another program's file took its name (measure/real_device.h).
  std::function<void(const std::string&)> warn;
  // Faults between the recorder and the real device (models/fault.h): an
  // errno fault means the write never reaches the file.
  std::vector<FaultSpec> faults;
};

struct RecordReport {
  RecorderResult result;
  std::vector<std::string> paths;  // the files written, full paths
  bool direct_used = false;
  std::vector<std::string> notes;  // O_DIRECT fallback...
  bool cancelled = false;          // interrupted: the partial files were removed
  std::string output_error;        // the trace or sidecar could not be written: the CLI exits 1
  std::vector<FaultEvent> fault_events;  // what opt.faults did
};

// Bad input (missing directory, an output file that exists, not enough free
// space, a format that cannot hold the stream) fails before any file is
// created; the message names the problem and the fix.
Result<RecordReport> run_record(const RecordOptions& opt);

}  // namespace sd
