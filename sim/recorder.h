// The recorder workload: what a multitrack audio or DAQ recorder does, run
// against any Device on any Clock (STYLE.md 1-2). With a ModelDevice and a
// VirtualClock it is the simulator; with a real device and a RealClock it is
// `record`.
//
//   producer  delivers `period_frames` frames every period_frames / rate
//             seconds, exactly (delivery k at start + k * period / rate);
//   ring      holds up to buffer_bytes of frames; a delivery that finds no
//             room for the whole period is dropped (an overrun);
//   writer    waits for a block of frames, turns it into the format's writes
//             (layout, sim/format.h), issues them one after the other and
//             frees the block's space when the last write returns.
//
// The producer is a function of the clock, not a thread: the writer accounts
// for every delivery up to "now" each time it looks (deliveries between two
// looks only add, so drops are exact). That keeps a 1.5 h simulation at a few
// operations per written block and lets the same code run in wall time.
//
// Overruns are counted as recorders report them: an *event* is a run of
// consecutive dropped periods (it ends when a period fits again); the result
// also gives the dropped periods, the samples lost and when the first began.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/device.h"
#include "models/status.h"
#include "models/trace.h"
#include "sim/format.h"

namespace sd {

struct RecorderConfig {
  StreamSpec stream;
  FormatKind format = FormatKind::Raw;
  std::string base_name = "rec";
  double duration_s = 60;           // acquisition time
  uint64_t buffer_bytes = 1 << 20;  // ring buffer
  uint64_t block_bytes = 0;         // writer's drain size; 0 = buffer / 2 (double buffering)
  uint64_t period_frames = 0;       // producer's delivery size; 0 = min(1024, buffer frames / 8)
  uint64_t header_every_frames = 0; // rewrite the header this often (0 = only at the end)
  uint64_t split_bytes = 0;         // start new files before the main one passes this (0 = never)
  bool direct = false;              // O_DIRECT writes
  bool fsync_at_end = false;
  bool stop_at_first_overrun = false;  // capacity searches only need "any overrun?"
  FileId first_file_id = 1;            // files get ids first_file_id, +1, ...
  // On a ModelDevice in virtual time, step over steady stretches (each
  // block's write costing the same and the model behind it idle by the next
  // one: ModelDevice::steady_writes) instead of submitting every write; the
  // result is the same bit for bit. false: every write through the model
  // (tests compare the two).
  bool step_steady = true;
};

// Supplies payload bytes for a real device (record); null in simulation.
class PayloadSource {
 public:
  virtual ~PayloadSource() = default;
  // Returns w.bytes bytes for payload write `w`, valid until the next call.
  virtual const void* fill(const FormatWrite& w) = 0;
};

// The recording's state after each block is written (for plots: web/).
struct RecorderSample {
  double t_s = 0;                 // seconds after the start
  uint64_t frames_delivered = 0;  // by the producer so far, dropped ones included
  uint64_t frames_written = 0;    // handed to the format layout so far
  uint64_t ring_frames = 0;       // in the ring just before this block's space was freed
  uint64_t dropped_periods = 0;   // so far
};

struct RecorderHooks {
  TraceWriter* trace = nullptr;           // one row per operation
  PayloadSource* payload = nullptr;       // real devices only
  std::function<void(double)> progress;   // fraction of the acquisition done, ~every 1 %
  std::function<void(const RecorderSample&)> sample;  // after every block written whole
  // Called before each file's Create with its id and the layout's name for it
  // (a split recording names its parts as it goes); record names its files.
  std::function<void(FileId, const std::string&)> naming;
  // Once set (Ctrl-C), the recording stops at once, even between blocks. Not owned.
  const std::atomic<bool>* cancel = nullptr;
};

struct RecordedFile {
  std::string name;
  uint64_t bytes = 0;
};

struct RecorderResult {
  double start_s = 0;       // clock time the acquisition started (after files were opened)
  double end_s = 0;         // clock time the last operation (close) returned
  double data_rate = 0;     // bytes/s the producer delivers
  uint64_t frames_total = 0;        // frames acquired over the duration
  uint64_t frames_written = 0;      // frames handed to the format layout
  uint64_t frames_lost = 0;         // frames dropped by overruns
  uint64_t frames_not_written = 0;  // frames acquired after the recording stopped (limit, error)
  uint64_t overrun_events = 0;
  uint64_t dropped_periods = 0;
  std::optional<double> first_overrun_s;  // seconds after the start
  uint64_t peak_buffer_bytes = 0;
  uint64_t buffer_bytes = 0, block_bytes = 0, period_frames = 0;  // as used
  uint64_t ops = 0, payload_bytes = 0, other_bytes = 0;  // written by the recorder
  double max_block_s = 0;  // longest time to write one block (all its operations)
  uint64_t stepped_ops = 0;  // of ops, writes stepped over (RecorderConfig::step_steady)
  std::vector<RecordedFile> files;
  // Why the recording stopped early, if it did ("FAT32 max file size (EFBIG)").
  std::string stopped_reason;
  std::optional<double> stopped_s;  // seconds after the start
  int stop_errno = 0;
  bool aborted_at_overrun = false;  // stop_at_first_overrun ended it
  uint64_t samples_lost() const { return frames_lost * channels; }
  uint32_t channels = 1;
};

// Checks the configuration (sizes against the frame size); messages name the option.
Status check_recorder(const RecorderConfig& cfg);

// Runs a whole recording. Errors are for bad configurations only; device
// errors (EFBIG, ENOSPC) end the recording and are reported in the result.
Result<RecorderResult> run_recorder(Device& dev, Clock& clock, const RecorderConfig& cfg,
                                    const RecorderHooks& hooks = {});

}  // namespace sd
