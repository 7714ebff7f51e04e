#include "measure/real_device.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "models/cleanup.h"

namespace sd {

Result<std::unique_ptr<RealDevice>> RealDevice::open(const RealDeviceOptions& opt, Clock& clock) {
  struct stat st{};
  if (::stat(opt.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Result<std::unique_ptr<RealDevice>>::error(
        fmt::format("{} is not a directory: give an existing directory on the storage to write to", opt.dir));
  if (::access(opt.dir.c_str(), W_OK) != 0)
    return Result<std::unique_ptr<RealDevice>>::error(
        fmt::format("{} is not writable: give a directory you may write to", opt.dir));
  std::unique_ptr<RealDevice> d(new RealDevice(opt, clock, /*owner=*/true, std::make_shared<Files>()));
  d->fs_ = fs_info(opt.dir);
  if (opt.probe_direct) d->probe_direct();
  else d->direct_note_ = fmt::format("O_DIRECT not used at {}: buffered I/O", opt.dir);
  return d;
}

RealDevice::RealDevice(RealDeviceOptions opt, Clock& clock, bool owner, std::shared_ptr<Files> files)
    : opt_(std::move(opt)), clock_(clock), owner_(owner), pid_(static_cast<int>(::getpid())), files_(std::move(files)) {}

std::unique_ptr<RealDevice> RealDevice::sibling() const {
  std::unique_ptr<RealDevice> d(new RealDevice(opt_, clock_, /*owner=*/false, files_));
  d->direct_ok_ = direct_ok_;
  d->direct_note_ = direct_note_;
  d->fs_ = fs_;
  d->dio_align_ = dio_align_;
  return d;
}

RealDevice::~RealDevice() {
  if (owner_ && !opt_.keep_files) remove_created();
  for (auto& [f, fds] : fds_) {
    if (fds.buffered >= 0) ::close(fds.buffered);
    if (fds.direct >= 0) ::close(fds.direct);
  }
  if (owner_ && opt_.keep_files) {  // the files are the output now: a late Ctrl-C must not remove them
    std::lock_guard<std::mutex> lock(files_->mu);
    for (FileId f : files_->created) cleanup::unregister_path(path(f));
  }
  std::free(buf_);
}

void RealDevice::name_file(FileId f, std::string name) {
  std::lock_guard<std::mutex> lock(files_->mu);
  files_->names[f] = std::move(name);
  files_->fixed.insert(f);
}

std::string RealDevice::path(FileId f) const {
  auto it = files_->names.find(f);
  if (it != files_->names.end()) return opt_.dir + "/" + it->second;
  return fmt::format("{}/{}-{}-{}.dat", opt_.dir, opt_.prefix, pid_, f);
}

// Creates a probe file, opens it again with O_DIRECT and writes one aligned
// block: tmpfs (before Linux 6.6) refuses the open (EINVAL), some FUSE
// filesystems the write. The file is made without O_DIRECT first: a create
// refused for O_DIRECT may leave a file behind that only its name could remove.
void RealDevice::probe_direct() {
  std::string p;
  int fd = -1;
  for (int n = 0; n < 100 && fd < 0; ++n) {
    p = fmt::format("{}/{}-{}-probe{}.dat", opt_.dir, opt_.prefix, pid_, n ? fmt::format("-{}", n + 1) : "");
    fd = cleanup::create_registered(p, O_WRONLY);
    if (fd < 0 && errno != EEXIST) break;
  }
  int err = fd < 0 ? errno : 0;
  int dfd = -1;
  if (fd >= 0) {
    dfd = ::open(p.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC | O_NOFOLLOW);
    if (dfd < 0)
      err = errno ? errno : EINVAL;
    else if (identity_of(dfd) != identity_of(fd))
      err = ESTALE;  // another file took the name in between: no verdict from it
  }
  if (fd >= 0) {
#ifdef STATX_DIOALIGN
    struct statx sx{};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
        sx.stx_dio_offset_align > 0)
      dio_align_ = std::max(sx.stx_dio_offset_align, sx.stx_dio_mem_align);
#endif
    char* b = buffer(std::max<uint32_t>(dio_align_, 4096));
    if (err == 0 && ::pwrite(dfd, b, dio_align_, 0) != static_cast<ssize_t>(dio_align_)) err = errno ? errno : EIO;
    const FileIdentity id = identity_of(fd);
    if (dfd >= 0) ::close(dfd);
    ::close(fd);
    if (Status st = remove_if_same(p, id); !st.ok() && opt_.warn) opt_.warn(st.message());
    cleanup::unregister_path(p);
  }
  direct_ok_ = err == 0;
  if (direct_ok_ && fs_.userspace)
    direct_note_ = fmt::format(
        "O_DIRECT accepted at {}, but it is a userspace (FUSE) filesystem ({}): its driver writes through "
        "the page cache below it, so these writes were not direct: they measure the driver plus that cache",
        opt_.dir, fs_.how);
  if (!direct_ok_)
    direct_note_ = fmt::format(
        "O_DIRECT refused by the filesystem at {} ({}: tmpfs and most FUSE filesystems do not support it); "
        "measuring buffered I/O instead",
        opt_.dir, std::strerror(err));
}

// A page-aligned buffer of at least `bytes`, filled with an xorshift pattern
// so that compressing or deduplicating storage cannot cheat.
char* RealDevice::buffer(uint64_t bytes) {
  if (bytes <= buf_bytes_) return buf_;
  uint64_t n = std::max<uint64_t>(bytes, 1 << 20);
  n = (n + 4095) / 4096 * 4096;
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, n) != 0) std::abort();  // out of memory: nothing sensible to do
  std::free(buf_);
  buf_ = static_cast<char*>(p);
  buf_bytes_ = n;
  uint64_t x = 0x9E3779B97F4A7C15ull ^ n;
  auto* w = reinterpret_cast<uint64_t*>(buf_);
  for (uint64_t i = 0; i < n / 8; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    w[i] = x;
  }
  return buf_;
}

// Creates `f` for this run (O_EXCL: never a file that was there before), or
// empties it if this run created it earlier (ftruncate on a descriptor of
// that very file: O_TRUNC by name would empty whatever has the name now).
int RealDevice::create(FileId f, bool direct, int& err) {
  int& fd = direct ? fds_[f].direct : fds_[f].buffered;
  if (fd >= 0) return fd;
  int flags = O_RDWR | (direct ? O_DIRECT : 0);
  std::lock_guard<std::mutex> lock(files_->mu);
  files_->written.erase(f);
  if (files_->created.count(f)) {
    fd = reopen(f, flags, err);
    if (fd >= 0 && ::ftruncate(fd, 0) != 0) {
      err = errno;
      ::close(fd);
      fd = -1;
    }
    return fd;
  }
  for (int n = 2; n < 1000; ++n) {
    std::string p = path(f);
    fd = cleanup::create_registered(p, flags, 0644);
    if (fd >= 0) {
      files_->created.insert(f);
      files_->ids[f] = identity_of(fd);
      return fd;
    }
    if (errno != EEXIST || files_->fixed.count(f)) break;
    files_->names[f] = fmt::format("{}-{}-{}-{}.dat", opt_.prefix, pid_, f, n);  // taken: another name
  }
  err = errno;
  return -1;
}

// An open descriptor of a file this run created; ENOENT for any other file.
int RealDevice::fd_for(FileId f, bool direct, int& err) {
  Fds& fds = fds_[f];
  int& fd = direct ? fds.direct : fds.buffered;
  if (fd >= 0) return fd;
  std::lock_guard<std::mutex> lock(files_->mu);
  if (!files_->created.count(f)) {
    err = ENOENT;
    return -1;
  }
  fd = reopen(f, O_RDWR | (direct ? O_DIRECT : 0), err);
  return fd;
}

int RealDevice::reopen(FileId f, int flags, int& err) {
  const std::string p = path(f);
  const FileIdentity id = files_->ids[f];
  // Checked before the open too, so a device node or fifo put in the file's
  // place is not even opened; O_NOFOLLOW: nor a symlink's target.
  const FileIdentity now = identity_at(p);
  if (now == FileIdentity{}) {  // removed by someone else: nothing there to leave alone
    err = ENOENT;
    return -1;
  }
  if (now != id) {
    lost(f, p);
    err = ESTALE;
    return -1;
  }
  int fd = ::open(p.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    err = errno == ELOOP ? ESTALE : errno;
    if (err == ESTALE) lost(f, p);
    return -1;
  }
  if (identity_of(fd) != id) {  // replaced between the check and the open
    ::close(fd);
    lost(f, p);
    err = ESTALE;
    return -1;
  }
  return fd;
}

void RealDevice::lost(FileId f, const std::string& p) {
  files_->created.erase(f);
  files_->ids.erase(f);
  files_->written.erase(f);
  cleanup::unregister_path(p);  // Ctrl-C must not remove it either
  if (opt_.warn)
    opt_.warn(fmt::format("{} was left in place: it is no longer the file this command created (another program "
                          "put a file of that name there while it ran); this run's file of that name is lost",
                          p));
}

int RealDevice::remove_file(FileId f) {
  const std::string p = path(f);
  int err = 0;
  if (Status st = remove_if_same(p, files_->ids[f], &err); !st.ok() && opt_.warn) opt_.warn(st.message());
  cleanup::unregister_path(p);
  files_->created.erase(f);
  files_->ids.erase(f);
  files_->written.erase(f);
  return err;
}

void RealDevice::close_file(FileId f) {
  auto it = fds_.find(f);
  if (it == fds_.end()) return;
  if (it->second.buffered >= 0) ::close(it->second.buffered);
  if (it->second.direct >= 0) ::close(it->second.direct);
  fds_.erase(it);
}

Completion RealDevice::submit(const Op& op, double now) {
  const bool direct = op.direct && direct_ok_;
  int err = 0;
  uint64_t done_bytes = 0;
  switch (op.kind) {
    case OpKind::Create:
      create(op.file, direct, err);
      break;
    case OpKind::Write:
    case OpKind::Read: {
      int fd = fd_for(op.file, direct, err);
      if (fd < 0) break;
      if (op.kind == OpKind::Write && opt_.cancel && opt_.cancel->load()) {
        err = ECANCELED;
        break;
      }
      char* b = buffer(op.bytes);
      if (op.kind == OpKind::Write && op.data) {
        // The caller's bytes (headers, samples). O_DIRECT needs them in the aligned buffer.
        if (direct) std::memcpy(b, op.data, op.bytes);
        else b = const_cast<char*>(static_cast<const char*>(op.data));  // pwrite only reads it
      }
      while (done_bytes < op.bytes) {
        auto off = static_cast<off_t>(op.offset + done_bytes);
        ssize_t n = op.kind == OpKind::Write ? ::pwrite(fd, b + done_bytes, op.bytes - done_bytes, off)
                                             : ::pread(fd, b + done_bytes, op.bytes - done_bytes, off);
        if (n < 0 && errno == EINTR && !cleanup::cancel_flag()->load()) continue;
        if (n < 0) {
          err = errno;
          break;
        }
        if (n == 0) break;  // EOF on read
        done_bytes += static_cast<uint64_t>(n);
      }
      if (op.kind == OpKind::Write && done_bytes > 0) {
        std::lock_guard<std::mutex> lock(files_->mu);
        auto& [through_direct, buffered] = files_->written[op.file];
        (direct ? through_direct : buffered) += done_bytes;
      }
      break;
    }
    case OpKind::Fsync: {
      int fd = fd_for(op.file, false, err);
      if (fd >= 0 && ::fsync(fd) != 0) err = errno;
      break;
    }
    case OpKind::Truncate: {
      int fd = fd_for(op.file, false, err);
      if (fd >= 0 && ::ftruncate(fd, static_cast<off_t>(op.bytes)) != 0) err = errno;
      break;
    }
    case OpKind::Close:
      close_file(op.file);
      break;
    case OpKind::Remove: {
      close_file(op.file);
      std::lock_guard<std::mutex> lock(files_->mu);
      if (!files_->created.count(op.file)) {
        err = ENOENT;  // not ours: never removed
        break;
      }
      err = remove_file(op.file);
      break;
    }
  }
  const bool data = op.kind == OpKind::Create || op.kind == OpKind::Write || op.kind == OpKind::Read;
  return {std::max(now, clock_.now()), err, done_bytes, direct && data};
}

namespace {

// Fraction of the file behind `fd` resident in the page cache (mincore), or -1.
// Maps 256 MiB at a time: a file past 4 GiB fits no 32-bit address space.
double resident_fraction(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) return -1;
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) return 0;
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t window = uint64_t{256} << 20;  // a multiple of any page size
  std::vector<unsigned char> vec(static_cast<size_t>(window / page));
  uint64_t pages = 0, resident = 0;
  for (uint64_t off = 0; off < size; off += window) {
    const auto len = static_cast<size_t>(std::min(window, size - off));
    void* m = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (m == MAP_FAILED) return -1;
    const size_t n = (len + page - 1) / page;
    if (::mincore(m, len, vec.data()) == 0)
      for (size_t i = 0; i < n; ++i) resident += vec[i] & 1;
    ::munmap(m, len);
    pages += n;
  }
  return static_cast<double>(resident) / static_cast<double>(pages);
}

}  // namespace

std::string RealDevice::drop_cache(FileId f) {
  int err = 0;
  bool written_direct = false;  // every byte written to f went through O_DIRECT
  {
    std::lock_guard<std::mutex> lock(files_->mu);
    auto it = files_->written.find(f);
    written_direct = it != files_->written.end() && it->second.first > 0 && it->second.second == 0;
  }
  if (written_direct) {
    if (fs_.userspace)
      return fmt::format("not bypassed: O_DIRECT reached a userspace (FUSE) driver ({}), which reads and writes "
                         "through the page cache below it; reads may come from memory",
                         fs_.how);
    int fd = fd_for(f, false, err);
    double frac = fd < 0 ? -1 : resident_fraction(fd);
    if (frac > 0.01)
      return fmt::format("not bypassed: {:.0f} % of the file is in memory although it was written with O_DIRECT",
                         frac * 100);
    return frac < 0 ? "bypassed (O_DIRECT; residency not checked)" : "bypassed (O_DIRECT)";
  }
  int fd = fd_for(f, false, err);
  if (fd < 0) return fmt::format("not dropped ({})", std::strerror(err));
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  double frac = resident_fraction(fd);
  if (frac < 0) return "fadvise DONTNEED (residency not checked)";
  if (fs_.userspace)
    return fmt::format("not dropped below the driver: {} is a userspace (FUSE) filesystem ({}); its driver's "
                       "page cache may still hold the data",
                       opt_.dir, fs_.how);
  if (frac < 0.01) return "dropped (fadvise DONTNEED)";
  return fmt::format("not dropped: {:.0f} % of the file stays in memory (tmpfs or a FUSE mount?)", frac * 100);
}

SpaceInfo RealDevice::space() const {
  struct statvfs v{};
  if (::statvfs(opt_.dir.c_str(), &v) != 0) return {};
  return {static_cast<double>(v.f_blocks) * static_cast<double>(v.f_frsize),
          static_cast<double>(v.f_bavail) * static_cast<double>(v.f_frsize)};
}

void RealDevice::remove_created() {
  std::lock_guard<std::mutex> lock(files_->mu);
  std::vector<FileId> created(files_->created.begin(), files_->created.end());
  for (FileId f : created) {
    close_file(f);
    remove_file(f);
  }
  files_->written.clear();
}

}  // namespace sd
