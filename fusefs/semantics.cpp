// See semantics.h. The errnos are the Linux drivers' (docs/mount.md cites them).
#include "fusefs/semantics.h"

#include <linux/falloc.h>

#include <cerrno>
#include <cmath>
#include <cstring>

namespace sd::fusefs {
namespace {
constexpr mode_t kFixedMode = 0755;    // vfat/exfat defaults under umask 022
constexpr mode_t kIgnoredMode = 0777;  // ntfs-3g and exfat-fuse mounted by root, no options

// ASCII-only case folding: what matters for recorders' file names. (The
// drivers fold all of Unicode through an up-case table; docs/mount.md.)
char fold(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

// UTF-16 code units of a UTF-8 name (a 4-byte sequence takes two); bytes
// that are not valid UTF-8 count one each.
size_t utf16_units(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    n += (c >= 0xF0) ? 2 : 1;
  }
  return n;
}
}  // namespace

Semantics::Semantics(const Profile& p) {
  const LayerParams& f = p.params(Layer::Filesystem);
  userspace_ = f.get("userspace") != 0;
  symlinks_ = f.get("symlinks") != 0;
  hard_links_ = f.get("hard_links") != 0;
  xattrs_ = f.get("xattrs") != 0;
  perms_ = static_cast<Perms>(static_cast<int>(f.get("permissions")));
  case_insensitive_ = f.get("case_insensitive") != 0;
  name_max_ = static_cast<unsigned>(f.get("name_max"));
  name_utf16_ = f.get("name_utf16") != 0;
  dos_chars_ = f.get("name_dos_chars") != 0;
  time_res_ns_ = static_cast<int64_t>(std::llround(f.get("time_resolution_us") * 1000));
  fallocate_ = static_cast<int>(f.get("fallocate"));
  if (p.has(Layer::Filesystem)) blksize_ = userspace_ ? 4096 : static_cast<blksize_t>(f.get("cluster_bytes"));
}

// The VFS answers EPERM when a kernel driver lacks the inode operation;
// through FUSE, a driver that lacks it answers ENOSYS, which reaches the caller.
int Semantics::absent_op_error() const { return userspace_ ? ENOSYS : EPERM; }

int Semantics::check_name(std::string_view name) const {
  size_t len = name_utf16_ ? utf16_units(name) : name.size();
  if (len > name_max_) return ENAMETOOLONG;
  if (dos_chars_) {
    // exfat-fuse answers ENOENT (measured), the kernel drivers EINVAL.
    for (unsigned char c : name)
      if (c < 0x20 || std::strchr("\"*:<>?\\|", c)) return userspace_ ? ENOENT : EINVAL;
  }
  return 0;
}

bool Semantics::same_name(std::string_view a, std::string_view b) const {
  if (a.size() != b.size()) return false;
  if (!case_insensitive_) return a == b;
  for (size_t i = 0; i < a.size(); ++i)
    if (fold(a[i]) != fold(b[i])) return false;
  return true;
}

mode_t Semantics::shown_mode(mode_t m) const {
  mode_t type = m & S_IFMT;
  switch (perms_) {
    case Perms::Posix: return m;
    case Perms::Ignored:
    case Perms::IgnoredNoChown: return type | kIgnoredMode;
    case Perms::Fixed:
      // The read-only attribute is the backing object's owner write bit.
      return type | ((m & S_IWUSR) ? kFixedMode : (kFixedMode & ~mode_t{0222}));
  }
  return m;
}

int Semantics::chmod_error(mode_t cur, mode_t want, mode_t* store) const {
  switch (perms_) {
    case Perms::Posix: *store = want; return 0;
    case Perms::Ignored: return 0;
    // fuse_exfat_chmod (exfat-fuse's fuse/main.c): bits outside 0777 are EPERM
    // (measured), other modes succeed and change nothing.
    case Perms::IgnoredNoChown: return (want & 07000) ? EPERM : 0;
    case Perms::Fixed: {
      // fat_setattr (Linux fs/fat/file.c; exfat_setattr in fs/exfat/file.c
      // alike): special bits are EPERM. Then fat_sanitize_mode judges the
      // mode under the mask (022): the r and x bits must stay as they are, the
      // w bits be all of the mask's or none, and a directory cannot lose them;
      // a mode it refuses is dropped and the call still succeeds ("We don't
      // return -EPERM here", measured on vfat: docs/mount.md).
      if (want & 07000) return EPERM;
      mode_t perm = want & kFixedMode, w = perm & 0222, all_w = kFixedMode & 0222;
      if ((perm & 0555) != (cur & 0555)) return 0;
      if (S_ISDIR(cur) ? w != all_w : (w != 0 && w != all_w)) return 0;
      *store = w ? S_IWUSR | 0500 : 0500;  // the backing object keeps the attribute for us
      return 0;
    }
  }
  return 0;
}

int Semantics::chown_error(bool changes) const {
  return changes && (perms_ == Perms::Fixed || perms_ == Perms::IgnoredNoChown) ? EPERM : 0;
}

struct timespec Semantics::round_time(struct timespec t) const {
  if (time_res_ns_ <= 1 || t.tv_nsec == UTIME_NOW || t.tv_nsec == UTIME_OMIT) return t;
  // Floor to a multiple of the resolution R (<= 1e10 ns), also before 1970,
  // without 128-bit integers (none on 32-bit ARM): (sec * 1e9 + nsec) mod R
  // from sec mod R and 1e9 mod R, whose product stays under 1e19 < 2^64.
  const auto res = static_cast<uint64_t>(time_res_ns_);
  const int64_t sec = t.tv_sec;
  const auto sec_mod = static_cast<uint64_t>(((sec % time_res_ns_) + time_res_ns_) % time_res_ns_);
  const uint64_t excess = (sec_mod * (1'000'000'000 % res) % res + static_cast<uint64_t>(t.tv_nsec)) % res;
  t.tv_sec = static_cast<time_t>(sec - static_cast<int64_t>(excess / 1'000'000'000));
  t.tv_nsec -= static_cast<long>(excess % 1'000'000'000);
  if (t.tv_nsec < 0) t.tv_nsec += 1'000'000'000, --t.tv_sec;
  return t;
}

int Semantics::fallocate_error(int mode) const {
  if (fallocate_ == 2) return 0;
  if (fallocate_ == 1 && (mode & ~FALLOC_FL_KEEP_SIZE) == 0) return 0;
  return EOPNOTSUPP;
}

}  // namespace sd::fusefs
