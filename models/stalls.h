// Occasional long pauses: flash garbage collection or allocation (triggered by
// bytes written), a journal commit or a periodic flush (triggered by time).
// A layer has up to two populations of pauses (a two-population mixture:
// short frequent ones and long rare ones); each population has a duration
// distribution (log-normal: median, sigma; sigma 0 = a fixed length) and
// arrivals per byte written (mean `interval_mb` MB apart, from one every
// interval exactly to Poisson in bytes by `stall_interval_jitter`, Poisson by
// default) and/or per unit of time (every `period_ms`, from strictly periodic
// to Poisson in time by `stall_period_jitter`). A byte-triggered pause lands inside the request
// that writes the byte; a time-triggered pause delays whatever request is in
// service (or arrives) while it lasts and goes unseen by an idle writer, so a
// slow paced writer meets time-triggered pauses whatever its rate while
// byte-triggered ones thin out. Drawn from seeded generators with hand-written
// transforms (models/rng.h): the same seed gives the same stalls everywhere.
#pragma once
#include <array>
#include <cstdint>

#include "models/params.h"
#include "models/rng.h"

namespace sd {

class StallProcess {
 public:
  StallProcess() = default;
  // Reads the stall_* and stall2_* keys of `p` (models/params.cpp).
  StallProcess(const LayerParams& p, uint64_t seed);
  // Seconds of stall met by a request of `bytes` whose stall-free service
  // runs over [start, end] (seconds). Calls must come in nondecreasing start
  // order per process (one request channel); time-triggered pauses that ended
  // before `start` passed unseen.
  // Inline, so the many layers without pauses pay no call per request.
  double delay(double start, double end, uint64_t bytes) { return any_ ? delay_on(start, end, bytes) : 0.0; }
  bool enabled() const;
  // Expected stall seconds per byte written from byte-triggered pauses.
  // With `catchup_s` (device.catchup_ms) a pause of length L costs only
  // max(0, L - catchup_s) of a busy channel's time.
  double mean_seconds_per_byte(double catchup_s = 0) const;
  // Expected fraction of time spent in time-triggered pauses (a request
  // channel that is always busy loses this fraction of its time).
  double time_fraction(double catchup_s = 0) const;
  uint64_t count() const { return count_; }
  // Steady stretches (ModelDevice::steady_writes): the bytes a request may
  // write without meeting a byte-triggered pause (a request of b bytes meets
  // one iff b >= this; infinity if no byte source is on), and passing `bytes`
  // in requests that meet none (the same as their delay() calls: each source's
  // countdown is an integer-spaced double below 2^52, so subtracting the sum
  // equals subtracting each request). Returns false (and changes nothing) if
  // a time-triggered source is on or a countdown is too large to be exact.
  bool bytes_before_pause(double& bytes) const;
  void pass_bytes(double bytes);
  double total_seconds() const { return total_s_; }
  void disable();

 private:
  // One arrival stream of one population.
  struct Source {
    bool by_time = false;
    double mean_gap = 0;  // bytes (by_time false) or seconds between arrivals
    double jitter = 1;    // 0 periodic .. 1 Poisson (in time or in bytes)
    double median_s = 0, sigma = 0;
    SplitMix64 rng{0};
    double next = 0;      // bytes until the next pause, or start time of the next pause
    double next_len = 0;  // length of the next time-triggered pause
    bool on() const { return mean_gap > 0 && median_s > 0; }
    double length();
    double gap();  // the next arrival's distance: seconds or bytes
    double mean_excess(double c) const;  // E[max(0, L - c)] of the duration L
    void draw_time_pause();
  };

  double delay_on(double start, double end, uint64_t bytes);
  // Which sources are on, from the constructor and disable().
  void update_flags();

  std::array<Source, 4> src_;  // population 1 bytes, 1 time, 2 bytes, 2 time
  bool any_ = false;           // some source is on
  bool any_time_ = false;      // a time-triggered source is on
  uint64_t count_ = 0;
  double total_s_ = 0;
};

}  // namespace sd
