// Reads: latency, per-stream bandwidth, interface ceiling and queue depth
// from a threads x block-size table (document 001's read table). Predictions
// come from ModelDevice itself (one implementation of the read model), so the
// fitted parameters mean exactly what the simulator will do with them.
#pragma once
#include <string>
#include <vector>

#include "calibrate/inputs.h"
#include "models/profile.h"

namespace sd::cal {

struct ReadParams {
  double latency_us = 0;
  double mbps = 0;      // one stream's bandwidth
  double max_mbps = 0;  // aggregate ceiling (0 = none)
  int queue_depth = 1;
};

// Steady MB/s of `threads` synchronous streams reading `block` bytes each,
// back to back, as ModelDevice serves them (virtual time, milliseconds).
double predict_read_mbps(const ReadParams& p, double block, int threads);
// The same for any profile (e.g. a calibrated one loaded back from TOML).
double predict_read_mbps(const Profile& p, double block, int threads);

struct CellFit {
  double block = 0;
  int threads = 1;
  double measured = 0, predicted = 0;  // MB/s
  double rel_err = 0;                  // predicted / measured - 1
  bool used = true;                    // false: left out of the fit as an outlier
  std::string source;
};

struct ReadFit {
  bool ok = false;
  ReadParams p;
  double latency_band = 0, mbps_band = 0, max_band = 0;  // 95 % half-widths
  bool ceiling = false;  // an aggregate ceiling is visible in the data
  double r2 = 0;         // of log MB/s over the cells used
  size_t points = 0;
  std::vector<CellFit> cells;
  std::string why;
};
// The cost guard (issue 11 §5) for fit_read_table: the fit simulates every
// cell (30 reads per thread) some 2000 times per queue depth tried (1..the
// most threads), so a large table or a huge thread count would run for
// hours. Refuses those, naming the cells and threads and what to change.
double read_fit_steps(const std::vector<RatePoint>& rates);
Status check_read_fit_cost(const std::vector<RatePoint>& rates);

// Fits the read cells of `rates` (read = true); least squares on log MB/s,
// with cells far off the fitted surface left out and reported.
ReadFit fit_read_table(const std::vector<RatePoint>& rates);

}  // namespace sd::cal
