// sd_nullfs MOUNTPOINT: a do-nothing low-level FUSE filesystem with the same
// options as `streamdisk mount` (max_write 1 MiB, direct_io on open, no
// writeback cache, multithreaded loop). One file, /data: writes are
// acknowledged at once and dropped, reads return zeros. It is the ceiling
// the emulator is measured against (bench/mount_bench.sh).
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>
#include <sys/stat.h>

#include <csignal>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr fuse_ino_t kFile = 2;
std::atomic<off_t> g_size{0};  // a benchmark tool, one file: a global is the honest shape
const std::vector<char> kZeros(1 << 20, 0);

void fill_stat(fuse_ino_t ino, struct stat& st) {
  st = {};
  st.st_ino = ino;
  if (ino == FUSE_ROOT_ID) {
    st.st_mode = S_IFDIR | 0755;
    st.st_nlink = 2;
  } else {
    st.st_mode = S_IFREG | 0644;
    st.st_nlink = 1;
    st.st_size = g_size;
  }
}

void op_init(void*, fuse_conn_info* conn) {
  conn->max_write = 1 << 20;
  conn->max_read = 1 << 20;
  conn->want &= ~(FUSE_CAP_WRITEBACK_CACHE | FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
}
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (parent != FUSE_ROOT_ID || std::strcmp(name, "data") != 0) return (void)fuse_reply_err(req, ENOENT);
  fuse_entry_param e{};
  e.ino = kFile;
  e.attr_timeout = e.entry_timeout = 1.0;
  fill_stat(kFile, e.attr);
  fuse_reply_entry(req, &e);
}
void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  struct stat st;
  fill_stat(ino, st);
  fuse_reply_attr(req, &st, 1.0);
}
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info*) {
  if (to_set & FUSE_SET_ATTR_SIZE) g_size = attr->st_size;
  struct stat st;
  fill_stat(ino, st);
  fuse_reply_attr(req, &st, 1.0);
}
void op_open(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  fi->direct_io = 1;
  fuse_reply_open(req, fi);
}
void op_write(fuse_req_t req, fuse_ino_t, const char*, size_t size, off_t off, fuse_file_info*) {
  off_t end = off + static_cast<off_t>(size), cur = g_size;
  while (end > cur && !g_size.compare_exchange_weak(cur, end)) {
  }
  fuse_reply_write(req, size);
}
void op_read(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info*) {
  off_t sz = g_size;
  size_t n = off >= sz ? 0 : std::min<size_t>({size, static_cast<size_t>(sz - off), kZeros.size()});
  fuse_reply_buf(req, kZeros.data(), n);
}
void op_create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t, fuse_file_info* fi) {
  if (parent != FUSE_ROOT_ID || std::strcmp(name, "data") != 0) return (void)fuse_reply_err(req, EACCES);
  fuse_entry_param e{};
  e.ino = kFile;
  e.attr_timeout = e.entry_timeout = 1.0;
  fill_stat(kFile, e.attr);
  fi->direct_io = 1;
  fuse_reply_create(req, &e, fi);
}
void op_unlink(fuse_req_t req, fuse_ino_t, const char*) {
  g_size = 0;  // the one file stays; it is only emptied
  fuse_reply_err(req, 0);
}
void op_ok(fuse_req_t req, fuse_ino_t, fuse_file_info*) { fuse_reply_err(req, 0); }
void op_fsync(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) { fuse_reply_err(req, 0); }
void op_fallocate(fuse_req_t req, fuse_ino_t, int, off_t, off_t, fuse_file_info*) { fuse_reply_err(req, 0); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sd_nullfs MOUNTPOINT\n");
    return 2;
  }
  fuse_lowlevel_ops ops{};
  ops.init = op_init;
  ops.lookup = op_lookup;
  ops.getattr = op_getattr;
  ops.setattr = op_setattr;
  ops.open = op_open;
  ops.create = op_create;
  ops.unlink = op_unlink;
  ops.write = op_write;
  ops.read = op_read;
  ops.flush = op_ok;
  ops.release = op_ok;
  ops.fsync = op_fsync;
  ops.fallocate = op_fallocate;
  std::string opts = "fsname=sd_nullfs,auto_unmount,max_read=1048576";
  char arg0[] = "sd_nullfs", o[] = "-o";
  char* av[] = {arg0, o, opts.data()};
  fuse_args args = FUSE_ARGS_INIT(3, av);
  fuse_session* se = fuse_session_new(&args, &ops, sizeof(ops), nullptr);
  signal(SIGINT, SIG_DFL);  // started from a script, SIGINT arrives ignored; libfuse leaves it so
  if (!se || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, argv[1]) != 0) return 1;
  fuse_loop_config* cfg = fuse_loop_cfg_create();
  fuse_loop_cfg_set_max_threads(cfg, 16);
  fuse_loop_cfg_set_idle_threads(cfg, 16);
  int rc = fuse_session_loop_mt(se, cfg);
  fuse_loop_cfg_destroy(cfg);
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  return rc < 0 ? 1 : 0;
}
