// The Device interface: an operation goes in with the time it is issued, the
// time it completes comes out (STYLE.md 1-2). ModelDevice computes that time
// from a profile and never sleeps; RealDevice (measure/) performs the
// operation and reports when it finished. Callers decide how to wait.
//
// Units: times are seconds on the caller's clock (virtual or real, as a
// double); offsets and sizes are bytes. Files are named by ids the caller
// chooses (an inode number, a channel index), made known by Create.
#pragma once
#include <cstdint>
#include <string_view>

namespace sd {

using FileId = uint64_t;

enum class OpKind : uint8_t { Create, Write, Read, Fsync, Truncate, Close, Remove };
std::string_view op_name(OpKind k);  // "create", "write", ... as in traces

struct Op {
  OpKind kind = OpKind::Write;
  FileId file = 0;
  uint64_t offset = 0;  // Write/Read: where; unused otherwise
  uint64_t bytes = 0;   // Write/Read: how many; Truncate: the new size
  bool direct = false;  // O_DIRECT: bypasses the host page cache
  // Write: the `bytes` bytes to store, owned by the caller and valid during
  // submit(); null when the content does not matter (models ignore it; a real
  // device writes a fixed pseudo-random pattern). Lets one workload drive both
  // kinds of device.
  const void* data = nullptr;
  // Write: separate per-channel arrays the application's I/O library handles
  // in this call (host.per_channel_us each): a TDMS segment holds one per
  // channel, interleaved frames or a one-channel file count as one. 0 = not
  // known (FUSE requests, traces): the real application paid its own cost.
  uint32_t channel_arrays = 0;
};

struct Completion {
  double done = 0;     // completion time, >= the issue time
  int error = 0;       // 0, or an errno value (ENOSPC, EFBIG, EBADF, EINVAL)
  uint64_t bytes = 0;  // bytes written or read (short on ENOSPC/EFBIG/EOF)
  // What was really done, not what was asked: the create, write or read went
  // through O_DIRECT (RealDevice: a descriptor opened with it, false where the
  // filesystem refused it; ModelDevice: the host page cache was bypassed).
  bool direct = false;
};

// Space on a device: statvfs for real storage, the model's file table for a
// ModelDevice. Bytes.
struct SpaceInfo {
  double total_bytes = 0;  // capacity of the filesystem (or modelled device)
  double free_bytes = 0;   // free space now
};

class Device {
 public:
  virtual ~Device() = default;
  // Issues `op` at time `now`. Not thread-safe: callers serialise access.
  virtual Completion submit(const Op& op, double now) = 0;
};

// Where time comes from (STYLE.md 1). Workloads ask the clock; they never call
// steady_clock or sleep themselves.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() = 0;                // seconds since the clock's start
  virtual void sleep_until(double t) = 0;  // returns at once if t <= now()
};

// Simulation time: sleeping jumps forward.
class VirtualClock final : public Clock {
 public:
  double now() override { return t_; }
  void sleep_until(double t) override {
    if (t > t_) t_ = t;
  }

 private:
  double t_ = 0;
};

// Wall time from a monotonic clock, zero at construction. sleep_until returns
// early when a signal arrives (Ctrl-C), so the caller can see its cancel flag.
class RealClock final : public Clock {
 public:
  RealClock();
  double now() override;
  void sleep_until(double t) override;

 private:
  int64_t start_ns_;
};

}  // namespace sd
