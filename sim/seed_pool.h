// A small thread pool for independent simulations (capacity's seeds): jobs
// 0, 1, 2, ... run on the pool's threads while the calling thread consumes
// their results strictly in job order and says when it has seen enough.
//
// What the consumer sees depends only on the jobs, never on the number of
// threads or on which finished first: results are deterministic. Threads
// only change how much work is wasted: jobs already started when the
// consumer stops (at most threads - 1 of them) are finished and discarded.
//
// Threading: run() is called from one thread at a time; `work` runs on pool
// threads concurrently (it must only touch its own job's state); `consume`
// runs on the calling thread.
//
// The WebAssembly build (web/, wasm32-wasi) has no threads: there the pool
// always runs jobs on the caller, the same path as threads = 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>
#if defined(__wasi__)
#define SD_SEED_POOL_THREADS 0
#else
#define SD_SEED_POOL_THREADS 1
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

namespace sd {

class SeedPool {
 public:
  // threads = 0: std::thread::hardware_concurrency(). With 1 thread, jobs run
  // on the caller, one after the other.
  explicit SeedPool(unsigned threads = 0);
  ~SeedPool();
  SeedPool(const SeedPool&) = delete;
  SeedPool& operator=(const SeedPool&) = delete;

  unsigned threads() const { return threads_; }
  // Runs work(i) for i = 0 .. n-1 and consume(i) after work(i), in order of i;
  // consume returning false stops it. Returns how many jobs were consumed.
  // Workers start jobs at most `ahead` past the consumer (0: the thread count;
  // SIZE_MAX: no limit, for jobs that all run anyway).
  size_t run(size_t n, const std::function<void(size_t)>& work, const std::function<bool(size_t)>& consume,
             size_t ahead = 0);
  // Jobs run but not consumed, over the pool's life (the price of parallelism).
  uint64_t wasted() const { return wasted_; }

 private:
  unsigned threads_;
#if SD_SEED_POOL_THREADS
  void worker();

  std::vector<std::thread> pool_;
  // Guards everything below; work() runs without it.
  std::mutex mu_;
  std::condition_variable wake_;  // workers: a job may be claimed, or shutdown
  std::condition_variable done_;  // caller: a job finished
  bool shutdown_ = false;
  bool active_ = false;  // a run() is in progress
  const std::function<void(size_t)>* work_ = nullptr;
  size_t n_ = 0, next_ = 0, consumed_ = 0, ahead_ = 0;
  bool stop_ = false;
  unsigned running_ = 0;
  std::vector<char> finished_;
#endif
  uint64_t wasted_ = 0;
};

}  // namespace sd
