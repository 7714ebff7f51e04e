// One line of `strace -f -tt -T` output, split into its parts. Kept apart
// from the fd bookkeeping (strace_reader.cpp) so each can be tested alone.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace sd {

struct StraceCall {
  int pid = 0;            // 0 when strace printed no pid (traced without -f)
  double start = 0;       // seconds since the first line of the trace
  double duration = -1;   // from -T's "<0.000123>", or -1
  std::string name;       // "write"
  std::string raw_args;   // the text between the parentheses
  std::vector<std::string> args;  // raw_args split at top-level commas, trimmed
  long long ret = -1;     // the result; -1 for an error or '?'
  long long arg_int(size_t i) const;                 // 0 if absent or not a number
  std::optional<std::string> arg_string(size_t i) const;  // unquoted C string
  void append_args(const std::string& more);         // joins a resumed call's tail
};

// Turns -tt / -ttt stamps into seconds since the first one, across midnight.
struct StraceClock {
  bool started = false;
  double origin = 0, last = 0, day = 0;
  double relative(double abs_seconds);
};

enum class StraceLineKind { Call, Unfinished, Resumed, Skip };

struct StraceLine {
  StraceLineKind kind = StraceLineKind::Skip;
  StraceCall call;           // for Resumed: pid, name, ret, duration only
  std::string resumed_args;  // for Resumed: argument text after "resumed>"
  std::string error;         // non-empty: the line cannot be understood
};

StraceLine parse_strace_line(const std::string& line, StraceClock& clock);
std::vector<std::string> split_strace_args(const std::string& raw);

}  // namespace sd
