// Everything that can be wrong before mounting, reported as bad input with
// the fix (DESIGN.md "Conventions for users").
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "fusefs/mount.h"
#include "models/mountinfo.h"
#include "models/output_file.h"

namespace sd::fusefs {
namespace {

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool inside(const std::string& child, const std::string& parent) {
  return child == parent || (child.size() > parent.size() && child.compare(0, parent.size(), parent) == 0 &&
                             (parent == "/" || child[parent.size()] == '/'));
}

bool on_path(const std::string& prog) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
  return false;
}

bool is_mount_point(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::string mp, type, source;
    if (parse_mountinfo_line(line, mp, type, source) && mp == path) return true;
  }
  struct stat a {}, b {};
  return stat(path.c_str(), &a) == 0 && stat((path + "/..").c_str(), &b) == 0 && a.st_dev != b.st_dev;
}

bool dir_empty(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) return false;
  bool empty = true;
  while (struct dirent* de = readdir(d)) {
    std::string n = de->d_name;
    if (n != "." && n != "..") {
      empty = false;
      break;
    }
  }
  closedir(d);
  return empty;
}

}  // namespace

Status check_mount(MountOptions& opt) {
  // STREAMDISK_FUSE_DEVICE lets the tests point the check at a missing device.
  const char* dev_env = std::getenv("STREAMDISK_FUSE_DEVICE");
  std::string dev = dev_env ? dev_env : "/dev/fuse";
  if (access(dev.c_str(), R_OK | W_OK) != 0)
    return Status::error(fmt::format("cannot use {}: load the fuse module (modprobe fuse), or give the container "
                                     "the device (docker run --device /dev/fuse --cap-add SYS_ADMIN)",
                                     dev));
  if (!on_path("fusermount3"))
    return Status::error("fusermount3 not found on PATH: install the fuse3 package (apt-get install fuse3)");

  struct stat st {};
  if (stat(opt.mountpoint.c_str(), &st) != 0)
    return Status::error(errno == ENOTCONN
                             ? fmt::format("mount point {} is a dead FUSE mount (its daemon is gone): unmount it "
                                           "(fusermount3 -u {}), then mount again",
                                           opt.mountpoint, opt.mountpoint)
                             : fmt::format("mount point {} does not exist: create it (mkdir -p {})", opt.mountpoint,
                                     opt.mountpoint));
  if (!S_ISDIR(st.st_mode))
    return Status::error(fmt::format("mount point {} is not a directory: give an empty directory", opt.mountpoint));
  std::string mp = real_path(opt.mountpoint);
  if (is_mount_point(mp))
    return Status::error(fmt::format("mount point {} is busy (something is mounted there): unmount it first "
                                     "(fusermount3 -u {}) or choose another directory",
                                     mp, mp));
  opt.mountpoint = mp;

  if (opt.backing.empty() && !opt.discard)
    return Status::error("give --backing DIR (the recorder's files are kept there) or --discard (keep sizes, not "
                         "contents)");
  if (!opt.backing.empty()) {
    if (stat(opt.backing.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return Status::error(fmt::format("backing directory {} is not a directory: create it (mkdir -p {})",
                                       opt.backing, opt.backing));
    std::string b = real_path(opt.backing);
    if (access(b.c_str(), R_OK | W_OK | X_OK) != 0)
      return Status::error(fmt::format("backing directory {} is not writable: choose one you can write to", b));
    if (inside(b, mp))
      return Status::error(fmt::format("backing directory {} is inside the mount point {}: put it elsewhere "
                                       "(it would be hidden by the mount)",
                                       b, mp));
    if (inside(mp, b))
      return Status::error(fmt::format("mount point {} is inside the backing directory {}: put them side by "
                                       "side (the filesystem would contain itself)",
                                       mp, b));
    opt.backing = b;
  }
  if (!dir_empty(mp))
    return Status::error(fmt::format("mount point {} is not empty: give an empty directory (its files would be "
                                     "hidden while mounted)",
                                     mp));
  if (!opt.trace_path.empty() && opt.trace_path != "-") {
    std::filesystem::path parent = std::filesystem::path(opt.trace_path).parent_path();
    std::string dir = parent.empty() ? "." : parent.string();
    if (access(dir.c_str(), W_OK) != 0)
      return Status::error(fmt::format("cannot write the trace {}: directory {} is missing or not writable",
                                       opt.trace_path, dir));
    std::string t = real_path(dir);
    if (inside(t, mp))
      return Status::error(fmt::format("trace {} would be written inside the mount point: write it elsewhere",
                                       opt.trace_path));
    // The output-file rules (a directory, a block device, the profile itself...)
    // now, as bad input: the mount opens the trace again after these checks.
    OutputFile probe;
    if (Status st = probe.open(opt.trace_path, {"--trace", "trace.csv", true, opt.trace_inputs}); !st.ok()) return st;
  }
  return {};
}

}  // namespace sd::fusefs
