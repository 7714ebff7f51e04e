// The run-time fault control: `streamdisk fault MOUNTPOINT SPEC` sets an
// extended attribute on the mount's root. No file appears in the mount (a
// recorder listing its directory sees only its own files), and no getxattr
// handler exists, so the kernel asks nothing extra on writes.
#include <cerrno>
#include <cstring>
#include <string>

#include "fusefs/fs.h"

namespace sd::fusefs {

int Fs::setxattr(Ino ino, const char* name, const char* value, size_t size) {
  if (ino != FUSE_ROOT_ID || std::strcmp(name, kFaultXattr) != 0) return ENOTSUP;
  if (size == 0 || size > 1000) return EINVAL;
  return add_fault(std::string(value, size));
}

}  // namespace sd::fusefs
