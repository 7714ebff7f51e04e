// `streamdisk mount`: a FUSE filesystem that answers every write and read
// when the emulated device (a ModelDevice) would have completed it.
//
// The public entry points: check the options (bad input comes back as a
// Status naming the problem and the fix), then run the filesystem in the
// foreground until it is unmounted or SIGINT/SIGTERM arrives.
#pragma once
#include <cerrno>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <vector>

#include "models/fault.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "models/status.h"

namespace sd::fusefs {

struct MountOptions {
  std::string mountpoint;
  std::string backing;   // real files go here; with discard, empty = a private temp dir
  bool discard = false;  // keep names, sizes and metadata, not contents (reads return zeros)
  Profile profile;       // finished
  std::vector<std::string> profile_sets;  // the --sets `profile` was made with (for the trace header)
  ModelOptions model;    // seed, prefill_bytes, capacity_bytes
  std::string trace_path;  // "" = no trace
  std::vector<std::string> trace_inputs;  // files the trace must not be (the profile's TOML files)
  bool status_line = true;  // a status line on stderr once a second
  bool debug = false;       // libfuse debug output
  // FUSE workers at SCHED_FIFO priority 1: on a loaded machine they pick up
  // requests without waiting behind other processes. The reply thread asks
  // for it always (it sleeps almost all the time).
  bool realtime = false;
  // Up to this much of the time between a thread's last modelled completion
  // and its next request is taken to be the FUSE round trip (and reply
  // lateness), not the application's own time, and the model starts the
  // request that much earlier (seconds).
  // 0 = the model sees requests when they reach the daemon.
  double overhead_credit_s = 1e-3;
  // Ask the kernel to allow shared mappings of direct_io files (channel.h).
  // false: opens for reading use page-cache mode instead (the fallback for
  // kernels before 6.6; the environment variable STREAMDISK_MOUNT_DIO_MMAP=0
  // chooses it, for tests).
  bool direct_io_mmap = true;
  unsigned max_threads = 16;  // FUSE worker threads (replies are parked, so few suffice)
  // Faults from the start (--fault); more arrive at run time through the
  // control attribute on the mount's root (kFaultXattr).
  std::vector<FaultSpec> faults;
  // Keep what a power loss needs (the durability log, every write's place and
  // the bytes overwrites replaced), so `streamdisk fault MNT powerloss` works
  // at run time; on by itself when `faults` holds a powerloss.
  bool durability = false;
};

// The run-time control: setxattr(MOUNTPOINT, kFaultXattr, SPEC) adds a fault
// (time triggers count from then); getxattr(MOUNTPOINT, kFaultEventsXattr)
// lists what the faults did, one event per line. `streamdisk fault` uses them.
inline constexpr const char* kFaultXattr = "user.streamdisk.fault";
inline constexpr const char* kFaultEventsXattr = "user.streamdisk.fault_events";
// setxattr's errno when a powerloss arrives at a mount that keeps no durability log.
inline constexpr int kNoDurabilityErrno = EMEDIUMTYPE;

// One backing file after a power loss (paths relative to the backing directory).
struct PowerLossFile {
  std::string path;
  bool exists = false;   // false: removed (its directory entry never became durable)
  uint64_t length = 0, written = 0, data_bytes = 0;
};

struct MountSummary {
  double seconds = 0;  // mounted for
  uint64_t writes = 0, reads = 0, other_ops = 0;
  uint64_t bytes_written = 0, bytes_read = 0;
  uint64_t enospc = 0, efbig = 0, other_errors = 0;
  uint64_t fault_events = 0;  // things the faults did (models/fault.h)
  uint64_t stalls = 0;
  double stall_seconds = 0;
  double fill = 0, used_bytes = 0, capacity_bytes = 0;
  // Reply time minus modelled completion time over answered writes/reads (s).
  double late_p50 = 0, late_p99 = 0, late_max = 0;
  uint64_t late_samples = 0;
  double power_lost_at = -1;  // seconds after mounting; -1 = no power loss
  std::vector<PowerLossFile> power_loss;  // the files the power loss rewrote
  bool power_loss_inexact = false;        // the kept overwritten bytes hit their cap
};

// Resolves paths and checks everything that can be checked before mounting:
// /dev/fuse and fusermount3 present, mount point an empty directory that is
// not already a mount point, backing directory present and not inside the
// mount point (nor the other way round), trace path writable. Bad input.
Status check_mount(MountOptions& opt);

// Mounts, serves until unmounted or signalled, unmounts. Errors here are
// failures of the work (exit 1), not bad input.
Result<MountSummary> run_mount(const MountOptions& opt);

}  // namespace sd::fusefs
