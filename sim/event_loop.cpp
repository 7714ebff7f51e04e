#include "sim/event_loop.h"

#include <algorithm>
#include <cmath>

namespace sd {

void EventLoop::at(double t, Task fn) { queue_.push({std::max(t, clock_.now()), seq_++, std::move(fn)}); }

uint64_t EventLoop::run(double until) {
  uint64_t n = 0;
  while (!queue_.empty() && queue_.top().t <= until) {
    // Move the task out before popping: it may schedule more events.
    Event ev = std::move(const_cast<Event&>(queue_.top()));
    queue_.pop();
    clock_.sleep_until(ev.t);
    ev.fn();
    ++n;
  }
  if (!queue_.empty() && std::isfinite(until)) clock_.sleep_until(until);
  return n;
}

}  // namespace sd
