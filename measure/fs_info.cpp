#include "measure/fs_info.h"

#include <sys/statfs.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace sd {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (size_t k = 1; k <= 3; ++k) {
        char c = s[i + k];
        if (c < '0' || c > '7') ok = false;
        v = v * 8 + (c - '0');
      }
      if (ok) {
        out += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

bool under(const std::string& path, const std::string& mp) {
  if (mp == "/") return true;
  return path == mp || (path.size() > mp.size() && path.compare(0, mp.size(), mp) == 0 && path[mp.size()] == '/');
}

}  // namespace

bool is_fuse_fstype(std::string_view t) { return t == "fuse" || t == "fuseblk" || t.starts_with("fuse."); }

bool parse_mountinfo_line(std::string_view line, std::string& mount_point, std::string& fstype, std::string& source,
                          std::string* super_options) {
  // id parent major:minor root mount_point options [optional fields...] - fstype source super_options
  std::vector<std::string> f;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) f.push_back(w);
  size_t dash = 0;
  for (size_t i = 6; i < f.size(); ++i)
    if (f[i] == "-") {
      dash = i;
      break;
    }
  if (dash == 0 || dash + 1 >= f.size()) return false;
  mount_point = unescape(f[4]);
  fstype = dash + 1 < f.size() ? f[dash + 1] : "";
  source = dash + 2 < f.size() ? unescape(f[dash + 2]) : "";
  if (super_options) *super_options = dash + 3 < f.size() ? f[dash + 3] : "";
  return !fstype.empty();
}

double journal_commit_seconds(std::string_view fstype, std::string_view opts) {
  if (fstype != "ext4" && fstype != "ext3") return 0;
  double commit = 5;
  while (!opts.empty()) {
    size_t comma = opts.find(',');
    std::string_view o = opts.substr(0, comma);
    if (o.starts_with("commit=")) {
      std::string v(o.substr(7));
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (end && *end == 0 && x > 0 && x < 1e6) commit = x;
    }
    if (comma == std::string_view::npos) break;
    opts.remove_prefix(comma + 1);
  }
  return commit;
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
  return info;
}

}  // namespace sd
