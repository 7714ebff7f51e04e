// Parsing and printing of the quantities users type: sizes ("4k", "1MiB",
// "16GB"), rates ("300MB/s"), durations ("90s", "1.5h"), fractions ("85%").
// Conventions: k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti powers of 1024; a bare
// "k" on a size (as in dd's bs=4k) means KiB, as dd and fio read it.
// MB/s is 10^6 bytes per second everywhere (what dd and fio print).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "models/status.h"

namespace sd {

inline constexpr double kMB = 1e6;

Result<double> parse_size(std::string_view text);       // bytes
Result<double> parse_rate(std::string_view text);       // bytes per second
Result<double> parse_duration(std::string_view text);   // seconds
Result<double> parse_fraction(std::string_view text);   // 0..1, accepts "85%" or "0.85"
Result<double> parse_count(std::string_view text);      // plain number, "48k" = 48000

// The one number syntax of every reader and option: decimal digits with an
// optional sign, point and exponent ("12", "-1.5", "2e-3"). No hex, octal,
// "inf" or "nan", so "0x10" means the same (an error) on the command line and
// in files. `used` (if given) receives the characters consumed; without it
// the whole text must be the number.
bool parse_decimal(std::string_view text, double& out, size_t* used = nullptr);
// A whole number of 0 or more (no sign), at most `max`.
bool parse_whole(std::string_view text, uint64_t& out, uint64_t max = UINT64_MAX);

std::string format_size(double bytes);       // "1 MiB", "512 B", "16 GB" (IEC if exact)
std::string format_rate(double bytes_per_s); // "300 MB/s"
std::string format_duration(double seconds); // "8.7 s", "1 h 30 min"

}  // namespace sd
