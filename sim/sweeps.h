// Benchmark workloads with the source documents' methods, written once against
// the Device and Clock interfaces (STYLE.md 1): against ModelDevice on a
// VirtualClock they predict what a benchmark would show; against RealDevice
// (measure/) on a RealClock they are the benchmark.
//
//   blocksize  the same block written back to back for T s per point, swept
//              over block size, then read back (document 000's method)
//   threads    a file read by 1..N threads, swept over block size (001's table)
//   sustained  one long write logging every write's latency, rate per window,
//              and where the rate falls off a cliff (002's method)
//   fill       write until the device is X % full, rate per fill step (000)
//   formats    the same block of frames appended over and over for T s through
//              each file format's layout (sim/format.h) and channel count:
//              binary vs TDMS vs WAV/RF64/W64/CAF (000's format comparison)
//
// Units: bytes, seconds, bytes/s. Every operation goes to `SweepEnv::trace`
// as a native trace record (models/trace.h). A sweep returns its result table;
// `*_table()` turns it into named columns for the CLI's table and JSON.
//
// Threading: a sweep runs on the calling thread. The threads sweep runs its
// logical threads either on a deterministic scheduler over one device (virtual
// time: the thread whose clock is earliest issues next) or on real threads,
// one Device per thread (SweepEnv::thread_devices), sharing a thread-safe Clock.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/device.h"
#include "models/trace.h"
#include "sim/format.h"

namespace sd {

enum class FsyncMode { Never, End, Every };
std::string_view fsync_mode_name(FsyncMode m);
std::optional<FsyncMode> fsync_mode_from_name(std::string_view s);

struct SweepProgress {
  std::string phase;      // "write 4 KiB", "read 1 MiB x 2 threads", "fill 35 %"
  double fraction = 0;    // of the whole sweep, 0..1 (an estimate for open-ended phases)
  double rate = 0;        // bytes/s of the current phase so far
  double elapsed = 0;     // seconds since the sweep started, on its clock
};

// What every sweep needs besides its own settings. Not owned.
struct SweepEnv {
  Device* dev = nullptr;   // the device (thread 0's in the threads sweep)
  Clock* clock = nullptr;  // now() must be thread-safe if thread_devices is used
  // Receives every operation, in issue order per thread. Called from the
  // sweep's own thread only (real threads buffer and hand records over after).
  std::function<void(const TraceRecord&)> trace;
  std::function<void(const SweepProgress&)> progress;  // throttling is the callee's job
  const std::atomic<bool>* cancel = nullptr;           // set (e.g. by SIGINT): stop soon
  // Before timed reads: evict `file` from the host cache. Returns how ("fadvise
  // DONTNEED", "O_DIRECT", "not needed: model") or an error text starting "not dropped".
  std::function<std::string(FileId)> drop_cache;
  // Threads sweep on real threads: one device per logical thread (size >= the
  // largest thread count). Empty: virtual scheduling on `dev`.
  std::vector<Device*> thread_devices;
  // Fill sweep: capacity and free space now.
  std::function<SpaceInfo()> space;
  // Bytes the device under the filesystem has written so far (real storage:
  // its block statistics, sectors x 512), or empty when unknown. A sustained
  // sweep then also gives the device's own rate, which differs from the
  // writes' when a page cache lies between them (a FUSE driver writing its
  // block device through the page cache: "direct" writes that are not).
  std::function<double()> device_written;
};

// Block sizes of document 000 / 001's sweeps: 512 B ... 8 MiB, factors of 4.
std::vector<uint64_t> default_sweep_blocks();

// ---- blocksize (document 000) ----
struct BlockSizeSweep {
  std::vector<uint64_t> blocks = default_sweep_blocks();
  double seconds = 5;       // per point and direction (document 000: 5 s)
  uint64_t max_bytes = 0;   // per point: stop writing at this size (0: no cap)
  bool read = true;         // then read the point's file back (after drop_cache)
  bool direct = false;      // O_DIRECT
  FsyncMode fsync = FsyncMode::End;
  FileId first_file = 1;    // point i uses first_file + i, removed after it
};
struct BlockSizePoint {
  uint64_t block = 0;
  uint64_t writes = 0, reads = 0;
  double write_bytes = 0, write_seconds = 0, write_rate = 0;
  double read_bytes = 0, read_seconds = 0, read_rate = 0;
  double write_latency_max = 0;  // slowest single write (s)
  std::string cache;             // what drop_cache said before the read
  int error = 0;                 // errno that cut the point short
};
struct BlockSizeResult {
  std::vector<BlockSizePoint> points;
  bool cancelled = false;
};
BlockSizeResult run_blocksize_sweep(const SweepEnv& env, const BlockSizeSweep& s);

// ---- threads (document 001) ----
struct ThreadsSweep {
  std::vector<uint64_t> blocks = default_sweep_blocks();
  std::vector<int> threads = {1, 2, 3, 4};
  uint64_t file_bytes = 256ull << 20;  // the file read; written first in 1 MiB blocks
  double seconds = 2;                  // per point, at most (a point also ends at EOF)
  bool direct = false;
  FileId file = 1;
};
struct ThreadsPoint {
  uint64_t block = 0;
  int threads = 0;
  double bytes = 0, seconds = 0, rate = 0;
  uint64_t reads = 0;
  std::string cache;
  int error = 0;
};
struct ThreadsResult {
  std::vector<ThreadsPoint> points;  // blocks outer, threads inner
  double setup_write_rate = 0;       // writing the file (buffered/direct as set)
  bool cancelled = false;
};
ThreadsResult run_threads_sweep(const SweepEnv& env, const ThreadsSweep& s);

// ---- sustained (document 002) ----
struct SustainedSweep {
  uint64_t block = 1 << 20;
  uint64_t max_bytes = 1ull << 30;  // stop after this many bytes
  double max_seconds = 30;          // or this long (0: no time limit)
  double window = 0.5;              // rate reported per window of this many seconds
  bool until_steady = false;        // stop early once past a cliff and steady for 3 s
  bool direct = false;
  FsyncMode fsync = FsyncMode::End;
  FileId file = 1;
};
struct RateWindow {
  double start = 0, end = 0, bytes = 0, rate = 0;
};
struct SustainedResult {
  std::vector<RateWindow> windows;
  std::vector<double> latencies;  // every write's latency (s), in order
  double bytes = 0, seconds = 0, rate = 0;
  double initial_rate = 0;       // median of the first three windows
  double final_rate = 0;         // mean of the last quarter of the windows
  std::optional<double> cliff_seconds, cliff_bytes;  // where the rate fell below 70 % of initial for good
  double fsync_seconds = 0;      // the final fsync (fsync end)
  // With SweepEnv::device_written: the device's own long-run rate from the
  // cliff on (without one, over the second half), its pauses included, in
  // payload bytes/s (its raw rate x payload_share), and the band of that
  // figure (95 % half-width, from eight stretches); 0 when not measured.
  // payload_share: the bytes written over what the device wrote from the
  // start to the end of the final fsync (its metadata and journal are the
  // rest), at most 1 (1 when the fsync did not reach the device:
  // payload_share_measured false).
  double device_rate = 0, device_rate_band = 0, payload_share = 1;
  size_t device_spans = 0;  // the counter's samples' spans the rate rests on
  bool payload_share_measured = false;
  int error = 0;
  bool cancelled = false;
};
SustainedResult run_sustained_sweep(const SweepEnv& env, const SustainedSweep& s);

// ---- fill (document 000) ----
struct FillSweep {
  double fill_to = 0.9;       // stop when the space in use reaches this fraction
  double step_bytes = 0;      // bytes per step (0: 5 % of capacity)
  uint64_t block = 1 << 20;
  bool direct = false;
  FsyncMode fsync = FsyncMode::End;
  FileId first_file = 1;      // step i writes first_file + i; all removed at the end
};
struct FillPoint {
  double fill_before = 0, fill_after = 0;
  double bytes = 0, seconds = 0, rate = 0;
};
struct FillResult {
  std::vector<FillPoint> points;
  int error = 0;
  bool cancelled = false;
};
// Fails (before writing anything) if the device is already at or above fill_to
// or env.space is missing.
Result<FillResult> run_fill_sweep(const SweepEnv& env, const FillSweep& s);

// ---- formats (document 000) ----
struct FormatsSweep {
  std::vector<FormatKind> formats = {FormatKind::Raw, FormatKind::Tdms, FormatKind::W64};
  std::vector<uint32_t> channels = {4, 8, 16, 32};  // document 000's curves
  uint64_t block_bytes = 1 << 20;  // payload per block (rounded down to whole frames)
  uint32_t sample_bits = 16;
  double sample_rate = 48000;      // only written into headers
  double seconds = 5;              // per point
  uint64_t max_bytes = 0;          // payload cap per point (0: none)
  bool direct = false;
  FsyncMode fsync = FsyncMode::End;
  FileId first_file = 1;           // a point's files are first_file.., removed after it
};
struct FormatsPoint {
  FormatKind format = FormatKind::Raw;
  uint32_t channels = 0;
  uint64_t blocks = 0, ops = 0;   // blocks appended; write operations issued (all files)
  double payload_bytes = 0, other_bytes = 0, seconds = 0;
  double rate = 0;                // payload bytes / s
  int error = 0;
};
struct FormatsResult {
  std::vector<FormatsPoint> points;  // formats outer, channels inner
  bool cancelled = false;
};
// Fails only for a stream a format cannot hold (before any write).
Result<FormatsResult> run_formats_sweep(const SweepEnv& env, const FormatsSweep& s);

// ---- characterization workloads (measure/characterize.h) ----

// Paced writes: `block` bytes every block / rate seconds, as a recorder's
// writer meets its producer, logging every write's latency. A write that
// finds its slot already past is issued at once (counted as late): the
// pause that made it late is what a recorder's buffer must hold.
struct PacedSweep {
  uint64_t block = 256 << 10;
  double rate = 1e6;        // bytes/s
  double seconds = 10;      // how long to keep pacing
  uint64_t max_bytes = 0;   // or stop after this many bytes (0: no cap)
  bool direct = false;      // a recorder's writes are buffered
  FileId file = 1;          // created, written, fsynced, closed, removed
};
struct PacedResult {
  double rate = 0;           // asked, bytes/s
  double achieved = 0;       // bytes / seconds, fsync excluded
  double bytes = 0, seconds = 0;
  std::vector<double> latencies;  // per write (s)
  uint64_t late = 0;         // writes issued after their slot
  double max_lag = 0;        // largest delay behind the schedule (s)
  int error = 0;
  bool cancelled = false;
};
PacedResult run_paced_write(const SweepEnv& env, const PacedSweep& s);

// Interleaved files: `block` writes appended round-robin to `files` files
// (every write continues a different file than the one before), after the
// same writes to one file (the sequential reference). The difference in time
// per write is the seek penalty. Two traces come out if `trace_split` is set:
// it is called between the phases.
struct InterleavedSweep {
  uint64_t block = 64 << 10;
  int files = 4;
  double seconds = 4;       // per phase
  uint64_t max_bytes = 0;   // per phase (0: no cap)
  bool direct = true;
  FileId first_file = 1;    // sequential file; the interleaved ones follow
};
struct InterleavedResult {
  double sequential_op_s = 0, interleaved_op_s = 0;  // median time per write
  uint64_t sequential_writes = 0, interleaved_writes = 0;
  int error = 0;
  bool cancelled = false;
};
InterleavedResult run_interleaved_write(const SweepEnv& env, const InterleavedSweep& s,
                                        const std::function<void()>& between_phases = {});

// Sustained write past the write cache with idle gaps: flat-out writes until
// the rate has fallen off its cliff and is steady (or a cap), then for each
// gap: idle that long, write again until the cliff comes back (or `refill`
// seconds). The bytes written fast after each gap show how much the cache
// recovered while idle (calibrate's timeline fit reads that from the trace).
struct CacheSweep {
  uint64_t block = 1 << 20;
  uint64_t max_bytes = 1ull << 30;  // the flat-out part
  double max_seconds = 60;          // the flat-out part
  bool until_steady = true;         // the flat-out part stops once past a cliff and steady for 3 s
  std::vector<double> gaps = {1, 2, 4};
  double refill_seconds = 6;        // each write after a gap, at most
  double window = 0.25;
  bool direct = true;
  FileId first_file = 1;            // one file per part
};
struct CacheResult {
  SustainedResult first;            // the flat-out part
  std::vector<double> refill_fast_bytes;  // after each gap: bytes before the cliff came back
  std::vector<double> gaps_done;
  double bytes = 0;                 // in all
  int error = 0;
  bool cancelled = false;
};
CacheResult run_cache_sweep(const SweepEnv& env, const CacheSweep& s);

// ---- result tables ----
struct SweepTable {
  std::vector<std::string> columns;  // with units: "block_bytes", "write_mbps"
  std::vector<std::vector<double>> rows;
};
SweepTable blocksize_table(const BlockSizeResult& r);
SweepTable threads_table(const ThreadsResult& r);
SweepTable sustained_table(const SustainedResult& r);  // one row per window
SweepTable fill_table(const FillResult& r);
SweepTable formats_table(const FormatsResult& r);  // format as its index in FormatKind

}  // namespace sd
