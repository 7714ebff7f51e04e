// The one in-memory form every trace format is read into: a list of file
// operations with their recorded issue times, in issue order. The replayer
// (replayer.h) runs it against any Device; readers (readers.h) build it from
// the native CSV, fio iologs and strace output.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/device.h"

namespace sd {

struct ReplayOp {
  double start = 0;       // recorded issue time, seconds from the start of the trace
  double duration = -1;   // recorded service time in seconds, or -1 if the format has none
  OpKind kind = OpKind::Write;
  std::string file;       // path (or id) as the trace names it
  uint64_t offset = 0;    // Write/Read
  uint64_t bytes = 0;     // Write/Read: length; Truncate: new size
  int thread = 0;         // issuing thread (strace pid, native thread column); 0 if unknown
  bool direct = false;    // O_DIRECT
};

// What a reader made of a trace, with everything it had to leave out, so the
// CLI can say so instead of silently replaying less than was recorded.
struct OpList {
  std::string name;    // the trace's path, for messages
  std::string format;  // "native", "fio-iolog-v2", "fio-iolog-v3", "strace"
  std::vector<ReplayOp> ops;
  std::map<std::string, std::string> meta;       // native: "# key=value" lines
  std::map<std::string, uint64_t> unknown;       // syscall / action name -> lines skipped
  std::map<std::string, uint64_t> ignored;       // why -> count (e.g. "write to stdout/stderr")
  bool has_durations() const;                    // every op carries a recorded duration
  double recorded_end() const;                   // latest start+duration (or start)
  double bytes_written() const;
  size_t file_count() const;                     // distinct files the ops name
  size_t thread_count() const;                   // distinct threads that issue them
};

}  // namespace sd
