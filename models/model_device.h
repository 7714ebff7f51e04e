// ModelDevice: the parametric drive model behind the Device interface. It
// stacks the host page cache, the filesystem and the device layers of a
// Profile, checks each operation's contract once on entry (STYLE.md 5), and
// returns completion times without ever sleeping. The simulator, the FUSE
// filesystem and replay all use this one class.
#pragma once
#include <cstdint>
#include <memory>

#include "models/device.h"
#include "models/device_layer.h"
#include "models/durability.h"
#include "models/file_table.h"
#include "models/fs_layer.h"
#include "models/host_cache.h"
#include "models/profile.h"

namespace sd {

struct ModelOptions {
  uint64_t seed = 1;           // stalls are drawn from this seed
  double prefill_bytes = 0;    // the device starts this full (bytes of other data)
  double capacity_bytes = -1;  // >= 0 replaces the profile's capacity
  bool stalls = true;          // false: no stalls (analytic helpers, some tests)
  bool durability = false;     // keep the durability log (power_loss_image); costs memory per request
};

// A snapshot for status lines and summaries.
struct ModelState {
  double burst_left_bytes = 0;
  double burst_bytes = 0;
  double fill = 0;  // used / capacity, 0 if unlimited
  double used_bytes = 0;
  double dirty_bytes = 0;
  uint64_t stalls = 0;
  double stall_seconds = 0;
  double device_free_at = 0;
};

// A steady stretch: buffered writes of one size appended to one file whose
// calls cost the same (no pause of the driver's due, no journal, the throttle
// point out of reach, no limit near). The recorder steps over them
// (sim/recorder.cpp, Run::step) and the model applies them when the stretch
// ends (ModelDevice::skip_writes), bit for bit as submit() would have
// (tests/unit/steady_test.cpp: whole recordings with and without). Two kinds:
//   at once: each write issued once the writeback of the one before has
//     ended, the device idle and nothing else going on (no background level,
//     wbt, stalls in the writeback path, fill knee near): the writebacks
//     change no time anyone sees, and their effect on the model's state is
//     applied in closed form (O(1) for the whole stretch);
//   each: writeback goes on behind the writes (a device that keeps up
//     barely); the model applies each write's page-cache part (its writeback
//     pump, its dirty extent) with the times the stretch gave it, skipping
//     only the call's own checks and waits, which provably do nothing.
struct SteadyWrites {
  uint64_t max_writes = 0;  // writes the stretch may hold (0: none here)
  bool each = false;        // applied write by write (see above)
  // Seconds from one write's return to the next one's issue, at least (at
  // once: the writeback of the one before has ended, the burst cache recovered).
  double min_gap = 0;
  double syscall_s = 0, per_channel_s = 0, driver_s = 0, copy_s = 0;
  // When a write issued at `now` reaches the page cache, and when it
  // returns: submit()'s additions, in its order.
  double dirtied(double now) const {
    double t = now + syscall_s;
    t += per_channel_s;
    t += driver_s;
    return t;
  }
  double done(double dirtied_at) const { return dirtied_at + copy_s; }
};

class ModelDevice final : public Device {
 public:
  explicit ModelDevice(const Profile& profile, ModelOptions opt = {});
  ModelDevice(const ModelDevice&) = delete;
  ModelDevice& operator=(const ModelDevice&) = delete;

  Completion submit(const Op& op, double now) override;
  ModelState state(double now);
  const FileTable& files() const { return files_; }
  DeviceLayer& device_layer() { return device_; }
  const HostCache& host_cache() const { return host_; }
  // What a power loss at `t` leaves (models/durability.h); needs
  // ModelOptions::durability. Starts the writeback due by `t` first.
  PowerLossImage power_loss_image(double t);
  const DurabilityLog* durability() const { return log_.get(); }
  // A file found on the storage (the mount's backing directory): durable as it is.
  void mark_existing(FileId f, uint64_t size) {
    if (log_) log_->existing(f, size);
  }
  // A steady stretch starting with `first`, a write the caller is about to
  // issue at `issue` (instead of submitting it), or max_writes 0.
  SteadyWrites steady_writes(const Op& first, double issue);
  // Applies `n` writes of the stretch that steady_writes(first, ...) allowed:
  // first.bytes each from first.offset on, each issued at least min_gap after
  // the one before returned; times[2 i] and times[2 i + 1] are when write i
  // reached the page cache and returned (SteadyWrites::dirtied, done).
  void skip_writes(const Op& first, const SteadyWrites& q, uint64_t n, const double* times);
  // Seconds of stall drawn so far in every layer (no side effects, unlike state()).
  double stall_seconds() const { return device_.stalls().total_seconds() + fs_.stalls().total_seconds(); }

 private:
  static LayerParams device_params(const Profile& profile, const ModelOptions& opt);
  double syscall_s_;
  double per_channel_s_;
  FileTable files_;
  DeviceLayer device_;
  FsLayer fs_;
  HostCache host_;
  std::unique_ptr<DurabilityLog> log_;  // null unless ModelOptions::durability
};

}  // namespace sd
