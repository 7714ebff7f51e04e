// A discrete-event loop in virtual time, for workloads with several actors
// (concurrent readers, a producer and a writer as separate tasks). Actors
// schedule callbacks at clock times; run() executes them in time order (ties
// in the order they were scheduled) and moves the VirtualClock to each
// event's time first, so code inside a callback sees clock.now() == its time.
//
// The recorder (sim/recorder.h) needs no loop: its producer is a function of
// time, so it just sleeps on the Clock. Use this when actors wait on one
// another, e.g. N reader threads each issuing its next read when the last
// one completes:
//
//   VirtualClock clock;  EventLoop loop(clock);
//   std::function<void()> next = [&] { auto c = dev.submit(op, clock.now());
//                                      loop.at(c.done, next); };
//   for (int i = 0; i < threads; ++i) loop.at(0, next);
//   loop.run(seconds);
//
// Single-threaded; callbacks may schedule further events.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "models/device.h"

namespace sd {

class EventLoop {
 public:
  using Task = std::function<void()>;
  explicit EventLoop(VirtualClock& clock) : clock_(clock) {}

  // Runs `fn` at time t (at once, in order, if t is already past).
  void at(double t, Task fn);
  void after(double dt, Task fn) { at(clock_.now() + dt, std::move(fn)); }
  // Runs events with time <= until, in order; returns how many ran. The clock
  // ends at the last event's time (or `until` if finite and events remain).
  uint64_t run(double until = std::numeric_limits<double>::infinity());
  bool empty() const { return queue_.empty(); }
  size_t pending() const { return queue_.size(); }
  double now() const { return clock_.now(); }

 private:
  struct Event {
    double t;
    uint64_t seq;  // ties run in scheduling order
    Task fn;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
  };
  VirtualClock& clock_;
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  uint64_t seq_ = 0;
};

}  // namespace sd
