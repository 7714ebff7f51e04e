// /proc/self/mountinfo, read one way for every command that asks where a
// filesystem is mounted (measure's filesystem facts, mount's mount-point
// check, `fault`'s search for a running mount). Paths there are escaped:
// space, tab, newline and backslash as \ooo ("/mnt/my\040stick").
#pragma once
#include <string>
#include <string_view>

namespace sd {

// One mountinfo line -> mount point, fstype, source (unescaped) and the
// superblock options. Returns false for a malformed line.
bool parse_mountinfo_line(std::string_view line, std::string& mount_point, std::string& fstype, std::string& source,
                          std::string* super_options = nullptr);

}  // namespace sd
