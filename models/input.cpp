#include "models/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "models/units.h"

namespace sd {
namespace {

std::string limit_text(uint64_t bytes) { return format_size(static_cast<double>(bytes)); }

std::string nul_message(std::string_view name, size_t line) {
  return fmt::format("{}:{}: holds a NUL byte: this is binary data, not a text file", name, line);
}
std::string long_line_message(std::string_view name, size_t line, size_t limit) {
  return fmt::format("{}:{}: a line longer than {}: not a text file of this kind (or a damaged one)", name, line,
                     limit_text(limit));
}
std::string cr_message(std::string_view name, size_t line) {
  return fmt::format("{}:{}: CR-only line endings (old Mac style): convert them first, e.g. tr '\\r' '\\n' < IN > OUT",
                     name, line);
}
std::string too_big_message(std::string_view name, uint64_t limit) {
  return fmt::format("{}: more than {} of input: give a shorter file (split a long trace into parts)", name,
                     limit_text(limit));
}

std::string too_many_lines_message(std::string_view name, uint64_t limit) {
  return fmt::format("{}: more than {} lines, more than a 32-bit streamdisk holds in memory: split it (split -l {}) "
                     "or run streamdisk on a 64-bit system",
                     name, limit, limit);
}

// Scans `data` for NUL bytes, overlong lines and lone CRs, carrying the state
// of the current line across chunks.
struct TextScan {
  explicit TextScan(const InputLimits& l) : limits(l) {}
  InputLimits limits;
  size_t line = 1, line_len = 0;
  bool pending_cr = false;
  std::string error;

  bool feed(std::string_view data, std::string_view name) {
    for (char c : data) {
      if (pending_cr) {
        pending_cr = false;
        if (c != '\n') return fail(cr_message(name, line));
      }
      if (c == '\0') return fail(nul_message(name, line));
      if (c == '\n') {
        ++line;
        line_len = 0;
        continue;
      }
      if (c == '\r') {
        pending_cr = true;
        continue;
      }
      if (limits.max_line && ++line_len > limits.max_line) return fail(long_line_message(name, line, limits.max_line));
    }
    return true;
  }
  bool fail(std::string m) {
    error = std::move(m);
    return false;
  }
};

}  // namespace

std::string excerpt(std::string_view s, size_t max) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (s.size() > max) out += "...";
  return out;
}

std::string unreadable_reason(const std::string& path) {
  if (path == "-") return "";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "does not exist";
    if (errno == ENOTDIR) return "does not exist (a part of its path is not a directory)";
    return std::strerror(errno);
  }
  if (S_ISDIR(st.st_mode)) return "is a directory, not a file";
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)
    return "is /dev/null, which is always empty";
  if (S_ISBLK(st.st_mode)) return "is a block device (a disk), not a file";
  if (S_ISSOCK(st.st_mode)) return "is a socket, not a file";
  if (::access(path.c_str(), R_OK) != 0) return fmt::format("cannot be read: {}", std::strerror(errno));
  return "";
}

Status check_text(std::string_view text, std::string_view name, const InputLimits& limits) {
  if (text.size() > limits.max_bytes) return Status::error(too_big_message(name, limits.max_bytes));
  TextScan scan(limits);
  if (!scan.feed(text, name)) return Status::error(scan.error);
  return {};
}

Result<std::string> read_input(const std::string& path, std::string_view what, const InputLimits& limits) {
  using R = Result<std::string>;
  std::string name = path == "-" ? std::string("stdin") : path;
  if (auto why = unreadable_reason(path); !why.empty())
    return R::error(fmt::format("cannot open {} '{}': it {}", what, path, why));
  int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return R::error(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() {
      if (fd > 0) ::close(fd);
    }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limits.max_bytes)
    return R::error(too_big_message(name, limits.max_bytes));
  std::string out;
  TextScan scan(limits);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return R::error(fmt::format("reading {} '{}' failed: {}", what, path, std::strerror(errno)));
    }
    if (n == 0) break;
    std::string_view chunk(buf, static_cast<size_t>(n));
    if (!scan.feed(chunk, name)) return R::error(scan.error);
    if (out.size() + chunk.size() > limits.max_bytes) return R::error(too_big_message(name, limits.max_bytes));
    out.append(chunk);
  }
  return out;
}

LineReader::LineReader(std::istream& in, std::string name, const InputLimits& limits)
    : buf_(in.rdbuf()), name_(std::move(name)), limits_(limits) {}

bool LineReader::fail(std::string what) {
  status_ = Status::error(std::move(what));
  return false;
}

bool LineReader::next(std::string& line) {
  using T = std::char_traits<char>;
  line.clear();
  if (!status_.ok() || !buf_) return false;
  bool any = false;
  for (;;) {
    T::int_type c = buf_->sbumpc();
    if (T::eq_int_type(c, T::eof())) {
      if (!any) return false;
      break;
    }
    if (!any) {
      if (limits_.max_lines && lineno_ >= limits_.max_lines)
        return fail(too_many_lines_message(name_, limits_.max_lines));
      ++lineno_, any = true;
    }
    if (++total_ > limits_.max_bytes) return fail(too_big_message(name_, limits_.max_bytes));
    char ch = T::to_char_type(c);
    if (ch == '\n') break;
    if (ch == '\r') {
      T::int_type d = buf_->sgetc();
      if (T::eq_int_type(d, T::eof())) break;
      if (T::to_char_type(d) == '\n') {
        buf_->sbumpc();
        ++total_;
        break;
      }
      return fail(cr_message(name_, lineno_));
    }
    if (ch == '\0') return fail(nul_message(name_, lineno_));
    line.push_back(ch);
    if (limits_.max_line && line.size() > limits_.max_line)
      return fail(long_line_message(name_, lineno_, limits_.max_line));
  }
  return true;
}

ChainedStreambuf::int_type ChainedStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!tail_) return traits_type::eof();
  std::streamsize n = tail_->sgetn(buf_, sizeof buf_);
  if (n <= 0) return traits_type::eof();
  setg(buf_, buf_, buf_ + n);
  return traits_type::to_int_type(*gptr());
}

}  // namespace sd
