// Metadata operations: passed through to the backing directory.
#include <dirent.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "fusefs/fs.h"

namespace sd::fusefs {

int Fs::stat_inode(Inode* in, struct stat& st) {
  if (fstatat(in->fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) return errno;
  st.st_ino = in->id;
  // With --discard the backing file is sparse; report the emulated use.
  if (opt_.discard && S_ISREG(st.st_mode)) st.st_blocks = (st.st_size + 511) / 512;
  present(st);
  return 0;
}

void Fs::present(struct stat& st) const {
  st.st_mode = sem_.shown_mode(st.st_mode);
  if (sem_.blksize() > 0) st.st_blksize = sem_.blksize();
  if (sem_.perms() != Semantics::Perms::Posix) {
    // Owner and group are the mount's (FAT, exFAT, ntfs-3g without permissions).
    st.st_uid = geteuid();
    st.st_gid = getegid();
  }
  st.st_atim = sem_.round_time(st.st_atim);
  st.st_mtim = sem_.round_time(st.st_mtim);
  st.st_ctim = sem_.round_time(st.st_ctim);
}

std::string Fs::backing_name(Inode* parent, const char* name) {
  if (!sem_.case_insensitive()) return name;
  struct stat st {};
  if (fstatat(parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) return name;
  // No exact match: the first entry equal without case (the backing
  // directory never holds two, since creation checks here first).
  int fd = openat(parent->fd, ".", O_RDONLY | O_DIRECTORY);
  if (fd < 0) return name;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return name;
  }
  std::string found = name;
  while (struct dirent* de = ::readdir(d)) {
    if (sem_.same_name(de->d_name, name)) {
      found = de->d_name;
      break;
    }
  }
  closedir(d);
  return found;
}

int Fs::entry_for(Inode* parent, const char* name, fuse_entry_param& e, bool register_in_model) {
  int fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW);
  if (fd < 0) return errno;
  struct stat st {};
  if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
    int err = errno;
    close(fd);
    return err;
  }
  Inode* in = inodes_.add_lookup(fd, st);
  if (in->regular()) {
    std::lock_guard lk(model_mu_);
    faults_.name_file(in->model_id(), name);  // for file= patterns
  }
  if (register_in_model) ensure_in_model(in, static_cast<uint64_t>(st.st_size), 0);
  e = fuse_entry_param{};
  e.ino = in->id;
  e.attr = st;
  e.attr.st_ino = in->id;
  if (opt_.discard && S_ISREG(st.st_mode)) e.attr.st_blocks = (st.st_size + 511) / 512;
  present(e.attr);
  e.attr_timeout = kAttrTimeout;
  e.entry_timeout = kAttrTimeout;
  return 0;
}

int Fs::lookup(Ino parent, const char* name, fuse_entry_param& e) {
  Inode* p = inode(parent);
  if (!p) return ESTALE;
  return entry_for(p, backing_name(p, name).c_str(), e);
}

void Fs::forget(Ino ino, uint64_t n) {
  std::unique_ptr<Inode> gone = inodes_.forget(ino, n);
  if (!gone) return;
  struct stat st {};
  bool unlinked = fstatat(gone->fd, "", &st, AT_EMPTY_PATH) == 0 && st.st_nlink == 0;
  if (gone->regular() && unlinked) {
    // The last name and the last reference are gone: the emulated device
    // frees the file's clusters now, as a real filesystem would.
    Issued is = submit(Op{OpKind::Remove, gone->model_id(), 0, 0, false}, 0);
    record(is, clock_.now(), is.c.error, 0);
  }
  close(gone->fd);
}

int Fs::getattr(Ino ino, struct stat& st) {
  Inode* in = inode(ino);
  return in ? stat_inode(in, st) : ESTALE;
}

int Fs::setattr(fuse_req_t req, Ino ino, struct stat* attr, int to_set, fuse_file_info* fi, struct stat& out) {
  Inode* in = inode(ino);
  if (!in) return ESTALE;
  std::string path = proc_path(in->fd);
  // fi->fh is a Handle for files, a DirHandle for directories (fchmod on a
  // directory descriptor also arrives with fi): use it for files only.
  int fd = fi && in->regular() ? reinterpret_cast<Handle*>(fi->fh)->fd : -1;
  if (to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
    uid_t u = (to_set & FUSE_SET_ATTR_UID) ? attr->st_uid : static_cast<uid_t>(-1);
    gid_t g = (to_set & FUSE_SET_ATTR_GID) ? attr->st_gid : static_cast<gid_t>(-1);
    if (sem_.perms() != Semantics::Perms::Posix) {
      bool changes = (u != static_cast<uid_t>(-1) && u != geteuid()) || (g != static_cast<gid_t>(-1) && g != getegid());
      if (int err = sem_.chown_error(changes)) return err;
    } else if (fchownat(in->fd, "", u, g, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0) {
      return errno;
    }
  }
  if (to_set & FUSE_SET_ATTR_MODE) {
    struct stat cur {};
    if (int err = stat_inode(in, cur)) return err;
    mode_t store = 0;
    bool set = true;
    if (sem_.perms() != Semantics::Perms::Posix) {
      store = ~mode_t{0};
      if (int err = sem_.chmod_error(cur.st_mode, attr->st_mode, &store)) return err;
      set = store != ~mode_t{0};
    } else {
      store = attr->st_mode;
    }
    if (set && (fd >= 0 ? fchmod(fd, store) : chmod(path.c_str(), store)) != 0) return errno;
  }
  if (to_set & FUSE_SET_ATTR_SIZE) {
    if (!in->regular()) return EISDIR;
    Issued is = submit(Op{OpKind::Truncate, in->model_id(), 0, static_cast<uint64_t>(attr->st_size), false},
                       static_cast<int>(fuse_req_ctx(req)->pid));
    record(is, clock_.now(), is.c.error, 0);
    if (is.c.error) return is.c.error;
    if ((fd >= 0 ? ftruncate(fd, attr->st_size) : truncate(path.c_str(), attr->st_size)) != 0) return errno;
  }
  if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME)) {
    struct timespec tv[2];
    tv[0].tv_nsec = tv[1].tv_nsec = UTIME_OMIT;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) tv[0].tv_nsec = UTIME_NOW;
    else if (to_set & FUSE_SET_ATTR_ATIME) tv[0] = attr->st_atim;
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) tv[1].tv_nsec = UTIME_NOW;
    else if (to_set & FUSE_SET_ATTR_MTIME) tv[1] = attr->st_mtim;
    tv[0] = sem_.round_time(tv[0]);
    tv[1] = sem_.round_time(tv[1]);
    int r = fd >= 0 ? futimens(fd, tv) : utimensat(AT_FDCWD, path.c_str(), tv, 0);
    if (r != 0) return errno;
  }
  return stat_inode(in, out);
}

int Fs::mkdir(Ino parent, const char* name, mode_t mode, fuse_entry_param& e) {
  Inode* p = inode(parent);
  if (!p) return ESTALE;
  if (int err = sem_.check_name(name)) return err;
  if (backing_name(p, name) != name) return EEXIST;
  if (mkdirat(p->fd, name, mode) != 0) return errno;
  return entry_for(p, name, e);
}

int Fs::unlink(Ino parent, const char* name) {
  Inode* p = inode(parent);
  if (!p) return ESTALE;
  // The model frees the file's space when the kernel forgets the inode.
  return unlinkat(p->fd, backing_name(p, name).c_str(), 0) == 0 ? 0 : errno;
}

int Fs::rmdir(Ino parent, const char* name) {
  Inode* p = inode(parent);
  if (!p) return ESTALE;
  return unlinkat(p->fd, backing_name(p, name).c_str(), AT_REMOVEDIR) == 0 ? 0 : errno;
}

int Fs::rename(Ino parent, const char* name, Ino newparent, const char* newname, unsigned flags) {
  Inode* p = inode(parent);
  Inode* np = inode(newparent);
  if (!p || !np) return ESTALE;
  if (int err = sem_.check_name(newname)) return err;
  // Without case, a target that exists under another case is that file.
  std::string from = backing_name(p, name), to = backing_name(np, newname);
  if (p == np && from == to) return 0;  // a case-only rename keeps the stored name (see docs/mount.md)
  return renameat2(p->fd, from.c_str(), np->fd, to.c_str(), flags) == 0 ? 0 : errno;
}

struct DirHandle {
  DIR* dir = nullptr;
  off_t pos = 0;
};

int Fs::opendir(Ino ino, fuse_file_info* fi) {
  Inode* in = inode(ino);
  if (!in) return ESTALE;
  int fd = openat(in->fd, ".", O_RDONLY | O_DIRECTORY);
  if (fd < 0) return errno;
  DIR* d = fdopendir(fd);
  if (!d) {
    int err = errno;
    close(fd);
    return err;
  }
  fi->fh = reinterpret_cast<uint64_t>(new DirHandle{d, 0});
  return 0;
}

void Fs::readdir(fuse_req_t req, Ino ino, size_t size, off_t off, fuse_file_info* fi) {
  auto* h = reinterpret_cast<DirHandle*>(fi->fh);
  if (off != h->pos) {
    seekdir(h->dir, off);
    h->pos = off;
  }
  std::vector<char> buf(size);
  size_t used = 0;
  for (;;) {
    errno = 0;
    struct dirent* de = ::readdir(h->dir);
    if (!de) {
      if (errno != 0 && used == 0) {
        fuse_reply_err(req, errno);
        return;
      }
      break;
    }
    struct stat st {};
    st.st_ino = de->d_ino;
    st.st_mode = static_cast<mode_t>(de->d_type) << 12;
    off_t next = telldir(h->dir);
    size_t n = fuse_add_direntry(req, buf.data() + used, size - used, de->d_name, &st, next);
    if (n > size - used) {
      seekdir(h->dir, h->pos);  // did not fit: hand it out next time
      break;
    }
    used += n;
    h->pos = next;
  }
  fuse_reply_buf(req, buf.data(), used);
}

void Fs::releasedir(fuse_file_info* fi) {
  auto* h = reinterpret_cast<DirHandle*>(fi->fh);
  closedir(h->dir);
  delete h;
}

int Fs::statfs(struct statvfs& sv) {
  if (fstatvfs(inodes_.root()->fd, &sv) != 0) return errno;
  sv.f_namemax = sem_.statfs_namemax();
  std::lock_guard lk(model_mu_);
  double cap = model_.files().capacity();
  if (cap <= 0) return 0;  // unlimited profile: the backing directory's figures
  double cluster = model_.files().cluster();
  double free_bytes = std::max(0.0, cap - model_.files().used_bytes());
  sv.f_bsize = sv.f_frsize = static_cast<unsigned long>(cluster);
  sv.f_blocks = static_cast<fsblkcnt_t>(std::floor(cap / cluster));
  sv.f_bfree = sv.f_bavail = static_cast<fsblkcnt_t>(std::floor(free_bytes / cluster));
  return 0;
}

}  // namespace sd::fusefs
