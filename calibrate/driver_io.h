// How a userspace (FUSE) driver writes to the device or image file under it,
// as the trace header's `driver_io` key says it: `measure` and `characterize`
// read it off the machine (measure/fs_info.h, the driver's open flags),
// `calibrate` places the device's pauses from it (calibrate/pauses.h).
// Without O_DIRECT or O_SYNC/O_DSYNC the driver's writes go through that
// device's page cache: the device's pauses are then behind a cache the
// host's dirty limits govern, not in the driver's call (exfat-fuse and
// ntfs-3g open their device this way).
#pragma once
#include <string_view>

namespace sd {

enum class DriverIo { Unknown, PageCache, Direct, Sync };

// "page_cache", "direct", "sync", "" (Unknown): the header's value.
inline const char* driver_io_name(DriverIo d) {
  switch (d) {
    case DriverIo::PageCache: return "page_cache";
    case DriverIo::Direct: return "direct";
    case DriverIo::Sync: return "sync";
    case DriverIo::Unknown: break;
  }
  return "";
}

// The header's value back; Unknown for "" or anything else.
inline DriverIo driver_io_from_name(std::string_view s) {
  for (DriverIo d : {DriverIo::PageCache, DriverIo::Direct, DriverIo::Sync})
    if (s == driver_io_name(d)) return d;
  return DriverIo::Unknown;
}

}  // namespace sd
