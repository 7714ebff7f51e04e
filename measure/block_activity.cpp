#include "measure/block_activity.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace sd {

bool read_block_stat(int fd, double& written_bytes, double& in_flight) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = 0;
  // Fields (Documentation/block/stat.rst): reads, merged, sectors, ticks,
  // writes, merged, sectors written (7th), ticks, in flight (9th), ...
  double v[9];
  char* p = buf;
  for (double& x : v) {
    char* end = nullptr;
    x = std::strtod(p, &end);
    if (end == p) return false;
    p = end;
  }
  written_bytes = v[6] * 512, in_flight = v[8];
  return true;
}

bool read_block_stat(const std::string& path, double& written_bytes, double& in_flight) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = read_block_stat(fd, written_bytes, in_flight);
  ::close(fd);
  return ok;
}

bool BlockActivityLog::start(const std::string& stat_path, std::function<double()> now, double period_s) {
  stop();
  fd_ = ::open(stat_path.c_str(), O_RDONLY | O_CLOEXEC);
  double w = 0, f = 0;
  if (fd_ < 0 || !read_block_stat(fd_, w, f)) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return false;
  }
  now_ = std::move(now);
  period_ = period_s;
  samples_.clear();
  stop_.store(false);
  thread_ = std::thread([this] { run(); });
  return true;
}

void BlockActivityLog::run() {
  auto next = std::chrono::steady_clock::now();
  const auto step = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(period_));
  while (!stop_.load(std::memory_order_relaxed)) {
    double w = 0, f = 0;
    if (read_block_stat(fd_, w, f)) {
      double t = now_();
      // Kept on a change only: a completion's time is the first sample
      // that shows it (to within one period).
      if (samples_.empty() || samples_.back().written != w || samples_.back().in_flight != f) samples_.push_back({t, w, f});
    }
    next += step;
    std::this_thread::sleep_until(next);
    if (std::chrono::steady_clock::now() > next + 50 * step) next = std::chrono::steady_clock::now();  // suspended
  }
}

void BlockActivityLog::stop() {
  if (thread_.joinable()) {
    stop_.store(true);
    thread_.join();
  }
  if (fd_ >= 0) ::close(fd_), fd_ = -1;
}

}  // namespace sd
