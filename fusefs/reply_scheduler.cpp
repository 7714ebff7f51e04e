#include "fusefs/reply_scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>

namespace sd::fusefs {

ReplyScheduler::ReplyScheduler(Clock& clock) : clock_(clock), thread_([this] { run(); }) {}

ReplyScheduler::~ReplyScheduler() { stop(); }

void ReplyScheduler::schedule(double due, Reply reply) {
  if (due <= clock_.now()) {
    reply();
    return;
  }
  bool earliest;
  {
    std::lock_guard lk(mu_);
    if (stopping_) {
      // Unmounting: answer now rather than never.
      earliest = false;
    } else {
      earliest = queue_.empty() || due < queue_.top().due;
      queue_.push(Item{due, seq_++, std::move(reply)});
      reply = nullptr;
    }
  }
  if (reply) reply();
  if (earliest) cv_.notify_one();
}

size_t ReplyScheduler::waiting() {
  std::lock_guard lk(mu_);
  return queue_.size();
}

void ReplyScheduler::stop() {
  {
    std::lock_guard lk(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void ReplyScheduler::run() {
  // Replies are the emulator's clock: on a loaded machine a normal-priority
  // thread wakes milliseconds late. Ask for real-time priority (it sleeps
  // almost all the time); without the privilege, carry on as we are.
  // Priority 2: above the FUSE workers (1 with --realtime), so a worker
  // copying a 1 MiB write never delays a reply that is due.
  sched_param sp{};
  sp.sched_priority = 2;
  realtime_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
  std::unique_lock lk(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (stopping_) return;
      cv_.wait(lk);
      continue;
    }
    double wait = queue_.top().due - clock_.now();
    if (wait > 0 && !stopping_) {
      // Wakes early if an earlier reply is scheduled or we are stopping.
      cv_.wait_for(lk, std::chrono::duration<double>(wait));
      continue;
    }
    Reply r = std::move(const_cast<Item&>(queue_.top()).reply);
    queue_.pop();
    lk.unlock();
    r();
    lk.lock();
  }
}

}  // namespace sd::fusefs
