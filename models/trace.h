// The native trace: one CSV row per operation (DESIGN.md "Traces"). Written by
// simulate, mount, measure and record; read by calibrate and replay. The
// format is versioned and described in docs/formats.md.
//
//   # streamdisk-trace 2
//   # profile=samsung-960evo-250g
//   # seed=1
//   start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct
//   0.000000000,0.000720000,write,1,0,1048576,0,1,,0,0
//
// Times are seconds from the start of the run (9 decimals, so traces written
// from the same run are byte-identical). `file` is an id or a path (quoted if
// it holds a comma or quote). thread, queue_depth and modelled_end_s may be
// empty; error is 0 or an errno name (ENOSPC); direct is 1 when the op went
// through O_DIRECT (Completion::direct: what was done, not what was asked).
// Version 2 added `direct`; version 1 traces (without it) are still read,
// as direct = 0.
#pragma once
#include <cstdint>
#include <cstdio>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/device.h"
#include "models/model_device.h"
#include "models/output_file.h"
#include "models/status.h"

namespace sd {

inline constexpr int kTraceFormatVersion = 2;  // written; 1 and 2 are read

struct TraceRecord {
  double start = 0;
  double end = 0;
  OpKind op = OpKind::Write;
  std::string file;  // id or path
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::optional<int> thread;
  std::optional<int> queue_depth;
  std::optional<double> modelled_end;  // mount: the model's completion time
  int error = 0;                       // errno value
  bool direct = false;                 // through O_DIRECT (0 in version 1 traces)
};

struct Trace {
  std::map<std::string, std::string> meta;  // "# key=value" lines
  std::vector<TraceRecord> records;
  int version = kTraceFormatVersion;        // the format read: 1 has no `direct` column
};

// Writes rows as they come; flushes on close/destruction. Not thread-safe.
class TraceWriter {
 public:
  // Opens `path` ("-" is stdout) by the output-file rules (models/output_file.h)
  // and writes the header with `meta`. Rows go to a temporary file that
  // close() renames into place, so a failed run leaves no half-written trace.
  // `rules.inputs`: files the trace must not be (the command's inputs).
  Status open(const std::string& path, const std::map<std::string, std::string>& meta,
              OutputRules rules = {"--trace", "trace.csv", true, {}});
  void write(const TraceRecord& r);
  Status close();    // renames the finished file into place
  void abandon();    // removes the partial file
  bool is_open() const { return out_.is_open(); }
  bool is_stdout() const { return out_.is_stdout(); }

 private:
  OutputFile out_;
};

// Formats one record as a CSV row (no newline).
std::string format_trace_row(const TraceRecord& r);
// Parses a whole trace; errors name the line ("trace.csv:12: ...").
Result<Trace> read_trace(std::istream& in, const std::string& name);
Result<Trace> read_trace_file(const std::string& path);
// A number from a "# key=value" header line (capacity_bytes, prefill_bytes,
// seed): nullopt if the line is absent; an error naming the trace if the
// value is not a decimal number from 0 to `max` (nan, -1, 1e300...).
Result<std::optional<double>> meta_number(const std::map<std::string, std::string>& meta, const std::string& key,
                                          const std::string& name, double max);
// The header lines that tie a trace to the model it was made with (simulate
// and mount write them; replay reads them), so a replay models the same
// device: `# profile=` (the spec), `# set1=`, `# set2=`... (the --set
// overrides, in order), `# seed=`, `# capacity_bytes=` (only when it replaced
// the profile's), `# prefill_bytes=` (only when > 0) and `# overhead_credit_s=`
// (mount). The one writer and reader of these keys.
struct TraceModel {
  std::string profile;            // empty: unknown (a trace from measure, fio...)
  std::vector<std::string> sets;  // --set key=value, in order
  std::optional<uint64_t> seed;
  std::optional<double> capacity_bytes, prefill_bytes;
  std::optional<double> overhead_credit_s;

  // From the profile spec, its --sets and the model options a run used.
  static TraceModel of(const std::string& profile, const std::vector<std::string>& sets, const ModelOptions& mo);
  // Adds the keys to `meta` (absent fields add nothing).
  void write(std::map<std::string, std::string>& meta) const;
  // Reads the keys from a trace's header; numbers are checked (meta_number),
  // an error names the trace (`name`) and the line.
  static Result<TraceModel> read(const std::map<std::string, std::string>& meta, const std::string& name);
  // The model options these keys give, over `base` (what is absent stays).
  ModelOptions model_options(ModelOptions base = {}) const;
};

// "ENOSPC" <-> 28; unknown names fail.
std::string errno_name(int e);
std::optional<int> errno_from_name(const std::string& s);
std::optional<OpKind> op_from_name(const std::string& s);

}  // namespace sd
