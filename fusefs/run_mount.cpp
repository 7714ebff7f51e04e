// The session: mount, serve on a multithreaded loop, a status line once a
// second, clean unmount on SIGINT/SIGTERM or `fusermount3 -u`.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "fusefs/fs.h"
#include "models/units.h"

namespace sd::fusefs {
namespace {

// Prints a status line every second until stopped.
class StatusLine {
 public:
  explicit StatusLine(Fs& fs) : fs_(fs), tty_(isatty(STDERR_FILENO) != 0), thread_([this] { run(); }) {}
  ~StatusLine() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
    if (tty_) fmt::print(stderr, "\n");
  }

 private:
  void run() {
    double last_t = 0, last_bytes = 0;
    std::unique_lock lk(mu_);
    while (!cv_.wait_for(lk, std::chrono::seconds(1), [this] { return stop_; })) {
      fs_.gone();  // a power loss due by now rewrites the backing files
      Fs::Snapshot s = fs_.snapshot();
      double rate = s.now > last_t ? (s.bytes_written - last_bytes) / (s.now - last_t) : 0;
      last_t = s.now;
      last_bytes = s.bytes_written;
      std::string burst = s.model.burst_bytes > 0 ? format_size(s.model.burst_left_bytes) : "none";
      fmt::print(stderr, "{}mount {:>7.1f} s  written {:>9.1f} MB  {:>8.1f} MB/s  burst left {}  fill {:.1f} %  "
                 "stalls {}  waiting {}{}",
                 tty_ ? "\r\033[K" : "", s.now, s.bytes_written / 1e6, rate / 1e6, burst, s.model.fill * 100,
                 s.model.stalls, s.waiting, tty_ ? "" : "\n");
      // What the faults did since the last line, each on its own line.
      for (const auto& e : fs_.fault_events(events_shown_)) {
        fmt::print(stderr, "{}mount {:>7.1f} s  fault {}\n", tty_ ? "\r\033[K" : "", e.time, e.text);
        ++events_shown_;
      }
      std::fflush(stderr);
    }
  }
  Fs& fs_;
  bool tty_;
  std::mutex mu_;  // guards stop_
  std::condition_variable cv_;
  bool stop_ = false;
  size_t events_shown_ = 0;  // the status thread's own
  std::thread thread_;
};

// A private directory for --discard without --backing, removed afterwards.
struct TempBacking {
  std::string path;
  ~TempBacking() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

struct Session {
  fuse_session* se = nullptr;
  bool mounted = false, signals = false;
  ~Session() {
    if (!se) return;
    if (signals) fuse_remove_signal_handlers(se);
    if (mounted) fuse_session_unmount(se);
    fuse_session_destroy(se);
  }
};

}  // namespace

Result<MountSummary> run_mount(const MountOptions& opt_in) {
  MountOptions opt = opt_in;
  if (const char* e = std::getenv("STREAMDISK_MOUNT_DIO_MMAP"); e && std::string(e) == "0") opt.direct_io_mmap = false;
  TempBacking temp;
  if (opt.backing.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = fmt::format("{}/streamdisk-discard-XXXXXX", tmp ? tmp : "/tmp");
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) return Result<MountSummary>::error(fmt::format("cannot create {}", tmpl));
    opt.backing = temp.path = buf.data();
  }
  int root_fd = open(opt.backing.c_str(), O_PATH | O_DIRECTORY);
  if (root_fd < 0) return Result<MountSummary>::error(fmt::format("cannot open backing directory {}", opt.backing));
  Fs fs(opt, root_fd);
  if (Status s = fs.open_trace(); !s.ok()) return s;

  std::vector<std::string> argv = {"streamdisk", "-o",
                                   fmt::format("fsname=streamdisk,subtype=streamdisk,auto_unmount,"
                                               "default_permissions,max_read={}{}",
                                               1 << 20, geteuid() == 0 ? ",allow_other" : "")};
  if (opt.debug) argv.push_back("-d");
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(cargv.size()), cargv.data());
  Session session;
  session.se = fuse_session_new(&args, &Fs::ops(), sizeof(fuse_lowlevel_ops), &fs);
  if (!session.se) return Result<MountSummary>::error("could not start the FUSE session (see the message above)");
  // A shell starts background jobs with SIGINT ignored, and libfuse only
  // takes over signals left at their default: Ctrl-C and kill -INT must
  // unmount cleanly wherever we were started from. The trace's temporary file
  // installed models/cleanup.h's handler; the mount finishes the trace itself.
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_DFL) signal(sig, SIG_DFL);
  }
  if (fuse_set_signal_handlers(session.se) != 0)
    return Result<MountSummary>::error("could not install signal handlers");
  session.signals = true;
  if (fuse_session_mount(session.se, opt.mountpoint.c_str()) != 0)
    return Result<MountSummary>::error(fmt::format("could not mount on {} (see the message above)", opt.mountpoint));
  session.mounted = true;
  if (int err = fs.channel().install(session.se); err != 0)
    return Result<MountSummary>::error(fmt::format("could not hook the FUSE channel: errno {}", -err));
  fmt::print(stderr, "streamdisk: mounted {} on {} ({}{}); Ctrl-C or `fusermount3 -u {}` unmounts\n",
             opt.profile.name, opt.mountpoint, opt.discard ? "contents discarded" : "files in ",
             opt.discard ? "" : opt.backing, opt.mountpoint);

  int rc;
  {
    std::optional<StatusLine> status;
    if (opt.status_line) status.emplace(fs);
    if (opt.realtime) {
      // libfuse's workers inherit this thread's policy: they wake at once
      // when a request arrives instead of queueing behind other processes.
      sched_param sp{};
      sp.sched_priority = 1;
      if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
        fmt::print(stderr, "streamdisk: --realtime: no permission for SCHED_FIFO (needs root or CAP_SYS_NICE); "
                           "running at normal priority\n");
    }
    fuse_loop_config* cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, opt.max_threads);
    fuse_loop_cfg_set_idle_threads(cfg, opt.max_threads);
    rc = fuse_session_loop_mt(session.se, cfg);
    fuse_loop_cfg_destroy(cfg);
  }
  Status closed = fs.shutdown();  // parked replies go out before the unmount
  MountSummary sum = fs.summary();
  if (!closed.ok()) return closed;
  if (rc < 0) return Result<MountSummary>::error(fmt::format("the FUSE session failed: errno {}", -rc));
  return sum;
}

}  // namespace sd::fusefs
