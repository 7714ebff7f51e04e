// `streamdisk characterize`: one call that measures what a prediction needs
// from a directory on real storage (or, for tests and demonstrations, from a
// profile in virtual time), in the right order and within a time budget,
// hands the traces to calibrate/, and answers the question the toolkit is
// for: the highest data rate a stated recorder records cleanly there.
//
// Phases, in order (DESIGN.md "Characterization"):
//   idle       wait until the device has written nothing for a while, so its
//              write cache has recovered before the burst is measured
//   cache      direct 1 MiB writes past the write cache until the rate is
//              steady, then idle gaps and writes again (burst size and rate,
//              sustained rate, recovery rate)
//   blocksize  direct writes at 4 KiB..4 MiB, right after the cache ran out
//              (all points in one regime; a cliff inside it is detected and
//              named), each point read back (reads)
//   interleaved the same block to one file, then round-robin to 4 (seek penalty)
//   buffered   flat-out buffered writes (host page cache: dirty limit)
//   paced      buffered writes at 0.3, 0.5, 0.7 of the sustained rate, as a
//              recorder's writer issues them, every latency recorded: the
//              pauses a recorder meets, which flat-out writes hide
//   fill       only when asked: writes up to the safe fill level
// The device is never filled above `safe_fill` of its capacity; every file is
// removed at the end, also on SIGINT/SIGTERM (models/cleanup.h).
//
// The profile describes the whole measured stack (this host, this
// filesystem, this device): the device layer's rates are what the filesystem
// delivered, so the filesystem layer carries only what the model needs to
// place time correctly (`userspace`, and a userspace driver's pauses), never a
// second copy of its costs.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/calibrate.h"
#include "measure/fs_info.h"
#include "models/status.h"
#include "sim/capacity.h"
#include "sim/spread.h"
#include "sim/recorder.h"
#include "sim/sweeps.h"

namespace sd {

struct CharacterizeProgress {
  std::string phase;        // "cache: sustained write 1 MiB"
  double written = 0;       // bytes written so far, all phases
  double rate = 0;          // bytes/s of the current phase
  double elapsed = 0;       // seconds since the start
  double eta = 0;           // seconds left, from the budget plan
};

struct CharacterizeConfig {
  std::string path;                 // directory on the storage (empty: `profile`)
  std::string profile;              // characterize this profile in virtual time instead
  std::vector<std::string> sets;    // --set overrides for `profile`
  double budget_s = 240;            // the plan's total time (fill excluded)
  bool fill = false;                // also run a fill sweep up to safe_fill
  double safe_fill = 0.90;          // never fill the filesystem above this fraction
  double idle_s = 0;                // quiet time to wait for first (0: from the budget)
  double check_s = -1;              // the headline's check (< 0: from the budget; 0: none)
  std::string keep_traces;          // directory to keep the traces in ("" none)
  std::string name = "characterized";
  RecorderConfig recorder;          // the headline's recorder (its sample rate is searched)
  CapacityCriterion criterion;      // the headline's capacity criterion (sim/capacity.h)
  std::function<void(const CharacterizeProgress&)> progress;
  // A finding the user should hear at once, not only in the report's notes
  // (the machine busy before the first write); the CLI prints it on stderr.
  std::function<void(const std::string&)> warn;
  const std::atomic<bool>* cancel = nullptr;  // default: measure/cleanup's flag
};

struct PhaseReport {
  std::string name;
  double seconds = 0, bytes = 0;
  std::string result;  // one line: what it found
};

// One row of the "what it found" table.
struct FoundParam {
  std::string key;     // "device.sustained_mbps"
  double value = 0;
  std::string unit;
  std::string phase;   // which phase informed it
  std::string sure;    // "± 0.3 (95 %), 1200 writes", "detected", "kernel setting"
};

struct CharacterizeReport {
  std::string target;            // the directory, or "model:<profile>"
  FsInfo fs;
  double total_bytes = 0, free_bytes = 0;  // at the start
  double max_bytes = 0;          // most the run has on disk at once (the safe level)
  double safe_fill = 0;
  double idle_waited_s = 0;      // how long it waited for quiet
  double idle_quiet_s = 0;       // quiet time seen before starting
  std::string idle_how;          // what it watched
  std::string burst_verdict;     // whether the burst looks like a full cache
  std::vector<PhaseReport> phases;
  std::vector<FoundParam> found;
  cal::Calibration calibration;
  std::string profile_toml;      // the profile (loads with load_profile)
  // The headline: highest clean data rate for `recorder`.
  RecorderConfig recorder;
  CapacityResult capacity;
  double headline_bytes_per_s = 0;  // capacity.best x frame bytes (0 if none)
  // The headline over the measured values' 95 % intervals (the ranges the
  // profile carries; sim/spread.h), in sample rate like capacity.best; empty
  // when no measured value has a range.
  std::optional<Spread> spread;
  std::string criterion;            // what "clean" means and the overrun probability it rests on
  // The headline held against the target itself, last: writes as the
  // recorder writes them (its block, buffered or direct), paced at the
  // headline's rate for a share of the budget. A writer that falls L s behind
  // a schedule of R bytes/s has L x R bytes waiting, which the ring must hold
  // beside the block being written (`room`).
  struct HeadlineCheck {
    bool ran = false;
    double rate = 0, seconds = 0, room = 0, max_lag = 0;
    uint64_t writes = 0, late = 0;
    bool fell_behind = false;  // more waiting than the ring holds: the headline is optimistic here
    // It fell behind, but began with the write cache used up by the
    // measurement, and the model falls behind there too: no verdict.
    bool cache_used_up = false;
    std::string text;
  } check;
  // Real storage on a block device: the pauses the device itself showed
  // (calibrate/pauses.h scan_device_pauses over its stat file, read every
  // 2 ms from the cache phase to the last paced one), beside the pause fit's
  // lengths, which come from the writes and so from whatever lies between.
  struct DevicePausesSeen {
    bool measured = false;
    std::string device;  // /sys/dev/block/MAJ:MIN
    size_t busy_gaps = 0;
    double busy_s = 0, rate = 0, threshold_s = 0;
    std::vector<double> lengths_s;  // each pause's excess over the device's pace
    std::vector<double> at_s;       // and when it began (the completion before it, on the traces' clock)
    double median_s = 0;
    double fit_median_s = 0;  // the profile's stall_duration_ms (0: none fitted)
    std::string text;
  } device_pauses;
  std::vector<std::string> notes;
  std::vector<std::string> traces;  // kept trace files
  bool cancelled = false;
  double seconds = 0;               // the whole run
  // Real storage: CPU time of every other process during the run, as a share
  // of all CPUs (a userspace driver's work included); < 0 on a model or when
  // /proc is unreadable.
  double cpu_busy_others = -1;
  // The same while characterize waited for the device to be idle, before its
  // first write: load from elsewhere alone (nothing of the measurement runs
  // then); < 0 on a model or when /proc is unreadable.
  double cpu_busy_idle = -1;
};

// The check's verdict from the paced writes at the headline's `rate` (bytes/s)
// for a recorder with `buffer_bytes` written in `block`s: fell behind when
// some write was late by more than the ring holds beside the block (max_lag x
// rate > buffer - block).
CharacterizeReport::HeadlineCheck judge_headline_check(const PacedResult& r, double rate, uint64_t buffer_bytes,
                                                       uint64_t block, double recording_s, bool cancelled);

// Errors are bad input (missing or unwritable directory, too little free
// space, unknown profile, bad recorder): one line naming the problem and fix.
Result<CharacterizeReport> run_characterize(const CharacterizeConfig& cfg);
// The trace files a run with --keep-traces DIR may write there (DIR/cache.csv, ...).
std::vector<std::string> characterize_trace_paths(const std::string& dir);

// The upper end of a 95 % interval on P(>=1 overrun) after `clean` of `n` runs
// were clean (Clopper-Pearson; 0 of n failed -> 1 - 0.05^(1/n)).

}  // namespace sd
