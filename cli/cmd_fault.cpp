// streamdisk fault MOUNTPOINT SPEC: adds a fault to a running `streamdisk mount`.
#include <sys/xattr.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "fusefs/mount.h"
#include "models/fault.h"
#include "models/input.h"
#include "models/mountinfo.h"

namespace sd::cli {
namespace {

// Whether `dir` is where a `streamdisk mount` is mounted (fstype
// fuse.streamdisk in /proc/self/mountinfo): the attribute is never set anywhere else.
bool is_streamdisk_mount(const std::string& dir) {
  std::error_code ec;
  auto real = std::filesystem::canonical(dir, ec);
  if (ec) return false;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::string where, type, source;
    if (parse_mountinfo_line(line, where, type, source) && where == real.string() && type == "fuse.streamdisk")
      return true;
  }
  return false;
}

}  // namespace

Handler setup_fault(CLI::App& sub) {
  struct Args {
    std::string mountpoint, spec;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("mountpoint", a->mountpoint, "Where `streamdisk mount` is serving")->required()->check(path_check());
  sub.add_option("spec", a->spec, "The fault (docs/faults.md); a time trigger counts from now")->required();
  sub.footer(
      "Adds a fault to a running mount; the mount's status line and trace show what it does.\n"
      "Spec: WHAT[:OPS][@TRIGGER][,for=WINDOW][,file=GLOB][,p=PROB] (docs/faults.md).\n\n"
      "Examples:\n"
      "  streamdisk fault /mnt/stick eio:write          # every write fails from now on\n"
      "  streamdisk fault /mnt/stick delay=2s           # the next operation takes 2 s longer\n"
      "  streamdisk fault /mnt/stick rate=0.1,for=30s   # a tenth of the rate for 30 s\n"
      "  streamdisk fault /mnt/stick gone@5s            # the stick is pulled in 5 s\n"
      "  streamdisk fault /mnt/stick powerloss          # the power goes now (mount --durability)");
  return [a] {
    auto f = parse_fault(a->spec);
    if (!f) return bad_input(f.message());
    if (!is_streamdisk_mount(a->mountpoint))
      return bad_input(fmt::format("{} is not a running `streamdisk mount`: give the mount point of one",
                                   excerpt(a->mountpoint)));
    if (::setxattr(a->mountpoint.c_str(), fusefs::kFaultXattr, a->spec.data(), a->spec.size(), 0) != 0) {
      int e = errno;
      if (e == fusefs::kNoDurabilityErrno)
        return bad_input(fmt::format("{} keeps no durability log, so it cannot lose power: mount it again with "
                                     "--durability (or --fault powerloss@TIME)", excerpt(a->mountpoint)));
      if (e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS)
        return bad_input(fmt::format("{} is not a running `streamdisk mount` (it takes no faults): give the mount "
                                     "point of one", excerpt(a->mountpoint)));
      return bad_input(fmt::format("cannot add the fault to {}: {}", excerpt(a->mountpoint), std::strerror(e)));
    }
    fmt::print("fault '{}' added to {}\n", a->spec, a->mountpoint);
    return kExitOk;
  };
}

}  // namespace sd::cli
