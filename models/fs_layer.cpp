#include "models/fs_layer.h"

#include <algorithm>

namespace sd {

FsLayer::FsLayer(const LayerParams& p, DeviceLayer& device, uint64_t seed)
    : dev_(device),
      request_bytes_(p.get("request_bytes")),
      request_s_(p.get("request_us") * 1e-6),
      driver_rate_(p.get("driver_mbps") * 1e6),
      meta_every_(p.get("meta_every_bytes")),
      meta_bytes_(p.get("meta_write_bytes")),
      create_s_(p.get("create_us") * 1e-6),
      stalls_(p, seed ^ 0xF5ull) {}

double FsLayer::write(FileId file, uint64_t offset, uint64_t bytes, double start, double used) {
  double t = std::max(start, dev_.free_at());
  if (driver_rate_ > 0) t += static_cast<double>(bytes) / driver_rate_;
  uint64_t piece = request_bytes_ > 0 ? static_cast<uint64_t>(request_bytes_) : bytes;
  for (uint64_t done = 0; done < bytes;) {
    uint64_t n = std::min(piece, bytes - done);
    t = dev_.write(file, offset + done, n, t + request_s_, used);
    done += n;
  }
  uint64_t& hw = high_water_[file];
  uint64_t end = offset + bytes;
  if (end > hw) {
    if (meta_every_ > 0) {
      meta_acc_ += static_cast<double>(end - std::max(offset, hw));
      while (meta_acc_ >= meta_every_) {
        meta_acc_ -= meta_every_;
        // Allocation tables and bitmaps sit together; successive updates walk them.
        t = dev_.write(kMetadataFile, meta_offset_, static_cast<uint64_t>(meta_bytes_), t, used);
        meta_offset_ += static_cast<uint64_t>(meta_bytes_);
      }
    }
    hw = end;
  }
  t += stalls_.on_bytes(bytes);
  return t;
}

double FsLayer::read(uint64_t bytes, double start) {
  double t = start;
  if (driver_rate_ > 0) t += static_cast<double>(bytes) / driver_rate_;
  uint64_t pieces = request_bytes_ > 0 ? (bytes + static_cast<uint64_t>(request_bytes_) - 1) /
                                             static_cast<uint64_t>(request_bytes_)
                                       : 1;
  t += request_s_ * static_cast<double>(std::max<uint64_t>(pieces, 1));
  return dev_.read(bytes, t);
}

double FsLayer::create(double start) { return std::max(start, dev_.free_at()) + create_s_; }

}  // namespace sd
