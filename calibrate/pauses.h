// Pauses that matter to a buffer, told apart from rate jitter, and the stall
// model fitted to them (issue 10 §2; docs/calibrate.md "Stalls").
//
// A pause is a run of consecutive writes whose time exceeds a robust baseline
// (rolling median of time per byte) by more than 8 robust standard deviations
// of the ordinary jitter, by more than half a write's own time and by more
// than 1 ms; its length is the summed excess. Consecutive slow writes are one
// pause when they are side by side more often than chance would put them. Arrivals are decided from the
// pause counts of traces at different write rates (flat-out and paced): a
// Poisson count per trace with mean a·bytes + b·seconds: bytes-only vs
// time-only by likelihood, both only if a likelihood-ratio test (99 %) says so. Durations: one log-normal (a nearly fixed length
// when sigma is small) vs a two-population log-normal mixture by BIC, with a
// Kolmogorov-Smirnov statistic of the chosen fit as the goodness-of-fit; a
// time-triggered population's median and sigma then also from the pauses
// paced writes met partway (each bounded by its excess and the idle time
// before it, long ones met more often: maximum likelihood).
#pragma once
#include <string>
#include <vector>

#include "calibrate/inputs.h"

namespace sd::cal {

// Per write: the stall-free time expected and whether it belongs to a pause.
struct SlowWrites {
  std::vector<double> expected;  // seconds
  std::vector<char> slow;
  double limit = 0;  // a write is slow past expected x (1 + limit) and expected + 1 ms
};
// `duration` and `bytes` per write, in issue order (at least 20 writes, else nothing is slow).
SlowWrites find_slow_writes(const std::vector<double>& duration, const std::vector<double>& bytes);

struct Pause {
  double at_s = 0;      // start of the first slow write, seconds from the trace's start
  double excess_s = 0;  // summed excess over the baseline
  double idle_before_s = 0;  // the writer's idle time before it (paced traces)
  double write_s = 0;        // the stall-free time of the write that met it
  double shown_s = 0;        // the least excess that write would have shown as a pause
  bool device = false;       // excess_s is the device's own stop (apply_device_lengths)
  double writes_excess_s = 0;  // then: the excess the writes showed
};

// The pauses of one trace and its exposure (bytes written, seconds spanned).
struct PauseScan {
  std::string name;
  std::vector<Pause> pauses;
  double bytes = 0, seconds = 0;
  double start_s = 0;  // the first write's start, on the trace's clock (Pause::at_s counts from it)
  size_t writes = 0;
  bool paced = false;  // writes issued at a pace (idle gaps between them)
  bool merged = false; // consecutive slow writes were merged (more often side by side than by chance)
  bool device_lengths = false;  // some pauses' lengths are the device's own (apply_device_lengths)
  // > 0: more than one write in 10 of a flat-out trace was slow, one every `rhythm` writes
  // (`rhythm_slow` of them): a throttled writer let go a chunk at a time, not
  // pauses; `pauses` is empty and the fit leaves the trace out.
  size_t rhythm = 0, rhythm_slow = 0;
  // A kernel filesystem whose journal the model runs (trace header
  // journal_commit_ms): its own waits are the model's too (drop_filesystem_waits).
  bool fs_waits_modelled = false;
  double rate_mbps() const { return seconds > 0 ? bytes / seconds / 1e6 : 0; }
};
PauseScan scan_pauses(const Series& s);

// Pauses the device itself showed: completions that stopped while requests
// were in flight. Between two completions (or from the first request seen
// after an idle spell to its completion) with requests in flight all the
// while (a busy gap) the device took `gap_s` for `bytes`; the baseline is the
// rolling median of seconds per byte over the busy gaps around it, and a gap
// whose excess over baseline x bytes is above 8 robust standard deviations
// of the busy gaps' excess, half the median gap and 4 sample periods is a
// pause of that excess. Unlike a writer's slow writes this sees a pause
// whole whatever lies between the writer and the device (a page cache
// holding it back, a throttled writer's sleeps, which are no pause of the
// device's: the device goes on completing). A pause that began while the
// device was idle shows only from the first request that met it, shorter.
struct DevicePause {
  double at_s = 0;      // the completion before it
  double gap_s = 0;     // to the completion that ended it
  double excess_s = 0;  // gap_s less the baseline for the bytes that completed then
};
struct DevicePauseScan {
  std::vector<DevicePause> pauses;  // the busy gaps over the threshold
  std::vector<DevicePause> gaps;    // every busy gap, in time order
  size_t busy_gaps = 0;
  double busy_s = 0, bytes = 0;  // summed over the busy gaps
  double from_s = 0, to_s = 0;   // the samples' first and last times: what the log covers
  double median_gap_s = 0, jitter_s = 0, threshold_s = 0;
  double rate() const { return busy_s > 0 ? bytes / busy_s : 0; }
};
DevicePauseScan scan_device_pauses(const std::vector<BlockSample>& samples, double sample_period_s);
// The pauses flat-out writes met, with the lengths the device itself
// showed: each pause of a flat-out scan (the traces' clock is the
// device log's: PauseScan::start_s) whose held write overlaps a busy
// gap of the device with an excess at least half the writer's (and at least
// 4 sample periods) takes that excess as its length (the longest, if
// several): the writer's pause says that there was one, the device how long
// it was, also below the scan's own threshold (a pause that began while the
// device was idle shows only partly, and the rigs' loop devices complete
// unevenly enough to hide a whole 0.3 s one). Its scan is marked device_lengths; a later pause that
// overlaps a device pause already taken is the same stop met twice and is
// dropped. Paced scans keep what their writes met (whether a recorder meets
// the pauses is their question). A writer behind a page cache meets a device pause late,
// or sees the kernel's pacing after it, and so shows it short or long (the
// ntfs-3g rig: 957 ms for pauses of 1.0-1.44 s, bench/rig_truth.md session
// 27); a slow write the device shows no stop for (a throttled writer's
// sleep, a userspace driver's own work) keeps its own length. Returns how
// many pauses took the device's length.
size_t apply_device_lengths(std::vector<PauseScan>& scans, const DevicePauseScan& device, double sample_period_s);

// Pauses a writer met through a kernel filesystem whose journal the model
// runs (scans marked fs_waits_modelled: ext3/ext4) that are no stop of the
// device: the held write overlaps no busy gap whose excess is at least half
// the writer's (and 4 sample periods), inside the time the device log
// covers. The writer waited in the filesystem (a journal commit holding the
// inode's buffer while it waits for the writeback ahead of it) as the
// device went on completing, or sat idle. The model's journal and page
// cache make those waits themselves, for the recorder's writes, from the
// device's state; fitted as the device's pauses they would count twice, and
// a few of them beside the device's real pauses make a short population
// whose wide spread invents long stalls (the stalls rig: a paced writer's
// 211 ms wait 0.3 s into its catch-up after a ~1 s pause, the device
// completing throughout; with two more such it had made a population of
// median 17 ms, sigma 2.44). Such pauses are dropped, paced or flat out;
// returns how many.
size_t drop_filesystem_waits(std::vector<PauseScan>& scans, const DevicePauseScan& device, double sample_period_s);

// True if the writes of `s` were issued at a pace below the device's rate
// (meta sweep=paced, or idle gaps before most writes).
bool is_paced(const Series& s);

// Catch-up (device.catchup_ms): how much of each pause a flat-out trace's
// device made up afterwards. Per pause (a run of slow writes, find_slow_writes)
// with kCatchupWindow clean back-to-back writes before it and after it: the
// rate R of the writes before, the offset bytes - R x end time over each
// window (medians), the writes between the pause and the after-window being
// those the catch-up could take (R x the excess, plus two). lost = the drop
// of the offset / R; caught = the writer's excess - lost. The write that
// meets a pause has its own transfer made up inside it, so the excess is
// already short of the pause by that much; the model charges a pause fitted
// at the excess max(0, excess - catchup_ms), so `caught` is the value that
// goes with the pause fit's durations. Pauses whose after-window runs at
// another rate (±10 %: a cache's cliff) are left out. The fit: the median of
// caught over the pauses, kept only if they are above zero beyond chance
// (a sign test: 7 of 7, 10 of 11; or Yuen's t on the 20 % trimmed mean of the
// amounts; one-sided, either at 1 %; otherwise catchup_ms stays 0), held to
// at most the median excess.
struct CatchupFit {
  bool ok = false;          // at least 4 pauses measured
  bool made_up = false;     // caught above zero (sign or t test, 1 %)
  double ms = 0, band_ms = 0;  // median caught; half-width of its 95 % interval (order statistics)
  size_t pauses = 0;
  std::string why;          // when !ok, or what was decided
};
inline constexpr size_t kCatchupWindow = 16;
CatchupFit fit_catchup(const std::vector<const Series*>& flat_out);

// One population of the fitted stall process (keys of models/params.cpp).
struct StallPopulation {
  double interval_mb = 0, interval_band = 0;  // byte-triggered; 0 = none
  double period_ms = 0, period_band = 0;      // time-triggered; 0 = none
  double median_ms = 0, median_band = 0;
  double sigma = 0, sigma_band = 0;
  // The ranges the profile carries for the median and sigma: their 95 %
  // intervals, the upper ends held to what the pauses seen allow (a median or
  // a tail longer than every pause of this population seen would have shown).
  double median_lo = 0, median_hi = 0, sigma_lo = 0, sigma_hi = 0;
  size_t pauses = 0;
  std::string arrivals;  // "per byte written", "per unit of time", "both"
};

struct StallModelFit {
  bool ok = false;
  std::vector<StallPopulation> pops;  // 1 or 2
  // The regularity of the pauses' spacing (coefficient of variation: 0
  // periodic, 1 Poisson): stall_period_jitter and stall_interval_jitter.
  double jitter = 1, jitter_band = 0;
  std::string family;                 // "nearly fixed length", "log-normal", "two-population mixture"
  double ks = 0, ks_p = 0;            // goodness of fit of the durations
  size_t pauses = 0, traces = 0;
  bool too_few = false;               // fewer than 5 pauses: fitted, but marked an estimate
  // Paced writes met far fewer pauses than flat-out ones (Poisson, 1 %): the
  // pauses sit behind a cache, i.e. in the device, whatever the filesystem.
  bool behind_cache = false;
  std::string method;                 // for the profile's source text
  std::vector<std::string> notes;     // what was decided and why; warnings
  std::string why;                    // when !ok
};
// Where the pauses are, when the traces' headers say it: a userspace driver
// whose open flags were read (trace header driver_io, measure/fs_info.h).
struct KnownPlace {
  enum Where { Unknown, BehindCache, InCall } where = Unknown;
  std::string why;  // for the notes
};
// Paced traces that met far fewer pauses than the flat-out traces' rate
// predicts (at most 1 % likely by chance) show a cache in between: then the
// fit rests on the flat-out traces alone and says behind_cache. A known
// place decides instead of that test (its counts are then only reported).
StallModelFit fit_stall_model(const std::vector<PauseScan>& scans, const KnownPlace& known = {});
// The fit over every trace as given, without that check. With
// `behind_cache` (the refit of pauses behind a cache, from flat-out traces):
// lengths from the longer half of the pauses (a flat-out writer met the
// shorter ones with part of the cache's headroom left) and arrivals per unit
// of time (the device wrote at its own rate under every flat-out trace).
// `paced_bounds`: a time-triggered population's lengths also from the pauses
// paced writes met partway (else from the lengths measured whole alone).
StallModelFit fit_stall_model_all(const std::vector<PauseScan>& scans, bool behind_cache = false,
                                  bool paced_bounds = true);
// Behind a cache, the arrivals of a single time-triggered population counted
// on the device itself: its stops (`stops_s`, lengths in seconds) of more
// than half the fitted median per second it was busy (`busy_s`), where that
// is clear of the device's own unevenness (`threshold_s` below it) and 5 or
// more stops. Sets the period, adds a note; false (nothing changed) otherwise.
bool device_arrivals(StallModelFit& sf, const std::vector<double>& stops_s, double busy_s, double threshold_s);

}  // namespace sd::cal
