// strace output, as written by
//   strace -f -tt -T -e trace=openat,write,pwrite64,lseek,fsync,fdatasync,close,ftruncate,fallocate
//          (plus ,dup2,dup3,fcntl to follow shell redirections, and ,read,readv,writev
//          for programs that read their file back or write with iovecs) -o trace.txt RECORDER ...
// Each line: [pid] time syscall(args) = result <duration>. The reader keeps
// an fd table per process (falling back to the last file any process opened
// on that number, since fork and clone are not traced), each open file's
// offset (write advances it, lseek sets it to the returned position), and
// each path's size (for O_APPEND). With -f a call may be split into
// "... <unfinished ...>" and "<... NAME resumed> ...": the op takes its start
// from the first half and its result from the second.
#include <algorithm>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "models/input.h"
#include "replay/readers.h"
#include "replay/strace_line.h"

namespace sd {
namespace {
constexpr auto kMaxBytes = static_cast<long long>(kMaxStatedBytes);  // models/input.h

struct OpenFile {
  std::string path;
  uint64_t offset = 0;
  bool writable = false, append = false, direct = false, special = false;
};
using FilePtr = std::shared_ptr<OpenFile>;

class StraceState {
 public:
  explicit StraceState(OpList& out) : out_(out) {}
  // Applies one complete call; returns an error text or "".
  std::string apply(const StraceCall& c);

 private:
  FilePtr lookup(int pid, long fd) const;
  void bind(int pid, long fd, FilePtr f);
  void emit(const StraceCall& c, OpKind kind, const OpenFile& f, uint64_t offset, uint64_t bytes);
  std::string on_open(const StraceCall& c, const std::string& path, const std::string& flags);
  std::string on_write(const StraceCall& c, bool positional);
  std::string on_read(const StraceCall& c, bool positional);
  int thread_of(int pid);

  OpList& out_;
  std::map<std::pair<int, long>, FilePtr> fds_;
  std::unordered_map<long, FilePtr> last_by_fd_;  // fallback for inherited fds
  std::unordered_map<std::string, uint64_t> size_;
  std::unordered_map<int, int> threads_;
};

int StraceState::thread_of(int pid) {
  auto [it, fresh] = threads_.try_emplace(pid, static_cast<int>(threads_.size()));
  return it->second;
}

FilePtr StraceState::lookup(int pid, long fd) const {
  if (auto it = fds_.find({pid, fd}); it != fds_.end()) return it->second;
  if (auto it = last_by_fd_.find(fd); it != last_by_fd_.end()) return it->second;
  return nullptr;
}

void StraceState::bind(int pid, long fd, FilePtr f) {
  fds_[{pid, fd}] = f;
  last_by_fd_[fd] = std::move(f);
}

void StraceState::emit(const StraceCall& c, OpKind kind, const OpenFile& f, uint64_t offset, uint64_t bytes) {
  ReplayOp o;
  o.start = c.start;
  o.duration = c.duration;
  o.kind = kind;
  o.file = f.path;
  o.offset = offset;
  o.bytes = bytes;
  o.direct = f.direct;
  o.thread = thread_of(c.pid);
  out_.ops.push_back(std::move(o));
}

std::string StraceState::on_open(const StraceCall& c, const std::string& path, const std::string& flags) {
  auto f = std::make_shared<OpenFile>();
  f->path = path;
  auto has = [&](const char* flag) { return flags.find(flag) != std::string::npos; };
  f->writable = has("O_WRONLY") || has("O_RDWR");
  f->append = has("O_APPEND");
  f->direct = has("O_DIRECT");
  // Device and kernel files are not storage; /dev/shm is (a tmpfs).
  f->special = (path.starts_with("/dev/") && !path.starts_with("/dev/shm/")) || path.starts_with("/proc/") ||
               path.starts_with("/sys/");
  bind(c.pid, c.ret, f);
  if (!f->writable || f->special) return "";
  bool existed = size_.contains(path);
  emit(c, OpKind::Create, *f, 0, 0);
  if (has("O_TRUNC") && existed && size_[path] > 0) {
    ReplayOp& o = out_.ops.back();
    ReplayOp t = o;
    t.kind = OpKind::Truncate;
    t.duration = 0;
    out_.ops.push_back(t);
  }
  if (has("O_TRUNC") || !existed) size_[path] = 0;
  return "";
}

std::string StraceState::on_write(const StraceCall& c, bool positional) {
  FilePtr f = lookup(c.pid, c.arg_int(0));
  uint64_t n = static_cast<uint64_t>(c.ret);
  if (!f) {
    ++out_.ignored[c.arg_int(0) <= 2 ? "writes to stdin/stdout/stderr not opened in the trace"
                                     : "writes to fds opened before the trace (or via untraced dup/socket/pipe)"];
    return "";
  }
  if (f->special || !f->writable) {
    ++out_.ignored["writes to device or proc files"];
    return "";
  }
  uint64_t& size = size_[f->path];
  uint64_t at = positional ? static_cast<uint64_t>(c.arg_int(3)) : (f->append ? size : f->offset);
  if (at + n > kMaxStatedBytes) return fmt::format("{} past 1e17 bytes into a file", c.name);
  if (n > 0) emit(c, OpKind::Write, *f, at, n);
  if (!positional) f->offset = at + n;
  size = std::max(size, at + n);
  return "";
}

// A read moves the offset (libsndfile reads a header back before patching
// it); reads of the program's own writable files are replayed too.
std::string StraceState::on_read(const StraceCall& c, bool positional) {
  FilePtr f = lookup(c.pid, c.arg_int(0));
  if (!f) return "";
  uint64_t n = static_cast<uint64_t>(c.ret);
  uint64_t at = positional ? static_cast<uint64_t>(c.arg_int(3)) : f->offset;
  if (at + n > kMaxStatedBytes) return fmt::format("{} past 1e17 bytes into a file", c.name);
  if (f->writable && !f->special && n > 0) emit(c, OpKind::Read, *f, at, n);
  if (!positional) f->offset = at + n;
  return "";
}

std::string StraceState::apply(const StraceCall& c) {
  const std::string& s = c.name;
  static const char* kKnown[] = {"openat", "open", "creat", "write", "pwrite64", "pwrite", "writev", "pwritev",
                                 "pwritev2", "read", "pread64", "readv", "preadv", "preadv2", "lseek", "_llseek",
                                 "fsync", "fdatasync", "ftruncate", "fallocate", "close", "dup", "dup2", "dup3",
                                 "fcntl", "fcntl64"};
  if (std::find(std::begin(kKnown), std::end(kKnown), s) == std::end(kKnown)) {
    ++out_.unknown[excerpt(s, 64)];
    return "";
  }
  if (c.ret < 0) return "";  // failed, or no result ('?'): nothing happened on disk
  // write/read(fd, buf, count) and their p- forms never return more than count.
  if ((s == "write" || s == "read" || s == "pwrite64" || s == "pread64" || s == "pwrite" || s == "pread") &&
      c.args.size() >= 3 && c.ret > c.arg_int(2))
    return fmt::format("{} returned {}, more than the {} bytes it was asked for: a damaged or edited trace", s, c.ret,
                       c.arg_int(2));
  if ((s == "ftruncate" && c.arg_int(1) < 0) || (s == "fallocate" && (c.arg_int(2) < 0 || c.arg_int(3) < 0)))
    return fmt::format("{} with a negative size or offset", s);
  if (c.ret > kMaxBytes) return fmt::format("{} returned {}, past 1e17 bytes", s, c.ret);
  // Sizes and offsets past 1e17 bytes are no storage's: refused before any sum can overflow.
  if ((s == "ftruncate" && c.arg_int(1) > kMaxBytes) ||
      (s == "fallocate" && (c.arg_int(2) > kMaxBytes || c.arg_int(3) > kMaxBytes)) ||
      (s.starts_with("p") && c.args.size() >= 4 && c.arg_int(3) > kMaxBytes))
    return fmt::format("{} with a size or offset past 1e17 bytes", s);
  if (s == "openat" || s == "open" || s == "creat") {
    size_t pi = s == "openat" ? 1 : 0;
    if (c.args.size() < pi + 1) return fmt::format("{} with too few arguments", s);
    auto path = c.arg_string(pi);
    if (!path) return fmt::format("{}: expected a quoted path as argument {}", s, pi + 1);
    std::string flags = s == "creat" ? "O_WRONLY|O_CREAT|O_TRUNC" : (c.args.size() > pi + 1 ? c.args[pi + 1] : "");
    return on_open(c, *path, flags);
  }
  // Positional variants carry the offset as argument 4 (-1: the current one).
  bool positional = s.starts_with("p") && c.args.size() >= 4 && c.arg_int(3) >= 0;
  if (s == "write" || s == "writev" || s.starts_with("pwrite")) {
    if (c.args.size() < 3 || (s.starts_with("p") && c.args.size() < 4))
      return fmt::format("{} with too few arguments", s);
    return on_write(c, positional);
  }
  if (s == "read" || s == "readv" || s.starts_with("pread")) {
    return on_read(c, positional);
  }
  if (s == "lseek" || s == "_llseek") {
    if (auto f = lookup(c.pid, c.arg_int(0))) f->offset = static_cast<uint64_t>(c.ret);
    return "";
  }
  if (s == "fsync" || s == "fdatasync") {
    if (auto f = lookup(c.pid, c.arg_int(0)); f && f->writable && !f->special) emit(c, OpKind::Fsync, *f, 0, 0);
    return "";
  }
  if (s == "ftruncate" || s == "fallocate") {
    auto f = lookup(c.pid, c.arg_int(0));
    if (!f || !f->writable || f->special) return "";
    uint64_t& size = size_[f->path];
    uint64_t to = 0;
    if (s == "ftruncate") {
      to = static_cast<uint64_t>(c.arg_int(1));
    } else {
      if (c.args.size() < 4) return "fallocate with too few arguments";
      if (c.args[1] != "0") {  // KEEP_SIZE, PUNCH_HOLE...: no size change to model
        ++out_.ignored["fallocate with a mode (KEEP_SIZE, PUNCH_HOLE...)"];
        return "";
      }
      to = std::max<uint64_t>(size, static_cast<uint64_t>(c.arg_int(2) + c.arg_int(3)));
    }
    emit(c, OpKind::Truncate, *f, 0, to);
    size = to;
    return "";
  }
  if (s == "close") {
    long fd = c.arg_int(0);
    FilePtr f = lookup(c.pid, fd);
    fds_.erase({c.pid, fd});
    if (auto it = last_by_fd_.find(fd); it != last_by_fd_.end() && it->second == f) last_by_fd_.erase(it);
    // Close the file once no fd refers to its open description any more.
    if (f && f->writable && !f->special && f.use_count() <= 1) emit(c, OpKind::Close, *f, 0, 0);
    return "";
  }
  if (s == "dup" || s == "dup2" || s == "dup3" || s == "fcntl" || s == "fcntl64") {
    if (s.starts_with("fcntl") && (c.args.size() < 2 || !c.args[1].starts_with("F_DUPFD"))) return "";
    if (auto f = lookup(c.pid, c.arg_int(0))) bind(c.pid, c.ret, f);
    return "";
  }
  return "";
}

}  // namespace

Result<OpList> read_strace(std::istream& in, const std::string& name) {
  OpList out;
  out.name = name;
  out.format = "strace";
  StraceState state(out);
  StraceClock clock;
  std::map<int, StraceCall> pending;  // pid -> the first half of an unfinished call
  std::string line;
  LineReader lines(in, name);
  auto err = [&](const std::string& what) {
    return Result<OpList>::error(fmt::format("{}:{}: {}", name, lines.lineno(), what));
  };
  while (lines.next(line)) {
    auto parsed = parse_strace_line(line, clock);
    if (!parsed.error.empty())
      return err(parsed.error + " (expected `strace -f -tt -T` output: see `streamdisk replay --help`)");
    if (parsed.kind == StraceLineKind::Skip) continue;
    StraceCall c = std::move(parsed.call);
    if (parsed.kind == StraceLineKind::Unfinished) {
      pending[c.pid] = std::move(c);
      continue;
    }
    if (parsed.kind == StraceLineKind::Resumed) {
      auto it = pending.find(c.pid);
      if (it == pending.end() || it->second.name != c.name)
        return err(fmt::format("'<... {} resumed>' for process {} without its '<unfinished ...>' line", c.name, c.pid));
      StraceCall whole = std::move(it->second);
      pending.erase(it);
      whole.append_args(parsed.resumed_args);
      whole.ret = c.ret;
      whole.duration = c.duration;
      c = std::move(whole);
    }
    if (auto e = state.apply(c); !e.empty()) return err(e);
  }
  if (!lines.ok()) return lines.status();
  if (!pending.empty()) out.ignored["calls still unfinished when the trace ended"] += pending.size();
  std::stable_sort(out.ops.begin(), out.ops.end(), [](const ReplayOp& a, const ReplayOp& b) { return a.start < b.start; });
  return out;
}

}  // namespace sd
