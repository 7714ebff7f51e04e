#include "models/fs_layer.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sd {

FsLayer::FsLayer(const LayerParams& p, DeviceLayer& device, uint64_t seed)
    : dev_(device),
      userspace_(p.get("userspace") != 0),
      request_bytes_(p.get("request_bytes")),
      request_s_(p.get("request_us") * 1e-6),
      driver_rate_(p.get("driver_mbps") * 1e6),
      meta_every_(p.get("meta_every_bytes")),
      meta_bytes_(p.get("meta_write_bytes")),
      create_s_(p.get("create_us") * 1e-6),
      journal_s_(p.get("journal_commit_ms") * 1e-3),
      background_tag_(p.get("writeback_background") != 0),
      stalls_(p, seed ^ 0xF5ull) {}

double FsLayer::cpu_seconds(uint64_t bytes) const {
  double t = driver_rate_ > 0 ? static_cast<double>(bytes) / driver_rate_ : 0;
  if (request_s_ > 0) {
    uint64_t n = request_bytes_ > 0 ? (bytes + static_cast<uint64_t>(request_bytes_) - 1) /
                                          static_cast<uint64_t>(request_bytes_)
                                    : 1;
    t += request_s_ * static_cast<double>(std::max<uint64_t>(n, 1));
  }
  return t;
}

double FsLayer::stalled_seconds() const { return stalls_.total_seconds() + dev_.stalls().total_seconds(); }

double FsLayer::driver_cpu(uint64_t bytes) const { return userspace_ ? cpu_seconds(bytes) : 0; }

double FsLayer::driver_cost(uint64_t bytes, double now) {
  if (!userspace_) return 0;
  double cpu = cpu_seconds(bytes);
  return cpu + stalls_.delay(now, now + cpu, bytes);
}

double FsLayer::write(FileId file, uint64_t offset, uint64_t bytes, double start, double used) {
  double t = std::max(start, dev_.free_at());
  double begin = t;
  // A kernel driver's CPU work is serialised with its device requests.
  double per_request = userspace_ ? 0 : request_s_;
  if (!userspace_ && driver_rate_ > 0) t += static_cast<double>(bytes) / driver_rate_;
  uint64_t piece = request_bytes_ > 0 ? static_cast<uint64_t>(request_bytes_) : bytes;
  if (!hw_ || hw_file_ != file) hw_file_ = file, hw_ = &high_water_[file];
  uint64_t& hw = *hw_;
  for (uint64_t done = 0; done < bytes;) {
    uint64_t n = std::min(piece, bytes - done);
    uint64_t at = offset + done;
    t = dev_.write(file, at, n, t + per_request, used);
    done += n;
    // Growing the file updates allocation metadata, request by request.
    if (at + n > hw) {
      meta_acc_ += static_cast<double>(at + n - std::max(at, hw));
      hw = at + n;
      while (meta_every_ > 0 && meta_acc_ >= meta_every_) {
        meta_acc_ -= meta_every_;
        // Allocation tables and bitmaps sit together; successive updates walk them.
        t = dev_.write(kMetadataFile, meta_offset_, static_cast<uint64_t>(meta_bytes_), t, used);
        meta_offset_ += static_cast<uint64_t>(meta_bytes_);
      }
    }
  }
  if (!userspace_) t += stalls_.delay(begin, t, bytes);
  if (log_) log_->device_write(file, offset, bytes, start, t);
  return t;
}

FsLayer::AppendBound FsLayer::append_bound(double bytes, double call_bytes) const {
  constexpr AppendBound inf{std::numeric_limits<double>::infinity(), 0};
  if (log_ || (!userspace_ && stalls_.enabled())) return inf;
  if (meta_every_ > 0 && !(std::floor(meta_every_) == meta_every_ && meta_every_ < 0x1p52)) return inf;
  // A kernel driver's CPU time between requests lets a recovering burst
  // cache recover a little mid-call: its level is then no sum of bytes.
  if (!userspace_ && (request_s_ > 0 || driver_rate_ > 0) && dev_.burst_bytes() > 0 && dev_.recover_rate() > 0)
    return inf;
  double calls = std::ceil(bytes / call_bytes);
  double piece = request_bytes_ > 0 ? request_bytes_ : call_bytes;
  double requests = std::ceil(bytes / piece) + calls;  // a call's last request may be short
  double metas = meta_every_ > 0 ? std::floor(bytes / meta_every_) + 1 : 0;
  double device_bytes = bytes + metas * meta_bytes_;
  double t = dev_.service_bound(requests + metas, device_bytes);
  if (!userspace_) t += requests * request_s_ + (driver_rate_ > 0 ? bytes / driver_rate_ : 0);
  return {t, device_bytes};
}

void FsLayer::skip_appends(FileId file, uint64_t to, uint64_t last_request, uint64_t last_extent, double used) {
  if (!hw_ || hw_file_ != file) hw_file_ = file, hw_ = &high_water_[file];
  uint64_t& hw = *hw_;
  // meta_acc_ grows by every byte appended and loses meta_every_ per
  // metadata write, all in whole bytes: the loop's result in one division.
  auto acc = static_cast<uint64_t>(meta_acc_) + (to - hw);
  uint64_t metas = 0, last_metas = 0, extent_metas = 0;
  if (meta_every_ > 0) {
    auto every = static_cast<uint64_t>(meta_every_);
    metas = acc / every;
    last_metas = metas - (acc - last_request) / every;  // written inside the last request
    extent_metas = metas - (acc - last_extent) / every;  // inside the last extent's calls
    acc -= metas * every;
  }
  meta_acc_ = static_cast<double>(acc);
  auto mb = static_cast<uint64_t>(meta_bytes_);
  meta_offset_ += metas * mb;
  double bytes = static_cast<double>(to - hw) + static_cast<double>(metas * mb);
  double last_bytes = static_cast<double>(last_extent) + static_cast<double>(extent_metas * mb);
  if (last_metas > 0) dev_.skip_requests(kMetadataFile, meta_offset_, bytes, last_bytes, used);
  else dev_.skip_requests(file, to, bytes, last_bytes, used);
  hw = to;
}

double FsLayer::journal_write(double start, double used) {
  constexpr uint64_t kCommitBytes = 5 * 4096;
  double end = dev_.write(kJournalFile, journal_offset_, kCommitBytes, std::max(start, dev_.free_at()), used);
  journal_offset_ += kCommitBytes;
  if (log_) log_->commit(start, end);
  return end;
}

double FsLayer::read(uint64_t bytes, double start) { return dev_.read(bytes, start + cpu_seconds(bytes)); }

double FsLayer::create(double start) { return std::max(start, dev_.free_at()) + create_s_; }

}  // namespace sd
