#include <time.h>

#include <chrono>

#include "models/device.h"

namespace sd {

static int64_t mono_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

RealClock::RealClock() : start_ns_(mono_ns()) {}

double RealClock::now() { return static_cast<double>(mono_ns() - start_ns_) * 1e-9; }

void RealClock::sleep_until(double t) {
  // steady_clock is CLOCK_MONOTONIC. One sleep, not a loop over EINTR: a
  // signal (Ctrl-C) wakes the caller so it can look at its cancel flag.
  int64_t ns = start_ns_ + static_cast<int64_t>(t * 1e9);
  if (ns <= mono_ns()) return;
  struct timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

std::string_view op_name(OpKind k) {
  switch (k) {
    case OpKind::Create: return "create";
    case OpKind::Write: return "write";
    case OpKind::Read: return "read";
    case OpKind::Fsync: return "fsync";
    case OpKind::Truncate: return "truncate";
    case OpKind::Close: return "close";
    case OpKind::Remove: return "remove";
  }
  return "?";
}

}  // namespace sd
