// Parks FUSE replies until their modelled completion time (STYLE.md 2 and 6).
// A worker thread computes when the emulated device would finish a request,
// hands the reply to this scheduler and returns at once, so many concurrent
// writers never exhaust the worker pool. One thread sleeps until the earliest
// due reply and sends it.
//
// Threading: schedule() and waiting() may be called from any thread. Replies
// run on the scheduler's thread (or on the caller's, if already due), without
// the scheduler's mutex held. Times are seconds on `clock`.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "models/device.h"

namespace sd::fusefs {

class ReplyScheduler {
 public:
  using Reply = std::function<void()>;
  explicit ReplyScheduler(Clock& clock);
  ~ReplyScheduler();  // stop()s
  ReplyScheduler(const ReplyScheduler&) = delete;
  ReplyScheduler& operator=(const ReplyScheduler&) = delete;

  // Runs `reply` at time `due`: at once on this thread if due has passed.
  void schedule(double due, Reply reply);
  // Replies still parked.
  size_t waiting();
  // Sends every parked reply now and ends the thread (before unmounting, so
  // no request is left unanswered). Idempotent.
  void stop();
  // Whether the reply thread got real-time priority (SCHED_FIFO).
  bool realtime() const { return realtime_; }

 private:
  struct Item {
    double due;
    uint64_t seq;  // FIFO among equal due times
    Reply reply;
    bool operator>(const Item& o) const { return due != o.due ? due > o.due : seq > o.seq; }
  };
  void run();

  Clock& clock_;
  std::mutex mu_;  // guards queue_, seq_, stopping_; never held while a reply runs
  std::condition_variable cv_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue_;
  uint64_t seq_ = 0;
  bool stopping_ = false;
  std::atomic<bool> realtime_{false};
  std::thread thread_;
};

}  // namespace sd::fusefs
