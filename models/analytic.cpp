#include "models/analytic.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/device_layer.h"
#include "models/fs_layer.h"
#include "models/stalls.h"

namespace sd {
namespace {

// Rate of the filesystem + device path alone for back-to-back writes of `b`
// bytes, each call `gap_s` after the previous one ended (the host's syscall).
double lower_rate(const Profile& p, double b, Phase phase, double fill, double gap_s) {
  const LayerParams& dp = p.params(Layer::Device);
  const LayerParams& fp = p.params(Layer::Filesystem);
  DeviceLayer dev(dp, 0);
  dev.disable_stalls();
  FsLayer fs(fp, dev, 0);
  fs.disable_stalls();
  double burst = dp.get("burst_bytes");
  if (burst > 0)
    dev.set_burst_level(phase == Phase::Burst ? -std::numeric_limits<double>::infinity() : burst);
  double used = fill * dp.get("capacity_bytes");
  auto block = static_cast<uint64_t>(std::max(1.0, b));
  // Long enough to average over metadata writes; the first write (a seek) is warm-up.
  double target = std::max({64.0 * b, 4.0 * fp.get("meta_every_bytes"), 8.0 * 1048576});
  uint64_t n = static_cast<uint64_t>(std::min(target / b, double{1 << 20})) + 1;
  double t = fs.write(1, 0, block, 0, used);
  double t0 = t;
  for (uint64_t i = 1; i < n; ++i) t = fs.write(1, i * block, block, t + gap_s, used);
  double bytes = static_cast<double>((n - 1) * block);
  double seconds = (t - t0) / bytes;
  StallProcess dev_stalls(dp, 0), fs_stalls(fp, 0);
  double catchup = dp.get("catchup_ms") * 1e-3;  // the part of each device pause the device makes up
  double paused = dev_stalls.time_fraction(catchup);  // time-triggered pauses take a share of the time
  seconds += dev_stalls.mean_seconds_per_byte(catchup);
  if (fp.get("userspace") == 0) {
    seconds += fs_stalls.mean_seconds_per_byte();
    paused += fs_stalls.time_fraction();
  }
  return (1.0 - std::min(paused, 0.95)) / seconds;
}

}  // namespace

double write_rate(const Profile& p, double b, Phase phase, bool direct, double fill) {
  const LayerParams& hp = p.params(Layer::Host);
  const LayerParams& fp = p.params(Layer::Filesystem);
  // Time the application's call spends above the page cache: the syscall and,
  // for a userspace driver, its CPU work and expected stalls.
  DeviceLayer scratch_dev(p.params(Layer::Device), 0);
  FsLayer scratch_fs(fp, scratch_dev, 0);
  double in_call = hp.get("syscall_us") * 1e-6 + scratch_fs.driver_cpu(static_cast<uint64_t>(b));
  // A userspace driver's time-triggered pauses take a share of the writer's time.
  double in_call_paused = 0;
  if (fp.get("userspace") != 0) {
    StallProcess fs_stalls(fp, 0);
    in_call += b * fs_stalls.mean_seconds_per_byte();
    in_call_paused = fs_stalls.time_fraction();
  }
  if (direct || hp.get("dirty_limit_bytes") <= 0) return lower_rate(p, b, phase, fill, in_call) * (1 - in_call_paused);
  // Buffered, cache full: the application copies at memory speed while
  // writeback drains in chunks; the slower of the two sets the pace.
  double app = b / (in_call + b / (hp.get("memory_mbps") * 1e6)) * (1 - in_call_paused);
  return std::min(app, lower_rate(p, hp.get("writeback_chunk_bytes"), phase, fill, 0));
}

BurstExhaustion burst_exhaustion(const Profile& p, double input_rate, double b) {
  const LayerParams& dp = p.params(Layer::Device);
  double burst = dp.get("burst_bytes");
  BurstExhaustion out;
  if (burst <= 0) return out;  // no cache: exhausted from the start
  double r_burst = write_rate(p, b, Phase::Burst, true);
  double into_cache = std::min(input_rate, r_burst);
  double busy = into_cache / r_burst;
  // Recovery in every idle moment: with recover_idle_ms only idle spells
  // longer than that count, which this average cannot tell (an upper bound
  // on recovery; the simulation has it exactly).
  double net = into_cache - dp.get("recover_mbps") * 1e6 * (1 - busy);
  if (net <= 0) {
    out.never = true;
    out.seconds = out.bytes = std::numeric_limits<double>::infinity();
    return out;
  }
  out.seconds = burst / net;
  out.bytes = into_cache * out.seconds;
  return out;
}

}  // namespace sd
