// Faults: a schedule of things that go wrong with the emulated storage, and
// FaultDevice, the Device decorator that applies them (DESIGN.md "Faults and
// durability"; like an nbdkit filter over a plugin). One implementation for
// simulate (over a ModelDevice in virtual time) and mount (over the mount's
// ModelDevice in wall time).
//
// A fault spec, as typed on the command line (docs/faults.md):
//
//   WHAT[:OPS][@TRIGGER][,for=WINDOW][,file=GLOB][,p=PROB]
//
//   WHAT     eio, enospc, erofs, ... (an errno name, any case): the operation fails
//            short[=FRACTION]   a write/read does only that fraction (default 0.5)
//            delay=DURATION     the operation completes that much later
//            rate=FACTOR        service time divided by FACTOR (0.25 = a quarter the rate)
//            gone               the device disappears: every later operation fails (EIO)
//            powerloss          the power goes: every later operation fails (EIO) and
//                               what was not durable is lost (models/durability.h)
//   OPS      write, read, fsync, create, truncate, close, remove, any; joined by '+'
//   TRIGGER  a time (90s, 1.5min) after the start (or after the fault was added),
//            a byte of the stream (2GB, 512MiB: bytes written to the targeted files),
//            or the Nth targeted operation (op100); none = from the start
//   for=     how long it lasts: a duration (10s), a number of operations (3ops) or forever
//   file=    only files whose name matches this glob (fnmatch)
//   p=       each targeted operation in the window is hit with this probability
//
// Threading: neither class locks; the mount calls them under its model mutex.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/device.h"
#include "models/rng.h"
#include "models/status.h"

namespace sd {

enum class FaultKind : uint8_t { Errno, Short, Delay, Rate, Gone, PowerLoss };
enum class TriggerKind : uint8_t { Start, Time, Byte, OpCount };

struct FaultSpec {
  std::string text;  // as the user wrote it, for messages, traces and reports
  FaultKind kind = FaultKind::Errno;
  int error = 0;               // Errno, Gone: the errno operations get
  double fraction = 0.5;       // Short: the part of the request done
  double delay_s = 0;          // Delay: seconds added to the completion
  double rate_factor = 1;      // Rate: service time is divided by this (> 0)
  uint32_t ops = 0;            // bit (1 << OpKind) per targeted operation kind
  TriggerKind trigger = TriggerKind::Start;
  double at = 0;               // Time: seconds; Byte: byte index; OpCount: N (1 = the first)
  double for_s = std::numeric_limits<double>::infinity();  // window length in seconds
  uint64_t for_ops = 0;        // or in hit operations (0 = not limited by count)
  std::string file_glob;       // "" = every file
  double probability = 1;
  bool targets(OpKind k) const { return (ops >> static_cast<unsigned>(k)) & 1u; }
};

// Parses one spec; errors name the part that is wrong and show a valid form.
Result<FaultSpec> parse_fault(std::string_view text);
// Parses a TOML fault file: [[fault]] tables with keys fault (WHAT, required),
// ops, at, for, file, p; each table is one spec (docs/faults.md).
Result<std::vector<FaultSpec>> parse_fault_toml(std::string_view text, std::string_view origin);
// Reads and parses a TOML fault file (via models/input.h).
Result<std::vector<FaultSpec>> load_fault_file(const std::string& path);
// The message `record` gives for a powerloss fault (it writes to real storage).
std::string powerloss_refusal(const FaultSpec& f);

// Something a fault did, for traces, status lines and reports.
struct FaultEvent {
  double time = 0;   // on the device's clock
  size_t fault = 0;  // index in the schedule
  std::string spec;  // that fault's spec as written
  std::string text;  // "eio:write@2GB: EIO on write to rec.wav at byte 2000000000"
};

// The schedule and its state: which faults have triggered, counters for
// byte and operation triggers, the RNG for probabilities.
class FaultSchedule {
 public:
  explicit FaultSchedule(uint64_t seed = 1) : rng_(seed ^ 0xfa17fa17ull) {}
  // Adds a fault; its time trigger counts from `origin` (0 at the start;
  // `now` for a fault added while running).
  void add(FaultSpec spec, double origin = 0);
  bool empty() const { return faults_.empty(); }
  // Names a file for file= patterns (Create of an unnamed file matches only
  // faults without a pattern).
  void name_file(FileId f, std::string name) { names_[f] = std::move(name); }

  // What to do with an operation issued at `now`.
  struct Decision {
    int error = 0;                                      // fail at once with this errno
    uint64_t max_bytes = std::numeric_limits<uint64_t>::max();  // cut the request to this
    double delay_s = 0;                                 // add to the completion
    double rate_factor = 1;                             // divide the service time
  };
  Decision decide(const Op& op, double now);
  // The operation's outcome (after decide and the inner device): advances
  // byte counters.
  void completed(const Op& op, const Completion& c);

  // Errno every operation gets once a gone fault fired (0 = the device is there).
  int gone_error() const { return gone_error_; }
  // When a powerloss fault fired (infinity: it has not): what was durable
  // then is what survives (ModelDevice::power_loss_image).
  double power_lost_at() const { return power_lost_at_; }
  // When a gone fault triggered by time fires (infinity: none): the mount
  // refuses calls from then on, before any reaches the backing directory.
  double gone_time() const;
  // Fires the gone faults triggered by time whose time has come.
  void tick(double now);
  const std::vector<FaultEvent>& events() const { return events_; }
  size_t size() const { return faults_.size(); }
  const FaultSpec& spec(size_t i) const { return faults_[i].spec; }
  uint64_t hits(size_t i) const { return faults_[i].hits; }

 private:
  struct Live {
    FaultSpec spec;
    double origin = 0;
    bool triggered = false;
    double start = 0;        // when it triggered (the device's clock)
    uint64_t ops_seen = 0;   // targeted operations seen (OpCount trigger)
    uint64_t bytes_seen = 0; // bytes written to targeted files (Byte trigger)
    uint64_t hits = 0;       // operations it changed
  };
  bool matches(const Live& f, const Op& op) const;
  void event(size_t i, double now, const Op& op, const std::string& what);
  std::vector<Live> faults_;
  std::unordered_map<FileId, std::string> names_;
  std::vector<FaultEvent> events_;
  SplitMix64 rng_;
  int gone_error_ = 0;
  double power_lost_at_ = std::numeric_limits<double>::infinity();
};

// The decorator: asks the schedule, then the inner device. Not thread-safe
// (callers serialise, as for any Device).
class FaultDevice final : public Device {
 public:
  FaultDevice(Device& inner, FaultSchedule& schedule) : inner_(inner), sched_(schedule) {}
  Completion submit(const Op& op, double now) override;

 private:
  Device& inner_;
  FaultSchedule& sched_;
};

}  // namespace sd
