// One fit per parameter group (issue 6), each from the data that informs it.
// Inputs are per-operation durations (seconds) and sizes (bytes); outputs are
// model parameters in the units of the table in models/params.h, each with a
// 95 % band, R² and the number of points used.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit.h"
#include "calibrate/inputs.h"

namespace sd::cal {

// A fitted value of one parameter (units of its key in params.h).
struct Estimate {
  std::string key;  // "device.sustained_mbps"
  double value = 0;
  double band = 0;  // 95 % half-width, same unit; 0 = exact (chosen by search)
  double r2 = 0;
  size_t points = 0;
  std::string method;  // "block-size sweep", ...
  std::string from;    // the inputs it came from
  bool estimate = false;  // too little data to trust: the profile marks it `estimate = true`
  // The range the profile carries (docs/profiles.md, "Ranges"), where the fit
  // knows it is not value ± band (a rate's interval, inverted into a period,
  // is not symmetric); lo > hi: value ± band, inside the parameter's limits.
  double lo = 1, hi = 0;
};

// --- writes: per-op durations with stalls separated out ---------------------

// The writes of one serial, single-block-size stretch with stalls removed.
struct CleanWrites {
  std::vector<double> bytes;      // per op
  std::vector<double> duration;   // stall-free duration (s)
  std::vector<double> gap_before; // idle time before the op (s)
  std::vector<double> stall_s;    // excess of each pause (s; calibrate/pauses.h)
  std::vector<size_t> stall_at;   // index of each pause's first op (in bytes/duration)
  double total_bytes = 0;
  int last_error = 0;
};
// Flags ops far slower than their neighbours (robust rolling baseline) as
// pauses (calibrate/pauses.h) and replaces them by the baseline. `smooth` false keeps durations as
// they are (buffered writes: throttled waits are not stalls).
CleanWrites clean_writes(const std::vector<IoOp>& ops, bool smooth = true);

// Time per write is linear in the block size: t(b) = t0 + b / bw.
struct SweepFit {
  bool ok = false;
  double overhead_s = 0, overhead_band = 0;  // t0 and its 95 % band
  double mbps = 0, mbps_band = 0;            // bw in MB/s
  double r2 = 0;
  size_t points = 0, sizes = 0;
  std::string why;  // when !ok
};
// Per-op points (block bytes, seconds); robust per-size means, then weighted LS.
SweepFit fit_block_sweep(const std::vector<double>& bytes, const std::vector<double>& seconds);
// From aggregate rates (threads = 1, writes): one point per block size.
SweepFit fit_block_sweep_rates(const std::vector<RatePoint>& rates);

// A sustained write: burst phase, then sustained phase; recovery from gaps.
struct TimelineFit {
  bool ok = false, has_burst = false;
  double block = 0;                        // the block size (bytes)
  double burst_bytes = 0, burst_band = 0;  // bytes absorbed before the rate fell
  double burst_op_s = 0, burst_op_band = 0;          // mean time per op in each phase
  double sustained_op_s = 0, sustained_op_band = 0;
  size_t burst_points = 0, sustained_points = 0;
  // The excess of each pause among the sustained writes (a device that makes
  // up its pauses wrote faster right after each: calibrate.cpp, catch-up).
  std::vector<double> sustained_pauses_s;
  double r2 = 0;
  // Recovery: bytes at burst speed after each idle gap, per second of gap.
  bool has_recovery = false, recovery_saturated = false;
  double recover_bps = 0, recover_band = 0;
  double recover_idle_s = 0, recover_idle_band = 0;  // quiet time before it recovers (gaps of 2+ lengths)
  size_t gaps = 0;
  std::string why;
};
TimelineFit fit_timeline(const CleanWrites& w);

// Host page cache: buffered writes run at memory speed until dirty_limit,
// then at the device's pace. `syscall_s`: per-call cost if known.
struct HostFit {
  bool ok = false;
  double dirty_limit = 0, dirty_band = 0;
  double memory_mbps = 0, memory_band = 0;
  double drain_mbps = 0;
  double r2 = 0;
  size_t points = 0;
  std::string why;
};
HostFit fit_host_cache(const std::vector<IoOp>& ops);

// Fill sweep: rate vs fill level, flat to the knee, linear down to the floor
// at 100 %. `prefill`, `capacity` in bytes; ops before `skip_bytes` (the
// burst phase) are ignored; `overhead_s` is removed from each op first.
struct FillFit {
  bool ok = false;
  double knee = 0, knee_band = 0, floor = 0, floor_band = 0;
  double r2 = 0;
  size_t points = 0;
  std::string why;
};
FillFit fit_fill(const CleanWrites& w, double prefill, double capacity, double skip_bytes, double overhead_s);

}  // namespace sd::cal
