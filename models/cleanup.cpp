#include "models/cleanup.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace sd::cleanup {
namespace {

// Slots live in chunks that are never freed or moved, linked through atomic
// pointers, so the handler can walk them while another thread registers.
constexpr int kChunkSlots = 1024;
struct Slot {
  // The file's identity is stored before its path is published, so the
  // handler that sees the path sees them too.
  std::atomic<uint64_t> dev{0}, ino{0};
  std::atomic<const char*> path{nullptr};  // owned by g_paths' key storage below
};
struct Chunk {
  Slot slots[kChunkSlots];
  std::atomic<Chunk*> next{nullptr};
};

Chunk g_first;
std::mutex g_mu;  // guards the maps and free list (never taken in the handler)
std::unordered_map<std::string, std::pair<Slot*, std::unique_ptr<char[]>>>* g_paths = nullptr;
std::vector<Slot*>* g_free = nullptr;
Chunk* g_last = &g_first;
std::atomic<bool> g_cancel{false};
std::atomic<bool> g_cooperative{false};
std::atomic<int> g_signal{0};

// Removes what `s` names while it is still the file (or directory)
// registered: one another program renamed over it since is not ours to
// remove. Files go in the first pass, directories (rmdir: only when empty)
// in the later ones. Returns whether a directory went.
bool remove_slot(Slot& s, bool directories) {
  const char* p = s.path.load();
  if (!p) return false;
  struct stat st{};
  if (::fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) != 0 || static_cast<uint64_t>(st.st_dev) != s.dev.load() ||
      static_cast<uint64_t>(st.st_ino) != s.ino.load())
    return false;
  if (S_ISDIR(st.st_mode) != directories) return false;
  if (!directories) {
    ::unlink(p);
    return false;
  }
  return ::rmdir(p) == 0;
}

void remove_all_and_exit(int sig) {
  for (Chunk* c = &g_first; c; c = c->next.load())
    for (auto& s : c->slots) remove_slot(s, false);
  // Directories were registered outermost first: each pass removes the ones
  // emptied by the last, until a pass removes none (bounded: a directory
  // goes at most once).
  for (bool removed = true; removed;) {
    removed = false;
    for (Chunk* c = &g_first; c; c = c->next.load())
      for (auto& s : c->slots) removed = remove_slot(s, true) || removed;
  }
  _exit(128 + sig);
}

void on_signal(int sig) {
  bool first = !g_cancel.exchange(true);
  if (first) g_signal.store(sig);
  if (first && g_cooperative.load()) return;
  remove_all_and_exit(first ? sig : g_signal.load());
}

// Called when every slot is taken (or before the first registration).
void refill_free_list() {
  Chunk* c = &g_first;
  if (!g_paths->empty()) {
    c = new Chunk;  // lives until exit: the handler may be walking the list
    g_last->next.store(c);
    g_last = c;
  }
  for (int i = kChunkSlots - 1; i >= 0; --i) g_free->push_back(&c->slots[i]);
}

// Blocks SIGINT/SIGTERM for a scope.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = 0;  // no SA_RESTART: a blocked read/write returns EINTR and the loop sees the flag
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  });
}

void set_cooperative() {
  g_cooperative.store(true);
  install();
}

const std::atomic<bool>* cancel_flag() { return &g_cancel; }
int signal_received() { return g_signal.load(); }
int exit_status() { return 128 + (g_signal.load() ? g_signal.load() : SIGINT); }

void register_path(const std::string& path, dev_t dev, ino_t ino) {
  install();
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_paths) {
    g_paths = new std::unordered_map<std::string, std::pair<Slot*, std::unique_ptr<char[]>>>;
    g_free = new std::vector<Slot*>;
    refill_free_list();
  }
  if (g_paths->count(path)) return;
  if (g_free->empty()) refill_free_list();
  Slot* s = g_free->back();
  g_free->pop_back();
  auto copy = std::make_unique<char[]>(path.size() + 1);
  std::memcpy(copy.get(), path.c_str(), path.size() + 1);
  s->dev.store(static_cast<uint64_t>(dev));
  s->ino.store(static_cast<uint64_t>(ino));
  s->path.store(copy.get());
  g_paths->emplace(path, std::make_pair(s, std::move(copy)));
}

void unregister_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_paths) return;
  auto it = g_paths->find(path);
  if (it == g_paths->end()) return;
  it->second.first->path.store(nullptr);
  g_free->push_back(it->second.first);
  // A handler running on another thread may have loaded the pointer just
  // before the store: the string is never freed (tens of bytes per file).
  it->second.second.release();
  g_paths->erase(it);
}

int create_registered(const std::string& path, int flags, unsigned mode) {
  install();
  SignalsBlocked blocked;  // neither created-but-unregistered nor registered-but-someone-else's
  int fd = ::open(path.c_str(), flags | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return fd;
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::unlink(path.c_str());  // just made by O_EXCL, not yet seen by anyone: ours
    ::close(fd);
    errno = err;
    return -1;
  }
  register_path(path, st.st_dev, st.st_ino);
  return fd;
}

int mkdir_registered(const std::string& path, unsigned mode) {
  install();
  SignalsBlocked blocked;  // as create_registered
  if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) != 0) return -1;
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    errno = EEXIST;  // replaced at once by someone else: not ours, left alone
    return -1;
  }
  register_path(path, st.st_dev, st.st_ino);
  return 0;
}

}  // namespace sd::cleanup
