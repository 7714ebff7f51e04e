// Data operations: the model says when, the backing file holds the bytes.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <shared_mutex>
#include <vector>

#include "fusefs/fs.h"

namespace sd::fusefs {
namespace {

int caller(fuse_req_t req) { return static_cast<int>(fuse_req_ctx(req)->pid); }

// Flags for the backing descriptor: the kernel passes offsets explicitly
// (so no O_APPEND), our buffers are not aligned (so no O_DIRECT), and
// creation was handled already.
int backing_flags(int flags) {
  return flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW | O_DIRECT | O_APPEND | O_TRUNC);
}

// Whether [off, off+size) of the backing file holds no data (a hole, or
// past its end).
bool in_hole(int fd, off_t off, size_t size) {
  off_t d = lseek(fd, off, SEEK_DATA);
  if (d < 0) return errno == ENXIO;
  return d >= off + static_cast<off_t>(size);
}

Handle* handle(fuse_file_info* fi) { return reinterpret_cast<Handle*>(fi->fh); }

// The opener went away before the reply: drop the handle; returns its fd.
int h_fd_and_delete(const fuse_file_info& f) {
  auto* h = reinterpret_cast<Handle*>(f.fh);
  int fd = h->fd;
  delete h;
  return fd;
}

}  // namespace

void Fs::set_open_reply(fuse_file_info* fi, Handle* h) const {
  fi->fh = reinterpret_cast<uint64_t>(h);
  // direct_io: every write and read reaches us with the application's size
  // (up to max_write), so each one meets the model; no kernel page cache.
  // Pages of a shared mapping are written back to us as writes all the same.
  // Without FUSE_DIRECT_IO_ALLOW_MMAP (kernels before 6.6) a file that may
  // be mapped shared (opened for reading, or read-write) is opened in
  // page-cache mode, the only mode the kernel maps shared: write() stays
  // write-through (no writeback cache), but reads may come from the cache.
  bool wronly = (fi->flags & O_ACCMODE) == O_WRONLY;
  fi->direct_io = h->direct || wronly || channel_.direct_io_mmap();
  fi->keep_cache = 0;
}

void Fs::open(fuse_req_t req, Ino ino, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  int fd = ::open(proc_path(in->fd).c_str(), backing_flags(fi->flags));
  if (fd < 0) return (void)fuse_reply_err(req, errno);
  auto h = std::make_unique<Handle>(Handle{fd, (fi->flags & O_DIRECT) != 0, (fi->flags & O_DSYNC) != 0});
  if ((fi->flags & O_TRUNC) && in->regular()) {
    Issued is = submit(Op{OpKind::Truncate, in->model_id(), 0, 0, false}, caller(req));
    record(is, clock_.now(), is.c.error, 0);
    if (ftruncate(fd, 0) != 0) {
      int err = errno;
      close(fd);
      return (void)fuse_reply_err(req, err);
    }
  }
  set_open_reply(fi, h.release());
  if (fuse_reply_open(req, fi) != 0) close(h_fd_and_delete(*fi));  // the opener was interrupted
}

void Fs::create(fuse_req_t req, Ino parent, const char* name, mode_t mode, fuse_file_info* fi) {
  Inode* p = inode(parent);
  if (!p) return (void)fuse_reply_err(req, ESTALE);
  if (int err = sem_.check_name(name)) return (void)fuse_reply_err(req, err);
  int flags = backing_flags(fi->flags);
  int fd = openat(p->fd, name, flags | O_CREAT | O_EXCL, mode);
  bool created = fd >= 0;
  if (!created && errno == EEXIST && !(fi->flags & O_EXCL)) fd = openat(p->fd, name, flags);
  if (fd < 0) return (void)fuse_reply_err(req, errno);
  auto h = std::make_unique<Handle>(Handle{fd, (fi->flags & O_DIRECT) != 0, (fi->flags & O_DSYNC) != 0});
  if (!created && (fi->flags & O_TRUNC) && ftruncate(fd, 0) != 0) {
    int err = errno;
    close(fd);
    return (void)fuse_reply_err(req, err);
  }
  fuse_entry_param e;
  // A new file's create cost is this operation's: the reply waits for the
  // filesystem layer. An existing file is registered as found.
  int err = entry_for(p, name, e, /*register_in_model=*/!created);
  if (err) {
    close(fd);
    return (void)fuse_reply_err(req, err);
  }
  Inode* in = inode(e.ino);
  set_open_reply(fi, h.release());
  fuse_file_info f = *fi;  // *fi lives on the worker's stack
  if (!created) {
    if (fi->flags & O_TRUNC) {
      Issued is = submit(Op{OpKind::Truncate, in->model_id(), 0, 0, false}, caller(req));
      record(is, clock_.now(), is.c.error, 0);
    }
    if (fuse_reply_create(req, &e, &f) != 0) close(h_fd_and_delete(f));
    return;
  }
  Issued is = submit(Op{OpKind::Create, in->model_id(), 0, 0, false}, caller(req));
  if (is.c.error && is.c.error != EEXIST) {
    // A fault failed the create (models/fault.h): the program gets the error
    // and the backing directory does not keep the file.
    int err = is.c.error;
    close(h_fd_and_delete(f));
    forget(e.ino, 1);
    unlinkat(p->fd, name, 0);
    return answer(is, is.c.done, err, 0, [req, err] { fuse_reply_err(req, err); });
  }
  answer(is, is.c.done, 0, 0, [req, e, f] {
    if (fuse_reply_create(req, &e, &f) != 0) close(h_fd_and_delete(f));
  });
}

void Fs::write(fuse_req_t req, Ino ino, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  Handle* h = handle(fi);
  // A power loss rewrites the backing files only between writes (fs.h).
  std::shared_lock pl(power_mu_);
  Issued is = submit(Op{OpKind::Write, in->model_id(), static_cast<uint64_t>(off), size, h->direct}, caller(req));
  int err = is.c.error;
  uint64_t n = is.c.bytes;
  if (err == 0 && n > 0 && keep_) keep_write(h->fd, in->model_id(), is.seq, is.start, static_cast<uint64_t>(off), n);
  if (err == 0 && n > 0) {
    // The bytes the model accepted go to the backing file now (buf is only
    // valid during this call); the reply waits for the model's time.
    if (opt_.discard) {
      struct stat st {};
      if (fstat(h->fd, &st) == 0 && static_cast<uint64_t>(st.st_size) < off + n &&
          ftruncate(h->fd, static_cast<off_t>(off + n)) != 0)
        err = errno;
    } else {
      size_t done = 0;
      while (done < n) {
        ssize_t r = pwrite(h->fd, buf + done, n - done, off + static_cast<off_t>(done));
        if (r < 0) {
          if (errno == EINTR) continue;
          err = errno;  // the real disk failed or filled; say so
          break;
        }
        done += static_cast<size_t>(r);
      }
      if (err && done > 0) err = 0, n = done;
    }
  }
  if (err) n = 0;
  pl.unlock();
  auto reply = [req, err, n] {
    if (err) fuse_reply_err(req, err);
    else fuse_reply_write(req, n);
  };
  if (err || !h->sync) {
    answer(is, is.c.done, err, n, reply);
    if (err && keep_) gone();  // this write may have met the power loss: apply it now
    return;
  }
  // O_SYNC/O_DSYNC: the write returns once the device has it (the backing
  // descriptor was opened O_SYNC too, so pwrite above waited for the disk).
  answer(is, is.c.done, 0, n, [] {});
  Issued fl = submit(Op{OpKind::Fsync, in->model_id(), 0, 0, false}, caller(req));
  answer(fl, std::max(fl.c.done, is.c.done), fl.c.error, 0, reply);
}

void Fs::read(fuse_req_t req, Ino ino, size_t size, off_t off, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  Handle* h = handle(fi);
  if (!opt_.discard && in_hole(h->fd, off, size)) {
    // Never written (a mapped page faulted in before its first store, a
    // sparse region): a filesystem answers from its metadata, the device
    // does no work, so neither does the model.
    std::vector<char> zeros(size);
    ssize_t r = pread(h->fd, zeros.data(), size, off);
    return (void)(r < 0 ? fuse_reply_err(req, errno) : fuse_reply_buf(req, zeros.data(), static_cast<size_t>(r)));
  }
  Issued is = submit(Op{OpKind::Read, in->model_id(), static_cast<uint64_t>(off), size, h->direct}, caller(req));
  int err = is.c.error;
  auto data = std::make_shared<std::vector<char>>();
  if (!err) {
    if (opt_.discard) {
      // Contents were never kept: a read returns zeros up to the file size.
      struct stat st {};
      if (fstat(h->fd, &st) != 0) err = errno;
      else if (off < st.st_size) data->assign(std::min<uint64_t>(size, static_cast<uint64_t>(st.st_size - off)), 0);
    } else {
      data->resize(size);
      size_t got = 0;
      while (got < size) {
        ssize_t r = pread(h->fd, data->data() + got, size - got, off + static_cast<off_t>(got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) err = errno;
        if (r <= 0) break;
        got += static_cast<size_t>(r);
      }
      data->resize(got);
    }
  }
  uint64_t n = err ? 0 : data->size();
  answer(is, is.c.done, err, n, [req, err, data] {
    if (err) fuse_reply_err(req, err);
    else fuse_reply_buf(req, data->data(), data->size());
  });
}

void Fs::fsync(fuse_req_t req, Ino ino, int datasync, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  Issued is = submit(Op{OpKind::Fsync, in->model_id(), 0, 0, false}, caller(req));
  int err = is.c.error == EBADF ? 0 : is.c.error;  // directories are not model files
  // The backing copy is made durable too; the reply waits for both.
  if (!opt_.discard && fi && (datasync ? fdatasync(handle(fi)->fd) : ::fsync(handle(fi)->fd)) != 0) err = errno;
  answer(is, is.c.done, err, 0, [req, err] { fuse_reply_err(req, err); });
}

void Fs::release(fuse_req_t req, Ino ino, fuse_file_info* fi) {
  Inode* in = inode(ino);
  Handle* h = handle(fi);
  if (in && in->regular()) {
    Issued is = submit(Op{OpKind::Close, in->model_id(), 0, 0, false}, caller(req));
    record(is, clock_.now(), is.c.error, 0);
  }
  close(h->fd);
  delete h;
  fuse_reply_err(req, 0);  // close does not wait for the device (as on Linux)
}

void Fs::fallocate(fuse_req_t req, Ino ino, int mode, off_t off, off_t len, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  if (int err = sem_.fallocate_error(mode)) return (void)fuse_reply_err(req, err);
  Handle* h = handle(fi);
  struct stat st {};
  if (fstat(h->fd, &st) != 0) return (void)fuse_reply_err(req, errno);
  uint64_t end = static_cast<uint64_t>(off + len);
  if (mode == 0 && end > static_cast<uint64_t>(st.st_size)) {
    // Growing the file allocates emulated space (or fails as the device would).
    Issued is = submit(Op{OpKind::Truncate, in->model_id(), 0, end, false}, caller(req));
    record(is, clock_.now(), is.c.error, 0);
    if (is.c.error) return (void)fuse_reply_err(req, is.c.error);
    if (opt_.discard) return (void)fuse_reply_err(req, ftruncate(h->fd, static_cast<off_t>(end)) ? errno : 0);
  }
  if (opt_.discard) return (void)fuse_reply_err(req, 0);
  fuse_reply_err(req, ::fallocate(h->fd, mode, off, len) != 0 ? errno : 0);
}

}  // namespace sd::fusefs
