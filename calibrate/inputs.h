// What calibrate reads, reduced to what the fits need: per-operation timings
// (native traces, fio per-I/O latency logs) and aggregate rates (fio JSON
// output, a CSV table of block size x threads -> MB/s). Formats: docs/calibrate.md.
#pragma once
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/status.h"
#include "models/trace.h"

namespace sd::cal {

// One read or write, times in seconds from the start of the run.
struct IoOp {
  double start = 0, end = 0;
  uint64_t bytes = 0;
  bool read = false;
  int thread = 0;
  int error = 0;  // errno; ENOSPC marks the end of a fill sweep
};

// The operations of one input file, in issue order.
struct Series {
  std::string name;                         // the file it came from (for sources and messages)
  std::map<std::string, std::string> meta;  // "# key=value" lines of a native trace
  std::vector<IoOp> ops;
  // Whether the writes went through O_DIRECT: the trace's `direct` column
  // (format 2: what each write really did), true if every write was direct,
  // false if none was; format 1 traces have no column, so their `# direct=`
  // header line says. nullopt: not known (no writes, a mix, no header, fio).
  std::optional<bool> direct;
  bool buffered = false;  // writes went through the host page cache (direct false, or --buffered)
  bool baseline = false;  // same device under the reference filesystem (--baseline)
  bool fio = false;       // from a fio log: end times have 1 ms resolution
};

// One aggregate figure: `threads` streams of `block_bytes` requests got `mbps`.
struct RatePoint {
  double block_bytes = 0;
  int threads = 1;
  double mbps = 0;
  bool read = true;
  double seconds_per_op = 0;  // mean latency if known (fio JSON), else 0
  std::string source;         // "file:line" or "file job 'name'"
};

// Native trace (models/trace.h); reads and writes kept, other ops dropped.
Result<Series> load_native_trace(const std::string& path);

// The block device's own activity (its /sys/dev/block/MAJ:MIN/stat, read
// every few ms by characterize: measure/block_activity.h): bytes written so
// far (counted as requests complete) and requests in flight, at time t.
struct BlockSample {
  double t = 0, written = 0, in_flight = 0;
};
// A block device's activity as characterize keeps it (device-activity.log,
// docs/formats.md): "# streamdisk-device-activity 1", "# sample_period_s=",
// then t_s,written_bytes,in_flight rows in time order.
struct DeviceActivity {
  std::vector<BlockSample> samples;
  double period_s = 0;
};
Result<DeviceActivity> parse_device_activity(std::istream& in, const std::string& name);
Result<DeviceActivity> load_device_activity(const std::string& path);
Result<Series> series_from_trace(const Trace& t, const std::string& name);
// fio write_lat_log / clat log, fio 3.33 column order (see
// docs/calibrate.md): time_ms, value_ns, ddir, bs,
// [offset], prio[, issue_time_ns]. Needs per-I/O rows (no log_avg_msec).
Result<Series> load_fio_lat_log(const std::string& path);
Result<Series> parse_fio_lat_log(std::istream& in, const std::string& name);
// fio --output-format=json: one point per job and direction with I/O.
Result<std::vector<RatePoint>> load_fio_json(const std::string& path);
Result<std::vector<RatePoint>> parse_fio_json(const std::string& text, const std::string& name);
// The rate table CSV: "block_bytes,threads,mbps[,op]" (docs/calibrate.md).
Result<std::vector<RatePoint>> load_rate_table(const std::string& path);
Result<std::vector<RatePoint>> parse_rate_table(std::istream& in, const std::string& name);

// fio's size syntax: "4k" = 4096, "1m" = 1 MiB (fio's default kb_base=1024).
Result<double> parse_fio_size(const std::string& text);

}  // namespace sd::cal
