// What the emulated filesystem supports, from the profile's filesystem layer
// (symlinks, hard_links, xattrs, permissions, case_insensitive, name_*,
// time_resolution_us, fallocate; models/params.cpp), and the errno its Linux
// driver gives for what it does not. The mount asks before passing a call
// through to the backing directory (which supports everything). Pure and
// immutable after construction: safe from every worker thread.
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <string_view>

#include "models/profile.h"

namespace sd::fusefs {

class Semantics {
 public:
  // The `permissions` parameter.
  enum class Perms { Fixed = 0, IgnoredNoChown = 1, Ignored = 2, Posix = 3 };

  explicit Semantics(const Profile& p);
  Semantics() = default;  // everything supported, as the backing directory

  // 0, or the errno symlink()/link() fail with on this filesystem.
  int symlink_error() const { return symlinks_ ? 0 : absent_op_error(); }
  int link_error() const { return hard_links_ ? 0 : EPERM; }  // exfat-fuse too (measured)
  bool xattrs() const { return xattrs_; }
  // A driver without xattrs: a userspace one answers ENOSYS (the kernel's
  // FUSE client then fails every xattr call with EOPNOTSUPP, listxattr too);
  // a kernel one has no handlers (EOPNOTSUPP, and listxattr lists nothing).
  bool userspace() const { return userspace_; }
  bool case_insensitive() const { return case_insensitive_; }
  // 0, ENAMETOOLONG or EINVAL for a new name.
  int check_name(std::string_view name) const;
  // statfs's f_namemax: the kernel's vfat and exfat report the longest name
  // in bytes of UTF-8 (255 units x 6), the others name_max itself.
  unsigned long statfs_namemax() const { return name_utf16_ && !userspace_ ? name_max_ * 6ul : name_max_; }
  // st_blksize (glibc's stdio buffer is this, up to 8 KiB): a kernel driver
  // reports its allocation unit (fat_getattr and exfat_getattr the cluster,
  // ext4 the block), a FUSE one 4096 (exfat-fuse and ntfs-3g, measured); 0
  // without a filesystem layer (the backing file's).
  blksize_t blksize() const { return blksize_; }
  // Whether two names of one directory are the same name here.
  bool same_name(std::string_view a, std::string_view b) const;

  Perms perms() const { return perms_; }
  // The mode shown for a backing object of mode `m` (type bits kept).
  mode_t shown_mode(mode_t m) const;
  // 0 if chmod from shown mode `cur` to `want` is allowed (and then the mode
  // to store on the backing object in *store, or *store unchanged if the
  // call changes nothing), else the errno.
  int chmod_error(mode_t cur, mode_t want, mode_t* store) const;
  // 0 or EPERM for chown; `changes` = it asks for another owner or group.
  int chown_error(bool changes) const;

  // Rounds a timestamp down to the stored resolution (UTIME_NOW/OMIT kept).
  struct timespec round_time(struct timespec t) const;
  // 0 or EOPNOTSUPP for fallocate(mode).
  int fallocate_error(int mode) const;

 private:
  int absent_op_error() const;
  bool userspace_ = false, symlinks_ = true, hard_links_ = true, xattrs_ = true;
  Perms perms_ = Perms::Posix;
  bool case_insensitive_ = false, name_utf16_ = false, dos_chars_ = false;
  unsigned name_max_ = 255;
  int64_t time_res_ns_ = 0;  // 0 = as stored on the backing directory
  int fallocate_ = 2;        // the `fallocate` parameter
  blksize_t blksize_ = 0;
};

}  // namespace sd::fusefs
