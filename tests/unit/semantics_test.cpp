// The mount's filesystem semantics, read from each built-in filesystem
// profile: what each Linux driver refuses, and with which errno.
#include <linux/falloc.h>

#include <cerrno>

#include <catch2/catch.hpp>

#include "fusefs/semantics.h"

using namespace sd;
using sd::fusefs::Semantics;

namespace {
Semantics of(const char* fs) {
  auto p = load_profile(std::string(fs) + "+samsung-960evo-250g");
  REQUIRE(p.ok());
  return Semantics(*p);
}
}  // namespace

TEST_CASE("semantics: links per filesystem, EPERM from a kernel driver and ENOSYS from a FUSE one", "[mount]") {
  CHECK(of("ext4").symlink_error() == 0);
  CHECK(of("ext4").link_error() == 0);
  CHECK(of("ntfs-3g").symlink_error() == 0);
  CHECK(of("ntfs-3g").link_error() == 0);
  for (const char* fs : {"fat32", "exfat-kernel"}) {
    INFO(fs);
    CHECK(of(fs).symlink_error() == EPERM);
    CHECK(of(fs).link_error() == EPERM);
    CHECK_FALSE(of(fs).xattrs());
  }
  CHECK(of("exfat-fuse").symlink_error() == ENOSYS);
  CHECK(of("exfat-fuse").link_error() == EPERM);
  CHECK(of("exfat-fuse").userspace());
  CHECK(of("ntfs-3g").xattrs());
  CHECK(of("ext4").xattrs());
}

TEST_CASE("semantics: names: case folding on FAT and exFAT, length in UTF-16 units, DOS characters", "[mount]") {
  Semantics fat = of("fat32"), ext4 = of("ext4"), ntfs = of("ntfs-3g");
  CHECK(fat.same_name("Take1.WAV", "take1.wav"));
  CHECK_FALSE(fat.same_name("take1.wav", "take2.wav"));
  CHECK(of("exfat-kernel").same_name("A", "a"));
  CHECK_FALSE(ext4.same_name("A", "a"));
  CHECK_FALSE(ntfs.same_name("A", "a"));  // ntfs-3g matches case (POSIX namespace)
  CHECK(fat.check_name("a:b") == EINVAL);
  CHECK(fat.check_name("what?") == EINVAL);
  CHECK(of("exfat-fuse").check_name("a:b") == ENOENT);
  CHECK(ext4.check_name("a:b") == 0);
  CHECK(ntfs.check_name("a:b") == 0);
  // 200 two-byte characters: 400 bytes (too long for ext4), 200 UTF-16 units (fine on FAT).
  std::string accented;
  for (int i = 0; i < 200; ++i) accented += "\xc3\xa9";
  CHECK(ext4.check_name(accented) == ENAMETOOLONG);
  CHECK(fat.check_name(accented) == 0);
  CHECK(fat.check_name(std::string(256, 'a')) == ENAMETOOLONG);
  CHECK(fat.check_name(std::string(255, 'a')) == 0);
  CHECK(fat.statfs_namemax() == 1530);  // vfat reports 255 units x 6 bytes
  CHECK(of("exfat-fuse").statfs_namemax() == 255);
}

TEST_CASE("semantics: permissions: FAT fixes modes and changes only the read-only attribute", "[mount]") {
  Semantics fat = of("fat32");
  CHECK(fat.shown_mode(S_IFREG | 0644) == (S_IFREG | 0755));
  CHECK(fat.shown_mode(S_IFREG | 0444) == (S_IFREG | 0555));
  mode_t store = 0;
  CHECK(fat.chmod_error(S_IFREG | 0755, S_IFREG | 0555, &store) == 0);  // chmod a-w
  CHECK((store & 0200) == 0);
  // A mode vfat cannot hold succeeds and changes nothing (measured on vfat).
  store = ~mode_t{0};
  CHECK(fat.chmod_error(S_IFREG | 0755, S_IFREG | 0644, &store) == 0);  // drops x bits
  CHECK(store == ~mode_t{0});
  CHECK(fat.chmod_error(S_IFDIR | 0755, S_IFDIR | 0555, &store) == 0);  // a directory keeps w
  CHECK(store == ~mode_t{0});
  CHECK(fat.chmod_error(S_IFREG | 0555, S_IFREG | 0777, &store) == 0);  // 0755 under the mask: u+w
  CHECK((store & 0200) != 0);
  CHECK(fat.chmod_error(S_IFREG | 0755, S_IFREG | 04755, &store) == EPERM);  // special bits
  CHECK(fat.chown_error(true) == EPERM);
  CHECK(fat.chown_error(false) == 0);
  Semantics ntfs = of("ntfs-3g");
  CHECK(ntfs.shown_mode(S_IFREG | 0600) == (S_IFREG | 0777));
  store = 0;
  CHECK(ntfs.chmod_error(S_IFREG | 0777, S_IFREG | 0600, &store) == 0);
  CHECK(store == 0);  // accepted, nothing stored
  CHECK(ntfs.chown_error(true) == 0);
  CHECK(ntfs.chmod_error(S_IFREG | 0777, S_IFREG | 04755, &store) == 0);  // ntfs-3g takes even setuid
  CHECK(of("exfat-fuse").chmod_error(S_IFREG | 0777, S_IFREG | 0600, &store) == 0);
  CHECK(of("exfat-fuse").chmod_error(S_IFREG | 0777, S_IFREG | 04755, &store) == EPERM);  // measured
  CHECK(of("exfat-fuse").chown_error(true) == EPERM);
  CHECK(of("exfat-fuse").chown_error(false) == 0);
  Semantics ext4 = of("ext4");
  CHECK(ext4.shown_mode(S_IFREG | 0640) == (S_IFREG | 0640));
  CHECK(ext4.chmod_error(S_IFREG | 0640, S_IFREG | 0600, &store) == 0);
  CHECK((store & 07777) == 0600);
}

TEST_CASE("semantics: timestamps round down to the filesystem's resolution", "[mount]") {
  struct timespec t {1000000001, 999999999};
  struct timespec f = of("fat32").round_time(t);
  CHECK(f.tv_sec == 1000000000);
  CHECK(f.tv_nsec == 0);
  struct timespec x = of("exfat-kernel").round_time(t);
  CHECK(x.tv_sec == 1000000001);
  CHECK(x.tv_nsec == 990000000);
  struct timespec n = of("ntfs-3g").round_time(t);
  CHECK(n.tv_nsec == 999999900);
  CHECK(of("ext4").round_time(t).tv_nsec == 999999999);
  // Before 1970 it still rounds down (toward earlier times), also with a 32-bit time_t.
  struct timespec before {-3, 500000000};
  struct timespec fb = of("fat32").round_time(before);
  CHECK(fb.tv_sec == -4);
  CHECK(fb.tv_nsec == 0);
  struct timespec xb = of("exfat-kernel").round_time({-1, 5000001});
  CHECK(xb.tv_sec == -1);
  CHECK(xb.tv_nsec == 0);
  struct timespec now {0, UTIME_NOW};
  CHECK(of("fat32").round_time(now).tv_nsec == UTIME_NOW);
}

TEST_CASE("semantics: fallocate: every mode on ext4, allocation only on FAT, none on exFAT and NTFS", "[mount]") {
  CHECK(of("ext4").fallocate_error(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) == 0);
  CHECK(of("fat32").fallocate_error(0) == 0);
  CHECK(of("fat32").fallocate_error(FALLOC_FL_KEEP_SIZE) == 0);
  CHECK(of("fat32").fallocate_error(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) == EOPNOTSUPP);
  for (const char* fs : {"exfat-kernel", "exfat-fuse", "ntfs-3g"}) CHECK(of(fs).fallocate_error(0) == EOPNOTSUPP);
}

TEST_CASE("semantics: st_blksize is a kernel driver's cluster and a FUSE driver's 4096", "[mount]") {
  // Buffered writers size their buffers from it (glibc's stdio up to 8 KiB).
  CHECK(of("fat32").blksize() == 32768);  // fat_getattr: the cluster (the profile's 32 KiB)
  CHECK(of("exfat-kernel").blksize() == 32768);
  CHECK(of("ext4").blksize() == 4096);
  CHECK(of("exfat-fuse").blksize() == 4096);  // measured: 4096 whatever the cluster
  CHECK(of("ntfs-3g").blksize() == 4096);
  auto p = load_profile("fat32+samsung-960evo-250g", {"filesystem.cluster_bytes=8192"});
  REQUIRE(p.ok());
  CHECK(Semantics(*p).blksize() == 8192);
  auto bare = load_profile("samsung-960evo-250g");
  REQUIRE(bare.ok());
  CHECK(Semantics(*bare).blksize() == 0);  // no filesystem layer: the backing file's
}
