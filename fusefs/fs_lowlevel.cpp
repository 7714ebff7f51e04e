// The libfuse low-level callback table. Each callback is thin (STYLE.md 6):
// it finds the Fs through fuse_req_userdata(), calls one method, and every
// path ends in exactly one fuse_reply_* (some of them parked until the
// model's completion time, inside the method).
#include <cerrno>
#include <string>

#include "fusefs/fs.h"

namespace sd::fusefs {
namespace {

constexpr unsigned kMaxWrite = 1u << 20;  // 1 MiB: the kernel's limit with 256-page requests

Fs* fs(fuse_req_t req) { return static_cast<Fs*>(fuse_req_userdata(req)); }

// Once a `gone` fault fired, every call fails as on a pulled stick (true
// when it answered the error); forget, release and the control still work,
// so the mount can be unmounted and its files closed.
bool gone(fuse_req_t req) {
  int e = fs(req)->gone();
  if (e) fuse_reply_err(req, e);
  return e != 0;
}

void reply_entry_or_err(fuse_req_t req, int err, const fuse_entry_param& e) {
  if (err) fuse_reply_err(req, err);
  else fuse_reply_entry(req, &e);
}

void op_init(void* userdata, fuse_conn_info* conn) {
  conn->max_write = kMaxWrite;
  conn->max_read = kMaxWrite;
  // Every write must reach the model: no kernel writeback cache (the host
  // page cache is a model layer). No splice, no passthrough: plain copies.
  conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
  if (conn->capable & FUSE_CAP_ASYNC_DIO) conn->want |= FUSE_CAP_ASYNC_DIO;
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (gone(req)) return;
  fuse_entry_param e{};
  reply_entry_or_err(req, fs(req)->lookup(parent, name, e), e);
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t n) {
  fs(req)->forget(ino, n);
  fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count, fuse_forget_data* list) {
  for (size_t i = 0; i < count; ++i) fs(req)->forget(list[i].ino, list[i].nlookup);
  fuse_reply_none(req);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  if (gone(req)) return;
  struct stat st {};
  int err = fs(req)->getattr(ino, st);
  if (err) fuse_reply_err(req, err);
  else fuse_reply_attr(req, &st, kAttrTimeout);
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  if (gone(req)) return;
  struct stat st {};
  int err = fs(req)->setattr(req, ino, attr, to_set, fi, st);
  if (err) fuse_reply_err(req, err);
  else fuse_reply_attr(req, &st, kAttrTimeout);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  if (gone(req)) return;
  fuse_entry_param e{};
  reply_entry_or_err(req, fs(req)->mkdir(parent, name, mode, e), e);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (gone(req)) return;
  fuse_reply_err(req, fs(req)->unlink(parent, name));
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (gone(req)) return;
  fuse_reply_err(req, fs(req)->rmdir(parent, name));
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent, const char* newname,
               unsigned flags) {
  if (gone(req)) return;
  fuse_reply_err(req, fs(req)->rename(parent, name, newparent, newname, flags));
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (gone(req)) return;
  int err = fs(req)->opendir(ino, fi);
  if (err) fuse_reply_err(req, err);
  else fuse_reply_open(req, fi);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->readdir(req, ino, size, off, fi);
}

void op_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  fs(req)->releasedir(fi);
  fuse_reply_err(req, 0);
}

void op_statfs(fuse_req_t req, fuse_ino_t) {
  if (gone(req)) return;
  struct statvfs sv {};
  int err = fs(req)->statfs(sv);
  if (err) fuse_reply_err(req, err);
  else fuse_reply_statfs(req, &sv);
}

void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->open(req, ino, fi);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->create(req, parent, name, mode, fi);
}

void op_write(fuse_req_t req, fuse_ino_t ino, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->write(req, ino, buf, size, off, fi);
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->read(req, ino, size, off, fi);
}

void op_flush(fuse_req_t req, fuse_ino_t, fuse_file_info*) {
  if (gone(req)) return;
  fuse_reply_err(req, 0);
}

void op_release(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) { fs(req)->release(req, ino, fi); }

void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->fsync(req, ino, datasync, fi);
}

void op_fsyncdir(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) {
  if (gone(req)) return;
  fuse_reply_err(req, 0);
}

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len, fuse_file_info* fi) {
  if (gone(req)) return;
  fs(req)->fallocate(req, ino, mode, off, len, fi);
}

void op_symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name) {
  if (gone(req)) return;
  fuse_entry_param e{};
  reply_entry_or_err(req, fs(req)->symlink(target, parent, name, e), e);
}

void op_readlink(fuse_req_t req, fuse_ino_t ino) {
  if (gone(req)) return;
  std::string target;
  int err = fs(req)->readlink(ino, target);
  if (err) fuse_reply_err(req, err);
  else fuse_reply_readlink(req, target.c_str());
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  if (gone(req)) return;
  fuse_entry_param e{};
  reply_entry_or_err(req, fs(req)->link(ino, newparent, newname, e), e);
}

// The fault control works after a gone fault too (it is how a test adds one).
void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size, int flags) {
  if (Fs::is_control(ino, name)) return (void)fuse_reply_err(req, fs(req)->control(value, size));
  if (gone(req)) return;
  fs(req)->setxattr(req, ino, name, value, size, flags);
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  if (gone(req)) return;
  fs(req)->getxattr(req, ino, name, size);
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  if (gone(req)) return;
  fs(req)->listxattr(req, ino, size);
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  if (gone(req)) return;
  fs(req)->removexattr(req, ino, name);
}

fuse_lowlevel_ops make_ops() {
  fuse_lowlevel_ops o{};
  o.init = op_init;
  o.lookup = op_lookup;
  o.forget = op_forget;
  o.forget_multi = op_forget_multi;
  o.getattr = op_getattr;
  o.setattr = op_setattr;
  o.mkdir = op_mkdir;
  o.unlink = op_unlink;
  o.rmdir = op_rmdir;
  o.rename = op_rename;
  o.opendir = op_opendir;
  o.readdir = op_readdir;
  o.releasedir = op_releasedir;
  o.statfs = op_statfs;
  o.open = op_open;
  o.create = op_create;
  o.write = op_write;
  o.read = op_read;
  o.flush = op_flush;
  o.release = op_release;
  o.fsync = op_fsync;
  o.fsyncdir = op_fsyncdir;
  o.fallocate = op_fallocate;
  o.symlink = op_symlink;
  o.readlink = op_readlink;
  o.link = op_link;
  o.setxattr = op_setxattr;
  o.getxattr = op_getxattr;
  o.listxattr = op_listxattr;
  o.removexattr = op_removexattr;
  return o;
}

}  // namespace

const fuse_lowlevel_ops& Fs::ops() {
  static const fuse_lowlevel_ops table = make_ops();
  return table;
}

}  // namespace sd::fusefs
