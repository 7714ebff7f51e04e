// Reading what users give us, with limits (issue 11 §4, §7). Every input
// reader (profile TOML, native trace, fio iologs and logs, fio JSON, strace,
// rate tables, report JSON) reads through these, so each one:
//   - stops at a size and a line-length limit with one clear message
//     (`/dev/zero` as input ends at once: text never holds a NUL byte);
//   - quotes at most ~80 characters of the input in any message;
//   - reads pipes, fifos and `<(...)` the same way as regular files;
//   - says what a path is when it is not a readable file ("is a directory").
#pragma once
#include <cstdint>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>

#include "models/status.h"

namespace sd {

// The most lines a line-by-line reader takes where pointers are 32 bits
// (armhf): the readers keep every row (a native trace row is ~104 bytes as a
// TraceRecord on armhf and ~72 more as its ReplayOp), and all of a process's
// memory must fit in 3 GiB of address space, so a longer input (a 2 GiB pipe
// of short rows) would end in "out of memory" part way. 4 million rows take
// ~0.7 GB, which a 2 GB Raspberry Pi holds too. 0 (64-bit) = no line limit:
// there the machine's memory is the bound, not the address space.
inline constexpr uint64_t kMaxLines32 = 4'000'000;
inline constexpr uint64_t kMaxTextLines = sizeof(void*) < 8 ? kMaxLines32 : 0;

struct InputLimits {
  uint64_t max_bytes = uint64_t{4} << 30;  // 4 GiB: a long strace or trace, well under any machine's memory need
  size_t max_line = size_t{1} << 20;       // 1 MiB; 0 = no line limit (JSON)
  uint64_t max_lines = 0;                  // LineReader only; 0 = no limit
};
inline constexpr InputLimits kTextLimits{uint64_t{4} << 30, size_t{1} << 20, kMaxTextLines};
inline constexpr InputLimits kJsonLimits{uint64_t{256} << 20, 0};
inline constexpr InputLimits kProfileLimits{uint64_t{1} << 20, size_t{64} << 10};
// The largest size or offset any input may state (trace rows, strace calls):
// 1e17 bytes, the largest device the model takes (capacity_bytes' bound).
// Checked before any sum, so sums of two stay far from overflowing.
inline constexpr uint64_t kMaxStatedBytes = 100'000'000'000'000'000ULL;

// `s` cut to at most `max` characters (then "..."), control characters shown
// as '?', for quoting input in a message.
std::string excerpt(std::string_view s, size_t max = 80);

// Why `path` cannot be read as a file, or "" if it looks readable: "does not
// exist", "is a directory", "is /dev/null (always empty)". Pipes, fifos and
// character devices other than /dev/null are readable (the limits stop
// endless ones such as /dev/zero).
std::string unreadable_reason(const std::string& path);

// Reads a whole input ("-" is stdin) within `limits`. `what` names it in
// messages: "cannot read fio JSON 'x.json': is a directory".
Result<std::string> read_input(const std::string& path, std::string_view what,
                               const InputLimits& limits = kTextLimits);
// The same checks for text already in memory (fuzz targets, pipes read by callers).
Status check_text(std::string_view text, std::string_view name, const InputLimits& limits = kTextLimits);

// One line at a time, within limits. next() strips "\n" and "\r\n"; it
// returns false at the end of the input or on an error (then status() says
// which: a line too long, a NUL byte, CR-only line endings, too much input).
class LineReader {
 public:
  LineReader(std::istream& in, std::string name, const InputLimits& limits = kTextLimits);
  bool next(std::string& line);
  size_t lineno() const { return lineno_; }
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

 private:
  bool fail(std::string what);
  std::streambuf* buf_;
  std::string name_;
  InputLimits limits_;
  size_t lineno_ = 0;
  uint64_t total_ = 0;
  Status status_;
};

// A stream buffer that serves `head` first, then the rest of `tail`: lets a
// reader look at the first lines of a pipe (format detection) and then read
// it from the start without seeking.
class ChainedStreambuf : public std::streambuf {
 public:
  ChainedStreambuf(std::string head, std::streambuf* tail) : head_(std::move(head)), tail_(tail) {
    setg(head_.data(), head_.data(), head_.data() + head_.size());
  }

 protected:
  int_type underflow() override;

 private:
  std::string head_;
  std::streambuf* tail_;
  char buf_[1 << 16];
};

}  // namespace sd
