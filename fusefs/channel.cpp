// See channel.h: the INIT reply gets FUSE_DIRECT_IO_ALLOW_MMAP when the
// kernel offers it; every other message passes through untouched.
#include "fusefs/channel.h"

#include <linux/fuse.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fusefs/fs.h"

namespace sd::fusefs {
namespace {
// Bit 36 of the 64-bit INIT flags (include/uapi/linux/fuse.h, protocol 7.39,
// first named FUSE_DIRECT_IO_RELAX): bit 4 of flags2. Not in Debian 12's
// <linux/fuse.h>, which describes Linux 6.1.
constexpr uint32_t kDirectIoAllowMmapFlags2 = 1u << 4;
constexpr uint32_t kInitExt = 1u << 30;  // FUSE_INIT_EXT: flags2 is valid


// The /dev/fuse descriptor moves above every descriptor open now, the
// socket that fusermount3's auto_unmount helper watches among them. A daemon
// killed with SIGKILL closes its descriptors in ascending order, and Linux
// (6.1 here: its task_work runs newest first) then releases the files in
// the reverse order: the FUSE connection is aborted before the helper's
// socket reports the end. Left below the socket, the helper could wake
// first, its open() of the mount point was a request to the dying daemon,
// and the abort ended it with ECONNABORTED instead of ENOTCONN: the helper
// (libfuse 3.14's should_auto_unmount) then left the dead mount in place.
// Seen under load: 6 of 60 SIGKILLs left a mount, none after the move.
int raise_fuse_fd(int fd) {
  int highest = fd;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      long n = std::strtol(e->d_name, &end, 10);
      if (end != e->d_name && *end == '\0' && n > highest) highest = static_cast<int>(n);
    }
    closedir(d);
  }
  if (highest == fd) return fd;
  int high = fcntl(fd, F_DUPFD_CLOEXEC, highest + 1);
  if (high < 0) return fd;  // no room above: keep the descriptor where it is
  close(fd);
  return high;
}
}  // namespace

int Channel::install(fuse_session* se) {
  static const fuse_custom_io io = {writev_cb, read_cb, nullptr, nullptr};
  return fuse_session_custom_io(se, &io, raise_fuse_fd(fuse_session_fd(se)));
}

ssize_t Channel::read_cb(int fd, void* buf, size_t len, void* userdata) {
  return static_cast<Fs*>(userdata)->channel().on_read(fd, buf, len);
}

ssize_t Channel::writev_cb(int fd, struct iovec* iov, int count, void* userdata) {
  return static_cast<Fs*>(userdata)->channel().on_writev(fd, iov, count);
}

ssize_t Channel::on_read(int fd, void* buf, size_t len) {
  ssize_t n = ::read(fd, buf, len);  // libfuse reads errno after a -1, as from read(2)
  if (n < 0) return n;
  if (init_unique_.load(std::memory_order_relaxed) == 0 &&
      static_cast<size_t>(n) >= sizeof(fuse_in_header) + sizeof(fuse_init_in)) {
    fuse_in_header h;
    std::memcpy(&h, buf, sizeof h);
    if (h.opcode == FUSE_INIT) {
      fuse_init_in in;
      std::memcpy(&in, static_cast<char*>(buf) + sizeof h, sizeof in);
      offered_ = (in.flags & kInitExt) && (in.flags2 & kDirectIoAllowMmapFlags2);
      init_unique_ = h.unique;
    }
  }
  return n;
}

ssize_t Channel::on_writev(int fd, struct iovec* iov, int count) {
  uint64_t init = init_unique_.load(std::memory_order_relaxed);
  fuse_out_header h{};
  if (init != 0 && count >= 2 && iov[0].iov_len == sizeof h) std::memcpy(&h, iov[0].iov_base, sizeof h);
  if (init == 0 || h.unique != init || h.error != 0 || iov[1].iov_len < sizeof(fuse_init_out)) {
    return ::writev(fd, iov, count);  // -1 and errno, as libfuse expects
  }
  // The INIT reply: add the flag on a copy (the reply is libfuse's).
  init_unique_ = ~uint64_t{0};  // answered; never match again
  std::vector<char> arg(static_cast<char*>(iov[1].iov_base), static_cast<char*>(iov[1].iov_base) + iov[1].iov_len);
  fuse_init_out out;
  std::memcpy(&out, arg.data(), sizeof out);
  bool ask = want_ && offered_ && (out.flags & kInitExt);
  if (ask) out.flags2 |= kDirectIoAllowMmapFlags2;
  std::memcpy(arg.data(), &out, sizeof out);
  std::vector<iovec> v(iov, iov + count);
  v[1].iov_base = arg.data();
  ssize_t n = ::writev(fd, v.data(), count);
  if (n >= 0) granted_.store(ask, std::memory_order_release);
  return n;
}

}  // namespace sd::fusefs
