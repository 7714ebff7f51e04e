// Symbolic and hard links, extended attributes: passed through to the
// backing directory where the emulated filesystem has them, refused with its
// driver's errno where it does not (Semantics, docs/mount.md).
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "fusefs/fs.h"

namespace sd::fusefs {

int Fs::symlink(const char* target, Ino parent, const char* name, fuse_entry_param& e) {
  Inode* p = inode(parent);
  if (!p) return ESTALE;
  if (int err = sem_.symlink_error()) return err;
  if (int err = sem_.check_name(name)) return err;
  if (backing_name(p, name) != name) return EEXIST;
  if (symlinkat(target, p->fd, name) != 0) return errno;
  return entry_for(p, name, e);
}

int Fs::readlink(Ino ino, std::string& out) {
  Inode* in = inode(ino);
  if (!in) return ESTALE;
  std::vector<char> buf(PATH_MAX + 1);
  ssize_t n = readlinkat(in->fd, "", buf.data(), buf.size());
  if (n < 0) return errno;
  out.assign(buf.data(), static_cast<size_t>(n));
  return 0;
}

int Fs::link(Ino ino, Ino newparent, const char* newname, fuse_entry_param& e) {
  Inode* in = inode(ino);
  Inode* np = inode(newparent);
  if (!in || !np) return ESTALE;
  if (int err = sem_.link_error()) return err;
  if (int err = sem_.check_name(newname)) return err;
  if (backing_name(np, newname) != newname) return EEXIST;
  // Through /proc (AT_SYMLINK_FOLLOW): linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH.
  if (linkat(AT_FDCWD, proc_path(in->fd).c_str(), np->fd, newname, AT_SYMLINK_FOLLOW) != 0) return errno;
  // The new name is the same model file (the model names files by backing inode).
  return entry_for(np, newname, e, /*register_in_model=*/false);
}

// Without xattrs, a userspace driver answers ENOSYS (the kernel's FUSE
// client fails the call with EOPNOTSUPP and stops asking); a kernel driver
// has no handlers: EOPNOTSUPP, and listxattr lists nothing. setxattr answers
// EOPNOTSUPP in both cases (what the caller sees either way): an ENOSYS would
// make the kernel stop sending setxattr, the fault control's too.
void Fs::setxattr(fuse_req_t req, Ino ino, const char* name, const char* value, size_t size, int flags) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  if (!sem_.xattrs()) return (void)fuse_reply_err(req, EOPNOTSUPP);
  int r = ::setxattr(proc_path(in->fd).c_str(), name, value, size, flags);
  fuse_reply_err(req, r == 0 ? 0 : errno);
}

void Fs::getxattr(fuse_req_t req, Ino ino, const char* name, size_t size) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  if (!sem_.xattrs()) return (void)fuse_reply_err(req, sem_.userspace() ? ENOSYS : EOPNOTSUPP);
  std::vector<char> buf(size);
  ssize_t n = ::getxattr(proc_path(in->fd).c_str(), name, size ? buf.data() : nullptr, size);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  if (size == 0) fuse_reply_xattr(req, static_cast<size_t>(n));
  else fuse_reply_buf(req, buf.data(), static_cast<size_t>(n));
}

void Fs::listxattr(fuse_req_t req, Ino ino, size_t size) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  if (!sem_.xattrs()) {
    if (sem_.userspace()) return (void)fuse_reply_err(req, ENOSYS);
    if (size == 0) return (void)fuse_reply_xattr(req, 0);
    return (void)fuse_reply_buf(req, nullptr, 0);
  }
  std::vector<char> buf(size);
  ssize_t n = ::listxattr(proc_path(in->fd).c_str(), size ? buf.data() : nullptr, size);
  if (n < 0) return (void)fuse_reply_err(req, errno);
  if (size == 0) fuse_reply_xattr(req, static_cast<size_t>(n));
  else fuse_reply_buf(req, buf.data(), static_cast<size_t>(n));
}

void Fs::removexattr(fuse_req_t req, Ino ino, const char* name) {
  Inode* in = inode(ino);
  if (!in) return (void)fuse_reply_err(req, ESTALE);
  if (!sem_.xattrs()) return (void)fuse_reply_err(req, sem_.userspace() ? ENOSYS : EOPNOTSUPP);
  int r = ::removexattr(proc_path(in->fd).c_str(), name);
  fuse_reply_err(req, r == 0 ? 0 : errno);
}

}  // namespace sd::fusefs
