// The run-time fault control: `streamdisk fault MOUNTPOINT SPEC` sets an
// extended attribute on the mount's root. No file appears in the mount (a
// recorder listing its directory sees only its own files). The attribute is
// the mount's own: it never reaches the backing directory, and it works
// whatever the emulated filesystem says about extended attributes.
#include <cerrno>
#include <cstring>
#include <string>

#include "fusefs/fs.h"

namespace sd::fusefs {

bool Fs::is_control(Ino ino, const char* name) {
  return ino == FUSE_ROOT_ID && std::strcmp(name, kFaultXattr) == 0;
}

int Fs::control(const char* value, size_t size) {
  if (size == 0 || size > 1000) return EINVAL;
  return add_fault(std::string(value, size));
}

}  // namespace sd::fusefs
