#include "measure/fs_info.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace sd {
namespace {

// What follows `key` in the last `sep`-separated item of `text` that starts
// with it ("commit=" in mount options, "flags:" in an fdinfo text).
std::optional<std::string> item_value(std::string_view text, char sep, std::string_view key) {
  std::optional<std::string> found;
  while (!text.empty()) {
    size_t at = text.find(sep);
    std::string_view item = text.substr(0, at);
    if (item.starts_with(key)) found = std::string(item.substr(key.size()));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return found;
}

bool under(const std::string& path, const std::string& mp) {
  if (mp == "/") return true;
  return path == mp || (path.size() > mp.size() && path.compare(0, mp.size(), mp) == 0 && path[mp.size()] == '/');
}

}  // namespace

DriverIo driver_io_of_flags(unsigned long flags) {
  if (flags & O_DIRECT) return DriverIo::Direct;
  if (flags & (O_SYNC | O_DSYNC)) return DriverIo::Sync;  // O_SYNC holds O_DSYNC's bit
  return DriverIo::PageCache;
}

bool fdinfo_flags(std::string_view text, unsigned long& flags) {
  auto v = item_value(text, '\n', "flags:");
  if (!v) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long x = std::strtoul(v->c_str(), &end, 8);
  if (errno || !end || end == v->c_str() || v->find('-') != std::string::npos) return false;  // no digits, or negative
  while (*end == ' ' || *end == '\t') ++end;
  if (*end) return false;
  flags = x;
  return true;
}

void find_driver_io(FsInfo& info, const std::string& proc) {
  info.driver_io = DriverIo::Unknown;
  if (!info.userspace) return;
  if (info.source.empty() || info.source[0] != '/') {
    info.driver_how = fmt::format("the mount's source ({}) is not a device or a file: how its driver writes is not "
                                  "known",
                                  info.source.empty() ? "none" : info.source);
    return;
  }
  struct stat src{};
  if (::stat(info.source.c_str(), &src) != 0 || !(S_ISBLK(src.st_mode) || S_ISREG(src.st_mode))) {
    info.driver_how = fmt::format("the mount's source {} is not a block device or a file here: how its driver writes "
                                  "is not known",
                                  info.source);
    return;
  }
  const bool blk = S_ISBLK(src.st_mode);
  struct Holder {
    long pid;
    std::string comm;
    unsigned long flags;
  };
  std::vector<Holder> holders;
  size_t unreadable = 0;
  const long self = static_cast<long>(::getpid());
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(proc, ec)) {
    std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    long pid = std::atol(name.c_str());
    if (pid == self) continue;
    std::error_code ec2;
    std::filesystem::directory_iterator fds(e.path() / "fd", ec2);
    if (ec2) {
      unreadable += ec2 == std::errc::permission_denied;
      continue;
    }
    for (const auto& fd : fds) {
      struct stat st{};
      if (::stat(fd.path().c_str(), &st) != 0) continue;
      bool same = blk ? S_ISBLK(st.st_mode) && st.st_rdev == src.st_rdev
                      : S_ISREG(st.st_mode) && st.st_dev == src.st_dev && st.st_ino == src.st_ino;
      if (!same) continue;
      std::ifstream fi(e.path() / "fdinfo" / fd.path().filename());
      std::string text((std::istreambuf_iterator<char>(fi)), std::istreambuf_iterator<char>());
      unsigned long flags = 0;
      if (!fdinfo_flags(text, flags)) continue;
      std::ifstream cf(e.path() / "comm");
      std::string comm;
      std::getline(cf, comm);
      holders.push_back({pid, comm, flags});
    }
  }
  if (holders.empty()) {
    info.driver_how = fmt::format("no process was seen holding {} open{}: how the driver writes is not known", info.source,
                                  unreadable ? fmt::format(" ({} processes' open files were not readable: run as root)",
                                                           unreadable)
                                             : "");
    return;
  }
  // One open file without O_DIRECT or O_SYNC is enough for writes to pass
  // through the page cache; else synchronous, else direct.
  DriverIo d = DriverIo::Direct;
  for (const auto& h : holders) {
    DriverIo x = driver_io_of_flags(h.flags);
    if (x == DriverIo::PageCache || (x == DriverIo::Sync && d == DriverIo::Direct)) d = x;
  }
  std::set<std::string> who;
  for (const auto& h : holders) who.insert(fmt::format("{} (pid {}, flags 0{:o})", h.comm, h.pid, h.flags));
  info.driver_io = d;
  info.driver_how = fmt::format(
      "{} {} {} {}", fmt::join(who, ", "), holders.size() > 1 ? "hold" : "holds", info.source,
      d == DriverIo::PageCache ? "open without O_DIRECT or O_SYNC: the driver's writes go through its page cache, so "
                                 "the device's pauses are behind that cache"
      : d == DriverIo::Sync    ? "open with O_SYNC/O_DSYNC: each of the driver's writes waits for the device"
                               : "open with O_DIRECT: the driver's writes bypass the page cache");
}

bool is_fuse_fstype(std::string_view t) { return t == "fuse" || t == "fuseblk" || t.starts_with("fuse."); }

bool marks_background_writeback(std::string_view t) { return t != "ext4" && t != "ext3"; }


double journal_commit_seconds(std::string_view fstype, std::string_view opts) {
  if (fstype != "ext4" && fstype != "ext3") return 0;
  double commit = 5;
  if (auto v = item_value(opts, ',', "commit=")) {
    char* end = nullptr;
    double x = std::strtod(v->c_str(), &end);
    if (end && *end == 0 && x > 0 && x < 1e6) commit = x;
  }
  return commit;
}

std::string journal_commit_meta(const FsInfo& fs) {
  return !fs.userspace && fs.journal_commit_s > 0 ? fmt::format("{:g}", fs.journal_commit_s * 1e3) : "";
}

FsInfo fs_info(const std::string& dir) {
  FsInfo info;
  std::error_code ec;
  std::string abs = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec).string();
  std::ifstream mi("/proc/self/mountinfo");
  for (std::string line; std::getline(mi, line);) {
    std::string mp, type, src, opts;
    if (!parse_mountinfo_line(line, mp, type, src, &opts) || !under(abs, mp)) continue;
    if (mp.size() >= info.mount_point.size()) {
      info.mount_point = mp, info.fstype = type, info.source = src;
      info.journal_commit_s = journal_commit_seconds(type, opts);
    }
  }
  struct statfs sf{};
  bool magic = ::statfs(dir.c_str(), &sf) == 0 && static_cast<long>(sf.f_type) == kFuseSuperMagic;
  info.userspace = magic || is_fuse_fstype(info.fstype);
  if (magic)
    info.how = fmt::format("statfs f_type 0x{:x} (FUSE){}", kFuseSuperMagic,
                           info.fstype.empty() ? "" : ", mount type " + info.fstype);
  else if (!info.fstype.empty())
    info.how = "mount type " + info.fstype + (info.userspace ? " (FUSE)" : " (kernel driver)");
  else
    info.how = "statfs (no mountinfo entry found)";
  find_driver_io(info);
  return info;
}

double read_number(const std::string& path, double dflt) {
  std::ifstream f(path);
  double v;
  return (f >> v) ? v : dflt;
}

namespace {
// The sysfs directory of the disk a block device belongs to: the device's own,
// or for a partition (which has no queue of its own) its parent's. Its queue
// and its bdi (the dirty limit's share) are the disk's.
std::filesystem::path disk_dir(const std::string& dev_dir) {
  std::error_code ec;
  std::filesystem::path dir(dev_dir);
  return std::filesystem::exists(dir / "queue", ec) ? dir : dir / "..";
}
}  // namespace

BlockQueue block_queue(const std::string& dev_dir) {
  BlockQueue q;
  auto number = [](const std::filesystem::path& path) { return read_number(path, 0); };
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = disk_dir(dev_dir);
  double nr = number(dir / "queue/nr_requests"), kb = number(dir / "queue/max_sectors_kb");
  double scsi = number(dir / "device/queue_depth"), lat = number(dir / "queue/wbt_lat_usec");
  if (nr <= 0 || kb <= 0) return q;
  q.depth = scsi > 0 ? scsi : nr, q.request_bytes = kb * 1024, q.wbt = lat > 0;
  fs::path shown = fs::canonical(dir, ec);
  q.how = fmt::format("{}: {} {:.0f}, max_sectors_kb {:.0f}, wbt_lat_usec {:.0f}", ec ? dir.string() : shown.string(),
                      scsi > 0 ? "device/queue_depth" : "nr_requests", q.depth, kb, lat);
  return q;
}

DirtyShare dirty_share(const std::string& dev_dir, const std::string& debugfs) {
  DirtyShare d;
  namespace fs = std::filesystem;
  std::ifstream devf(disk_dir(dev_dir) / "dev");
  std::string id;
  if (!(devf >> id) || id.find(':') == std::string::npos) return d;
  d.path = (fs::path(debugfs) / "bdi" / id / "stats").string();
  std::ifstream f(d.path);
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);  // "BdiDirtyThresh:     16384 kB"
    std::string key;
    double v;
    if (!(in >> key >> v)) continue;
    if (key == "BdiDirtyThresh:") d.device_kb = v;
    if (key == "DirtyThresh:") d.total_kb = v;
  }
  if (d.total_kb > 0) d.share = d.device_kb / d.total_kb;
  return d;
}

}  // namespace sd
