// The /dev/fuse channel, read and written through libfuse's custom I/O hook
// (fuse_session_custom_io), for one reason: to ask the kernel for
// FUSE_DIRECT_IO_ALLOW_MMAP at INIT. Every file is opened direct_io (each
// write() and read() meets the model with the application's size), and
// without that flag the kernel refuses shared mappings of such files
// (mmap fails with ENODEV). libfuse 3.16 asks for it
// (FUSE_CAP_DIRECT_IO_ALLOW_MMAP); Debian 12's libfuse 3.14 does not know
// the bit, so the INIT reply gets it here when the kernel offers it
// (Linux 6.6 and later). Everything else passes through unchanged.
//
// Threading: INIT is the first request and is answered before any other is
// read, so the fields below are written once, before workers read them.
#pragma once
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#include <atomic>
#include <cstdint>

namespace sd::fusefs {

class Channel {
 public:
  // want = false: never ask (the fallback below is then used; for tests
  // and for kernels where the flag misbehaves).
  explicit Channel(bool want) : want_(want) {}
  // Installs the hook on a mounted session (after fuse_session_mount).
  // Returns 0 or a negative errno from libfuse.
  int install(fuse_session* se);
  // After INIT: whether shared mappings of direct_io files work. When false,
  // files opened for reading or read-write are opened in page-cache mode
  // instead (so they can be mapped; their write() calls still reach the
  // model one by one, write-through, but reads may come from the kernel's cache).
  bool direct_io_mmap() const { return granted_.load(std::memory_order_acquire); }

  // libfuse's custom I/O callbacks; userdata is the session's (the Fs).
  static ssize_t read_cb(int fd, void* buf, size_t len, void* userdata);
  static ssize_t writev_cb(int fd, struct iovec* iov, int count, void* userdata);

  ssize_t on_read(int fd, void* buf, size_t len);
  ssize_t on_writev(int fd, struct iovec* iov, int count);

 private:
  bool want_;
  std::atomic<uint64_t> init_unique_{0};  // the INIT request's id, 0 = not seen
  std::atomic<bool> offered_{false};      // the kernel offered the flag
  std::atomic<bool> granted_{false};      // the INIT reply carried it
};

}  // namespace sd::fusefs
