#include "sim/seed_pool.h"

namespace sd {

namespace {

size_t run_serially(size_t n, const std::function<void(size_t)>& work, const std::function<bool(size_t)>& consume) {
  for (size_t i = 0; i < n; ++i) {
    work(i);
    if (!consume(i)) return i + 1;
  }
  return n;
}

}  // namespace

#if !SD_SEED_POOL_THREADS

SeedPool::SeedPool(unsigned) : threads_(1) {}
SeedPool::~SeedPool() = default;

size_t SeedPool::run(size_t n, const std::function<void(size_t)>& work, const std::function<bool(size_t)>& consume,
                     size_t) {
  return run_serially(n, work, consume);
}

#else

SeedPool::SeedPool(unsigned threads) : threads_(threads ? threads : std::thread::hardware_concurrency()) {
  if (threads_ == 0) threads_ = 1;
  if (threads_ > 1)
    for (unsigned i = 0; i < threads_; ++i) pool_.emplace_back([this] { worker(); });
}

SeedPool::~SeedPool() {
  {
    std::lock_guard lk(mu_);
    shutdown_ = true;
  }
  wake_.notify_all();
  for (auto& t : pool_) t.join();
}

void SeedPool::worker() {
  std::unique_lock lk(mu_);
  while (true) {
    // A job may be claimed while the run lasts, up to `ahead_` past the consumer.
    wake_.wait(lk, [&] { return shutdown_ || (active_ && !stop_ && next_ < n_ && next_ - consumed_ < ahead_); });
    if (shutdown_) return;
    size_t i = next_++;
    ++running_;
    const auto* work = work_;
    lk.unlock();
    (*work)(i);
    lk.lock();
    --running_;
    finished_[i] = 1;
    done_.notify_all();
  }
}

size_t SeedPool::run(size_t n, const std::function<void(size_t)>& work, const std::function<bool(size_t)>& consume,
                     size_t ahead) {
  if (pool_.empty()) return run_serially(n, work, consume);
  std::unique_lock lk(mu_);
  work_ = &work;
  n_ = n, next_ = 0, consumed_ = 0, stop_ = false, active_ = true;
  ahead_ = ahead ? ahead : threads_;
  finished_.assign(n, 0);
  wake_.notify_all();
  while (consumed_ < n) {
    done_.wait(lk, [&] { return finished_[consumed_] != 0; });
    lk.unlock();
    bool more = consume(consumed_);
    lk.lock();
    ++consumed_;
    wake_.notify_all();
    if (!more) break;
  }
  // Let jobs in flight finish: they use `work`, which the caller owns.
  stop_ = true;
  done_.wait(lk, [&] { return running_ == 0; });
  for (size_t i = consumed_; i < n; ++i) wasted_ += finished_[i];
  active_ = false;
  work_ = nullptr;
  return consumed_;
}

#endif  // SD_SEED_POOL_THREADS

}  // namespace sd
