#include "models/model_device.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace sd {

ModelDevice::ModelDevice(const Profile& profile, ModelOptions opt)
    : syscall_s_(profile.params(Layer::Host).get("syscall_us") * 1e-6),
      per_channel_s_(profile.params(Layer::Host).get("per_channel_us") * 1e-6),
      files_(profile.params(Layer::Filesystem).get("cluster_bytes"),
             profile.params(Layer::Filesystem).get("max_file_bytes"),
             opt.capacity_bytes >= 0 ? opt.capacity_bytes : profile.params(Layer::Device).get("capacity_bytes"),
             opt.prefill_bytes),
      device_(device_params(profile, opt), opt.seed),
      fs_(profile.params(Layer::Filesystem), device_, opt.seed),
      host_(profile.params(Layer::Host), fs_, files_, opt.seed,
            opt.stalls && HostCache::has_random_phases(profile.params(Layer::Host), profile.params(Layer::Filesystem))) {
  if (!opt.stalls) {
    device_.disable_stalls();
    fs_.disable_stalls();
  }
  if (opt.durability) {
    log_ = std::make_unique<DurabilityLog>(
        DurabilityParams::of(profile.params(Layer::Filesystem), profile.params(Layer::Device)));
    fs_.set_durability(log_.get());
  }
}

PowerLossImage ModelDevice::power_loss_image(double t) {
  if (!log_) return {t, {}};
  if (host_.enabled()) host_.dirty_at(t);
  return log_->at(t);
}

LayerParams ModelDevice::device_params(const Profile& profile, const ModelOptions& opt) {
  // The device layer reads the capacity for the fill level too.
  LayerParams dp = profile.params(Layer::Device);
  if (opt.capacity_bytes >= 0) dp.set("capacity_bytes", opt.capacity_bytes, Origin::Override);
  return dp;
}

Completion ModelDevice::submit(const Op& op, double now) {
  double t = now + syscall_s_;
  switch (op.kind) {
    case OpKind::Create: {
      if (!files_.create(op.file)) return {t, EEXIST, 0};
      fs_.forget(op.file);
      if (log_) log_->created(op.file, t);
      return {fs_.create(t), 0, 0, op.direct};
    }
    case OpKind::Write: {
      if (!files_.exists(op.file)) return {t, EBADF, 0};
      if (op.bytes == 0) return {t, 0, 0};
      if (op.offset + op.bytes < op.offset) return {t, EINVAL, 0};
      auto grant = files_.check_write(op.file, op.offset, op.bytes);
      if (grant.bytes == 0) return {t, grant.error, 0};
      files_.commit_write(op.file, op.offset, grant.bytes);
      if (log_) log_->grew(op.file, files_.size(op.file));
      t += per_channel_s_ * op.channel_arrays;  // the application's library, before the kernel
      // A userspace driver works inside the call, before the page cache.
      t += fs_.driver_cost(grant.bytes, t);
      double done = (op.direct || !host_.enabled())
                        ? fs_.write(op.file, op.offset, grant.bytes, t, files_.used_bytes())
                        : host_.write(op.file, op.offset, grant.bytes, t);
      // A short write reports the bytes written; the next call gets the error.
      return {done, 0, grant.bytes, op.direct};
    }
    case OpKind::Read: {
      if (!files_.exists(op.file)) return {t, EBADF, 0};
      uint64_t size = files_.size(op.file);
      if (op.offset >= size || op.bytes == 0) return {t, 0, 0};
      uint64_t n = std::min(op.bytes, size - op.offset);
      return {fs_.read(n, t), 0, n, op.direct};
    }
    case OpKind::Fsync: {
      if (!files_.exists(op.file)) return {t, EBADF, 0};
      double done = host_.drain(t);
      if (log_) log_->synced(op.file, done);
      return {done, 0, 0};
    }
    case OpKind::Truncate: {
      if (!files_.exists(op.file)) return {t, EBADF, 0};
      int err = files_.truncate(op.file, op.bytes);
      if (log_ && err == 0) log_->resized(op.file, op.bytes, t);
      return {t, err, 0};
    }
    case OpKind::Close:
      if (!files_.exists(op.file)) return {t, EBADF, 0};
      if (log_) log_->closed(op.file, t);
      return {t, 0, 0};  // close does not flush (as on Linux)
    case OpKind::Remove:
      if (!files_.exists(op.file)) return {t, ENOENT, 0};
      files_.remove(op.file);
      fs_.forget(op.file);
      if (log_) log_->removed(op.file, t);
      return {t, 0, 0};
  }
  return {t, EINVAL, 0};
}

SteadyWrites ModelDevice::steady_writes(const Op& first, double issue) {
  SteadyWrites q;
  if (first.kind != OpKind::Write || first.direct || !host_.enabled() || log_ || first.bytes == 0) return q;
  if (!files_.exists(first.file) || files_.size(first.file) != first.offset) return q;
  auto bytes = static_cast<double>(first.bytes);
  // No pause of the driver's inside the stretch's calls (n * bytes < the countdown).
  double n = 0x1p40;
  if (fs_.userspace()) {
    double room;
    if (!fs_.driver_stalls().bytes_before_pause(room)) return q;
    if (std::isfinite(room)) {
      n = std::min(n, std::floor(room / bytes));
      while (n > 0 && n * bytes >= room) --n;
    }
  }
  // Every write granted whole, comfortably (FileTable::check_write's quick case each time).
  double used = files_.used_bytes(), cluster = files_.cluster();
  if (files_.capacity() > 0) n = std::min(n, std::floor((files_.capacity() - used - 3 * cluster) / bytes));
  if (files_.max_file() > 0) n = std::min(n, std::floor((files_.max_file() - static_cast<double>(first.offset)) / bytes));
  q.syscall_s = syscall_s_;
  q.per_channel_s = per_channel_s_ * first.channel_arrays;
  q.driver_s = fs_.driver_cpu(first.bytes) + 0.0;  // driver_cost() without a pause
  q.copy_s = bytes / host_.memory_rate();
  // At once: the page cache holds only the extent this write continues, and
  // its writeback (at most wb) ends before this write.
  HostCache::Pending p;
  if (host_.steady_pending(p) && p.file == first.file && p.offset + p.bytes == first.offset &&
      fs_.high_water(p.file) == p.offset && device_.free_at() < p.ready) {
    auto wb = fs_.append_bound(std::max(bytes, static_cast<double>(p.bytes)), static_cast<double>(host_.call_limit()));
    double gap = wb.seconds * (1 + 1e-6) + 1e-6;
    bool ok = std::isfinite(gap);
    if (ok && device_.burst_bytes() > 0 && device_.recover_rate() > 0) {
      // The burst cache empties before each extent's writeback (checked as
      // DeviceLayer::write computes it for the first one).
      ok = device_.burst_level() -
               device_.recover_rate() * std::max(0.0, p.ready - device_.free_at() - device_.recover_idle()) <=
           0;
      gap += device_.recover_idle() +
             std::min(device_.burst_bytes(), wb.device_bytes) / device_.recover_rate() * (1 + 1e-6) + 1e-6;
    }
    // The fill level flat to the end (its multiplier only falls as the device fills).
    double m = n;
    while (m >= 1 && !device_.flat_at(used + m * bytes + cluster)) m = std::floor(m / 2);
    if (ok && m >= 1 && issue - p.ready >= gap) {
      q.max_writes = static_cast<uint64_t>(m);
      q.min_gap = gap;
      return q;
    }
  }
  // Each: the writes stay below the throttle point whatever writeback does
  // (the dirty amount only falls between them), without a journal.
  double room;
  if (!host_.unthrottled_room(room)) return q;
  n = std::min(n, std::floor(room / bytes));
  while (n > 0 && n * bytes > room - 1) --n;  // a byte to spare for room's rounding
  if (!(n >= 1)) return q;
  q.max_writes = static_cast<uint64_t>(n);
  q.each = true;
  return q;
}

void ModelDevice::skip_writes(const Op& first, const SteadyWrites& q, uint64_t n, const double* times) {
  uint64_t total = n * first.bytes;
  if (fs_.userspace()) fs_.driver_stalls().pass_bytes(static_cast<double>(total));
  if (q.each) {
    if (host_.appends(first.file, first.offset, times[1])) {
      host_.append_run(files_, first.file, first.offset, first.bytes, n, times);
      return;
    }
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t offset = first.offset + i * first.bytes;
      files_.commit_write(first.file, offset, first.bytes);
      host_.write_unthrottled(first.file, offset, first.bytes, times[2 * i], times[2 * i + 1]);
    }
    return;
  }
  HostCache::Pending p;
  host_.steady_pending(p);
  files_.commit_write(first.file, first.offset, total);  // the clusters of n appends telescope
  // Written back: the pending extent and every write but the last, in
  // chunks of call_limit() bytes, each chunk in requests of request_piece().
  uint64_t last_extent = n == 1 ? p.bytes : first.bytes;
  uint64_t limit = host_.call_limit();
  uint64_t last_call = last_extent - (last_extent - 1) / limit * limit;
  uint64_t piece = fs_.request_piece(last_call);
  uint64_t last_request = last_call - (last_call - 1) / piece * piece;
  fs_.skip_appends(first.file, first.offset + (n - 1) * first.bytes, last_request, last_extent, files_.used_bytes());
  host_.skip_writes(p, first.bytes, n, times[2 * n - 2], times[2 * n - 1]);
}

ModelState ModelDevice::state(double now) {
  ModelState s;
  s.burst_left_bytes = device_.burst_left(now);
  s.burst_bytes = device_.burst_bytes();
  s.used_bytes = files_.used_bytes();
  s.fill = files_.capacity() > 0 ? s.used_bytes / files_.capacity() : 0;
  s.dirty_bytes = host_.enabled() ? host_.dirty_at(now) : 0;
  s.stalls = device_.stalls().count() + fs_.stalls().count();
  s.stall_seconds = stall_seconds();
  s.device_free_at = device_.free_at();
  return s;
}

}  // namespace sd
