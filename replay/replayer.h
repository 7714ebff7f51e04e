// The replayer: issues an OpList's operations against any Device on any Clock
// (STYLE.md 1-2): a ModelDevice on a VirtualClock for "would this device have
// kept up?", a RealDevice (measure/) on a RealClock for a wall-clock replay
// on real storage. Each recorded thread is synchronous, as the recorder was: its next
// op is issued at its recorded time, or when its previous op completes if the
// device is late (that lateness is "behind schedule").
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/device.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "replay/ops.h"

namespace sd {

struct ReplayOptions {
  bool as_fast_as_possible = false;  // ignore recorded times: each thread back to back
  bool open_loop = false;            // issue every op at its recorded time, even while the thread's
                                     // previous op is still in flight (a FUSE mount's trace: the
                                     // kernel overlaps requests)
  double time_scale = 1.0;           // recorded times are multiplied by this (0.5: twice as fast)
  double resolution_s = 1e-9;        // a gap shorter than this (the native trace's precision) is no gap
  double buffer_bytes = -1;          // the recorder's buffer, for the verdict; < 0: unknown
  double tolerance_s = 0.010;        // without a buffer: kept up if never later than this
  size_t timeline_points = 400;      // samples kept for plots
  std::function<void(size_t done, size_t total)> progress;  // may be empty
  const std::atomic<bool>* cancel = nullptr;  // once set (Ctrl-C), no further op is issued. Not owned.
};

struct OpOutcome {
  double sched = 0, issue = 0, done = 0;  // seconds; sched is the recorded time (scaled)
  int error = 0;
  uint64_t bytes = 0;  // bytes the device wrote or read (short on ENOSPC, EFBIG...)
  bool direct = false;  // done through O_DIRECT (Completion::direct)
};

// The first operation that failed, for the table and JSON.
struct FirstError {
  size_t op = 0;        // index into the list
  double t = 0;         // when it was issued (s)
  std::string kind;     // "write"
  std::string file;
  std::string error;    // "ENOSPC", or "short write" (fewer bytes than asked, no errno)
};

struct TimelinePoint {
  double t = 0;                // seconds
  double buffered_bytes = 0;   // the most data waiting in the recorder's buffer during the bin before t
  double written_bytes = 0;    // bytes whose writes completed by t
  double scheduled_bytes = 0;  // bytes the recorder had produced by t (recorded schedule)
};

struct ReplayStats {
  size_t ops = 0, writes = 0;
  double bytes_written = 0;      // bytes the device accepted (failed writes count only what they wrote)
  double completion_s = 0;       // when the last op completed
  double recorded_end_s = 0;     // when the recording's last op ended (scaled)
  double write_latency_s[5] = {};  // p50, p90, p99, p99.9, max over writes (done - issue)
  double fsync_max_s = 0;
  double max_behind_s = 0;       // largest issue - sched
  double mean_behind_s = 0;
  // A rate-driven recorder's samples arrive steadily between its recorded
  // writes; its buffer holds what was produced but not yet written.
  double needed_buffer_bytes = 0;  // the peak of that (includes the block being written)
  uint64_t overruns = 0;         // write completions that found more than buffer_bytes waiting
  std::vector<double> overrun_times;  // their times (first 1000)
  std::map<std::string, uint64_t> errors;  // errno name -> count
  // Operations that failed (an errno, or a write cut short). A run with any
  // is not "kept up": the recorder's data did not reach the device.
  uint64_t failed_ops = 0;
  double failed_write_bytes = 0;  // asked for but not written (not in bytes_written)
  std::optional<FirstError> first_error;
  uint64_t stalls = 0;           // ModelDevice only
  double stall_seconds = 0;
  std::optional<bool> kept_up;   // nullopt with --as-fast-as-possible
  std::vector<TimelinePoint> timeline;
};

struct ReplayRun {
  std::vector<OpOutcome> outcomes;  // one per op of the list, same order
  ReplayStats stats;
  bool cancelled = false;           // stopped by ReplayOptions::cancel: the stats are partial
};

// Runs `ops` on `dev`. Files are numbered 1..n in order of first appearance;
// a file's first op creates it if that op is not a create. Not thread-safe.
ReplayRun replay_ops(const OpList& ops, Device& dev, Clock& clock, const ReplayOptions& opt);

// The virtual-time case: a fresh ModelDevice(profile, model) on a VirtualClock,
// with the model's stall counts filled in.
// `model` sets the seed, capacity and prefill (a mount's trace records them).
ReplayRun replay_on_model(const OpList& ops, const Profile& profile, const ReplayOptions& opt,
                          const ModelOptions& model);
ReplayRun replay_on_model(const OpList& ops, const Profile& profile, const ReplayOptions& opt,
                          uint64_t seed = 1);

// The same peak-buffer sweep for the recording itself (ops with durations),
// so a table can show what the recorder needed on the machine it ran on.
std::optional<double> recorded_needed_buffer(const OpList& ops, double time_scale = 1.0);

}  // namespace sd
