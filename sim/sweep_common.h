// Internals shared by the sweep workloads (sweeps.cpp, sweep_threads.cpp).
#pragma once
#include <string>
#include <vector>

#include "sim/sweeps.h"

namespace sd::sweep_detail {

// One logical thread issuing operations one at a time on `dev`: submits at the
// clock's now, waits for the completion on the clock, and records the
// operation (to env.trace, or to `buffer` when running on a real thread).
class Issuer {
 public:
  Issuer(const SweepEnv& env, Device& dev, int thread = 0, std::vector<TraceRecord>* buffer = nullptr)
      : env_(env), dev_(dev), thread_(thread), buffer_(buffer) {}
  Completion issue(const Op& op, int queue_depth = 1);
  // Issues at an explicit time (virtual scheduler); does not touch the clock.
  Completion issue_at(const Op& op, double now, int queue_depth);
  // Creates file `f`; on failure stores the errno in `error` and returns false
  // (`error` is left alone on success).
  bool create(FileId f, bool direct, int& error);

 private:
  void record(const Op& op, double start, const Completion& c, int queue_depth);
  const SweepEnv& env_;
  Device& dev_;
  int thread_;
  std::vector<TraceRecord>* buffer_;
};

// Reports progress at most every 0.1 s of the sweep's clock.
class Progress {
 public:
  explicit Progress(const SweepEnv& env) : env_(env), t0_(env.clock->now()) {}
  // fraction: of the whole sweep; rate: of the current phase.
  void report(const std::string& phase, double fraction, double rate, bool force = false);
  double elapsed() const { return env_.clock->now() - t0_; }

 private:
  const SweepEnv& env_;
  double t0_, last_ = -1;
};

bool cancelled(const SweepEnv& env);
double median(std::vector<double> v);  // the upper median; 0 for none
std::string drop_cache(const SweepEnv& env, FileId f);
std::string size_label(uint64_t bytes);  // "4 KiB" for phases

}  // namespace sd::sweep_detail
