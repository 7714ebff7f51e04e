#include "models/mountinfo.h"

#include <sstream>
#include <vector>

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

}  // namespace

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

}  // namespace sd
