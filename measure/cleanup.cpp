#include "measure/cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

namespace sd::cleanup {
namespace {

constexpr int kSlots = 1024;
constexpr int kPathMax = 1024;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax];
};
Slot g_slots[kSlots];
std::mutex g_mu;  // guards registration (never taken in the handler)
std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  if (!g_cancel.exchange(true)) {
    g_signal.store(sig);
    return;
  }
  for (auto& s : g_slots)
    if (s.used.load()) unlink(s.path);
  _exit(128 + sig);
}

}  // namespace

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a blocked read/write returns EINTR and the loop sees the flag
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
}

const std::atomic<bool>* cancel_flag() { return &g_cancel; }
int signal_received() { return g_signal.load(); }

void register_path(const std::string& path) {
  if (path.size() >= kPathMax) return;
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& s : g_slots)
    if (!s.used.load()) {
      std::memcpy(s.path, path.c_str(), path.size() + 1);
      s.used.store(true);
      return;
    }
}

void unregister_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& s : g_slots)
    if (s.used.load() && path == s.path) {
      s.used.store(false);
      return;
    }
}

}  // namespace sd::cleanup
