#include "models/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "models/cleanup.h"

namespace sd {
namespace {

std::string dir_of(const std::string& p) {
  auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_of(const std::string& p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The temporary file for `base` (a name in the same directory): attempt
// 0, 1... until one is free (O_EXCL).
constexpr int kTempAttempts = 100;
std::string temp_name(const std::string& base, long long pid, int attempt) {
  return fmt::format(".{}.{}-{}.tmp", base, pid, attempt);
}


// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: an open descriptor
// of this process (a pipe, a terminal, or a file the shell opened), written
// through that descriptor. -1 if `p` is none of them.
int descriptor_path(const std::string& p) {
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    std::string_view pre(prefix);
    if (p.size() > pre.size() && p.compare(0, pre.size(), pre) == 0) {
      char* end = nullptr;
      long fd = std::strtol(p.c_str() + pre.size(), &end, 10);
      if (*end == '\0' && fd >= 0 && fd < INT_MAX) return static_cast<int>(fd);
    }
  }
  return -1;
}

// Standard input (an input given as "-") is the regular file at `p`, as in
// `streamdisk report - -o r.json < r.json`. Only a regular file: a terminal or
// a pipe that is also the output is never replaced.
bool stdin_is(const std::string& p) {
  struct stat si{}, sp{};
  return ::fstat(0, &si) == 0 && S_ISREG(si.st_mode) && ::stat(p.c_str(), &sp) == 0 && si.st_dev == sp.st_dev &&
         si.st_ino == sp.st_ino;
}

}  // namespace

std::string follow_links(std::string p) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st{};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0) return p;
    std::string link(buf, static_cast<size_t>(n));
    p = link[0] == '/' ? link : dir_of(p) + "/" + link;
  }
  return "";
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa{}, sb{};
  bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  std::string fa = follow_links(a), fb = follow_links(b);
  if (base_of(fa) != base_of(fb)) return false;
  struct stat da{}, db{};
  return ::stat(dir_of(fa).c_str(), &da) == 0 && ::stat(dir_of(fb).c_str(), &db) == 0 && da.st_dev == db.st_dev &&
         da.st_ino == db.st_ino;
}

FileIdentity identity_of(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) return {};
  return {st.st_dev, st.st_ino};
}

FileIdentity identity_at(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return {};
  return {st.st_dev, st.st_ino};
}

Status remove_if_same(const std::string& path, const FileIdentity& id, int* err) {
  int ignored = 0;
  int& e = err ? *err : ignored;
  e = 0;
  FileIdentity now = identity_at(path);
  if (now == FileIdentity{}) return {};  // gone already: nothing of ours to remove
  if (id == FileIdentity{} || now != id) {
    e = ESTALE;
    return Status::error(fmt::format("{} was left in place: it is no longer the file this command created (another "
                                     "program put a file of that name there while it ran); remove it yourself if "
                                     "it is not wanted",
                                     path));
  }
  if (std::remove(path.c_str()) != 0 && errno != ENOENT) {
    e = errno;
    return Status::error(fmt::format("cannot remove {}: {}", path, std::strerror(e)));
  }
  return {};
}

OutputFile& OutputFile::operator=(OutputFile&& o) noexcept {
  if (this != &o) {
    abandon();
    f_ = o.f_, path_ = std::move(o.path_), target_ = std::move(o.target_), temp_ = std::move(o.temp_);
    never_replace_ = o.never_replace_;
    temp_id_ = o.temp_id_;
    o.f_ = nullptr, o.temp_.clear();
  }
  return *this;
}

Status OutputFile::open(const std::string& path, const OutputRules& rules) {
  abandon();
  path_ = path;
  target_.clear();
  never_replace_ = false;
  const std::string& opt = rules.option;
  if (path.empty()) return Status::error(fmt::format("{}: give a file name", opt));
  if (path == "-" && rules.dash_is_stdout) {
    f_ = stdout;
    return {};
  }
  for (const auto& in : rules.inputs)
    if (in == "-" ? stdin_is(path) : !in.empty() && same_file(path, in))
      return Status::error(fmt::format("{} {} is also an input ({}): choose another output file", opt, path,
                                       in == "-" ? "standard input" : in));
  if (int fd = descriptor_path(path); fd >= 0) {
    if (fd == 1) {
      f_ = stdout;
      return {};
    }
    int d = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0 || !(f_ = ::fdopen(d, "w"))) {
      if (d >= 0) ::close(d);
      return Status::error(fmt::format("{} {}: {} (that descriptor is not open for writing)", opt, path,
                                       std::strerror(errno)));
    }
    return {};
  }
  std::string real = follow_links(path);
  if (real.empty()) return Status::error(fmt::format("{} {}: too many levels of symbolic links", opt, path));
  struct stat st{};
  bool exists = ::stat(real.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return Status::error(fmt::format("{} {} is a directory: give a file name such as {}/{}", opt, path,
                                     path.back() == '/' ? path.substr(0, path.size() - 1) : path, rules.example));
  struct stat lst{};
  if (rules.never_replace && (exists || ::lstat(path.c_str(), &lst) == 0))
    return Status::error(fmt::format("{} {} exists and would be replaced: give another name or remove it", opt, path));
  if (exists && S_ISBLK(st.st_mode))
    return Status::error(fmt::format("{} {} is a block device: refusing to write over a disk; give a file name", opt,
                                     path));
  if (exists && !S_ISREG(st.st_mode)) {
    // A character device, fifo or socket: written directly, never replaced.
    int fd = ::open(real.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 || !(f_ = ::fdopen(fd, "w"))) {
      if (fd >= 0) ::close(fd);
      return Status::error(fmt::format("cannot write {} {}: {}", opt, path, std::strerror(errno)));
    }
    return {};
  }
  std::string dir = dir_of(real);
  struct stat ds{};
  if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
    return Status::error(fmt::format("{} {}: directory {} does not exist: create it first or choose another path", opt,
                                     path, dir));
  if (exists) {
    char* rp = ::realpath(real.c_str(), nullptr);
    if (rp) {
      real = rp;
      std::free(rp);
      dir = dir_of(real);
    }
  }
  int fd = -1;
  for (int attempt = 0; attempt < kTempAttempts && fd < 0; ++attempt) {
    temp_ = dir + "/" + temp_name(base_of(real), ::getpid(), attempt);
    fd = cleanup::create_registered(temp_, O_WRONLY);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd >= 0) temp_id_ = identity_of(fd);
  if (fd < 0) {
    int e = errno;
    temp_.clear();
    return Status::error(fmt::format("cannot write {} {}: cannot create a file in {}: {}", opt, path, dir,
                                     std::strerror(e)));
  }
  if (exists) {  // the replacement keeps the file's mode and (as root) its owner
    ::fchmod(fd, st.st_mode & 07777);
    if (::geteuid() == 0 && ::fchown(fd, st.st_uid, st.st_gid) != 0) {
    }
  }
  f_ = ::fdopen(fd, "w");
  if (!f_) {
    ::close(fd);
    abandon();
    return Status::error(fmt::format("cannot write {} {}: {}", opt, path, std::strerror(errno)));
  }
  target_ = real;
  never_replace_ = rules.never_replace;
  return {};
}

namespace {

// Moves `from` (the file `id`) to `to` only if `to` does not exist
// (atomically: a file that appears there meanwhile is never replaced).
// EEXIST if it does.
int rename_noreplace(const std::string& from, const FileIdentity& id, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return errno;
  // A filesystem without RENAME_NOREPLACE (some FUSE drivers): link() fails
  // with EEXIST on an existing name just as atomically.
  if (::link(from.c_str(), to.c_str()) != 0) return errno;
  remove_if_same(from, id);  // the temporary name, while it is still ours
  return 0;
}

}  // namespace

Status OutputFile::commit() {
  if (!f_) return {};
  auto failed = [&](int e) {
    abandon();
    return Status::error(fmt::format("writing {} failed: {}", path_, std::strerror(e)));
  };
  if (f_ == stdout) {
    f_ = nullptr;
    if (std::fflush(stdout) != 0) return Status::error(fmt::format("writing to standard output failed: {}",
                                                                   std::strerror(errno)));
    return {};
  }
  if (std::fflush(f_) != 0 || std::ferror(f_)) return failed(errno ? errno : EIO);
  if (!temp_.empty() && ::fsync(::fileno(f_)) != 0) return failed(errno);
  int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0) return failed(errno);
  if (temp_.empty()) return {};  // written directly
  if (never_replace_) {
    if (int e = rename_noreplace(temp_, temp_id_, target_); e != 0) {
      abandon();
      return Status::error(e == EEXIST ? fmt::format("{} appeared while this command ran and was kept; this "
                                                     "command's output was not written: give another name",
                                                     path_)
                                       : fmt::format("writing {} failed: {}", path_, std::strerror(e)));
    }
  } else if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    return failed(errno);
  }
  cleanup::unregister_path(temp_);
  temp_.clear();
  int dfd = ::open(dir_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // the rename itself survives a crash
    ::close(dfd);
  }
  return {};
}

void OutputFile::abandon() {
  if (f_ && f_ != stdout) std::fclose(f_);
  if (f_ == stdout) std::fflush(stdout);
  f_ = nullptr;
  if (!temp_.empty()) {
    remove_if_same(temp_, temp_id_);  // only while the name is still the temporary file made
    cleanup::unregister_path(temp_);
    temp_.clear();
  }
}

size_t temp_name_overhead() {
  return temp_name("", std::numeric_limits<pid_t>::max(), kTempAttempts - 1).size();
}

Status write_output_file(const std::string& path, std::string_view text, const OutputRules& rules) {
  OutputFile out;
  if (Status st = out.open(path, rules); !st.ok()) return st;
  std::fwrite(text.data(), 1, text.size(), out.stream());
  return out.commit();
}

}  // namespace sd
