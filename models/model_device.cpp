#include "models/model_device.h"

#include <algorithm>
#include <cerrno>

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
