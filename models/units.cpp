#include "models/units.h"

#include <cerrno>
#include <cstdlib>

#include "models/input.h"

#include <cctype>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace sd {
namespace {

struct Split {
  double number;
  std::string suffix;  // lower-case, spaces removed
};

Result<Split> split_number(std::string_view text, std::string_view what, std::string_view example) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s.push_back(c);
  if (s.empty()) return Result<Split>::error(fmt::format("empty {}: give a value such as {}", what, example));
  size_t used = 0;
  double v = 0;
  if (!parse_decimal(s, v, &used))
    return Result<Split>::error(
        fmt::format("'{}' is not a {}: give a value such as {}", excerpt(text), what, example));
  std::string suf = s.substr(used);
  for (auto& c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return Split{v, suf};
}

// Multiplier for a size prefix; nullopt if unknown. `bare_k_binary` makes "k",
// "m", "g" mean KiB/MiB/GiB (dd and fio's reading of bs=4k).
std::optional<double> prefix_multiplier(std::string_view p, bool bare_binary) {
  if (p.empty()) return 1.0;
  const std::string_view dec = "kmgtp";
  double base = 0;
  bool binary = bare_binary;
  std::string_view rest = p.substr(1);
  auto pos = dec.find(p[0]);
  if (pos == std::string_view::npos) return std::nullopt;
  if (rest == "i" ) binary = true;
  else if (rest == "ib") binary = true;
  else if (rest == "b") binary = false;
  else if (!rest.empty()) return std::nullopt;
  base = binary ? 1024.0 : 1000.0;
  return std::pow(base, static_cast<double>(pos + 1));
}

}  // namespace

bool parse_decimal(std::string_view t, double& out, size_t* used) {
  size_t i = 0, n = t.size();
  auto digit = [&](size_t k) { return k < n && t[k] >= '0' && t[k] <= '9'; };
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  size_t mant = 0;
  while (digit(i)) ++i, ++mant;
  if (i < n && t[i] == '.') {
    ++i;
    while (digit(i)) ++i, ++mant;
  }
  if (mant == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    size_t k = i + 1;
    if (k < n && (t[k] == '+' || t[k] == '-')) ++k;
    if (digit(k)) {
      while (digit(k)) ++k;
      i = k;
    }
  }
  if (!used && i != n) return false;
  std::string s(t.substr(0, i));
  errno = 0;
  double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) return false;  // 1e999
  out = v;
  if (used) *used = i;
  return true;
}

bool parse_whole(std::string_view t, uint64_t& out, uint64_t max) {
  if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string_view::npos) return false;
  errno = 0;
  unsigned long long v = std::strtoull(std::string(t).c_str(), nullptr, 10);
  if (errno == ERANGE || v > max) return false;
  out = v;
  return true;
}

Result<double> parse_size(std::string_view text) {
  auto sp = split_number(text, "size", "4k, 1MiB or 16GB");
  if (!sp) return sp.status();
  std::string suf = sp->suffix;
  if (suf == "b" || suf == "bytes" || suf == "byte") suf.clear();
  auto m = prefix_multiplier(suf, /*bare_binary=*/true);
  if (!m)
    return Result<double>::error(fmt::format(
        "'{}' has an unknown size unit '{}': use B, k/KiB, MiB, GiB, or kB/MB/GB for powers of 1000", text, sp->suffix));
  double v = sp->number * *m;
  if (!std::isfinite(v)) return Result<double>::error(fmt::format("'{}' is too large", excerpt(text)));
  if (v < 0) return Result<double>::error(fmt::format("size '{}' is negative: sizes must be 0 or more", excerpt(text)));
  return v;
}

Result<double> parse_rate(std::string_view text) {
  auto sp = split_number(text, "rate", "300MB/s");
  if (!sp) return sp.status();
  std::string suf = sp->suffix;
  bool per_second = false;
  if (suf.size() >= 2 && suf.substr(suf.size() - 2) == "/s") suf.resize(suf.size() - 2), per_second = true;
  else if (suf.size() >= 2 && suf.substr(suf.size() - 2) == "ps") suf.resize(suf.size() - 2), per_second = true;
  // "5GB" is a size: taking it as 5 GB/s would hide a mistake.
  if (!per_second && !suf.empty() && suf.back() == 'b' && prefix_multiplier(suf, false))
    return Result<double>::error(
        fmt::format("'{}' is a size, not a rate: write a rate such as {}/s", excerpt(text), excerpt(text)));
  if (suf == "b" || suf.empty()) suf.clear();
  auto m = prefix_multiplier(suf, /*bare_binary=*/false);
  if (!m)
    return Result<double>::error(fmt::format("'{}' has an unknown rate unit: use e.g. 300MB/s, 40MiB/s or 2GB/s", excerpt(text)));
  double v = sp->number * *m;
  if (!std::isfinite(v)) return Result<double>::error(fmt::format("'{}' is too large", excerpt(text)));
  if (v <= 0) return Result<double>::error(fmt::format("rate '{}' must be greater than 0", excerpt(text)));
  return v;
}

Result<double> parse_duration(std::string_view text) {
  auto sp = split_number(text, "duration", "90s, 20min or 1.5h");
  if (!sp) return sp.status();
  const std::string& s = sp->suffix;
  double mult;
  if (s.empty() || s == "s" || s == "sec") mult = 1;
  else if (s == "ms") mult = 1e-3;
  else if (s == "us") mult = 1e-6;
  else if (s == "m" || s == "min") mult = 60;
  else if (s == "h" || s == "hr") mult = 3600;
  else if (s == "d") mult = 86400;
  else
    return Result<double>::error(fmt::format("'{}' has an unknown time unit '{}': use ms, s, min or h", excerpt(text), excerpt(s)));
  double v = sp->number * mult;
  if (!std::isfinite(v)) return Result<double>::error(fmt::format("'{}' is too large", excerpt(text)));
  if (v < 0) return Result<double>::error(fmt::format("duration '{}' is negative", excerpt(text)));
  return v;
}

Result<double> parse_fraction(std::string_view text) {
  auto sp = split_number(text, "fraction", "85% or 0.85");
  if (!sp) return sp.status();
  double v = sp->number;
  if (sp->suffix == "%") v /= 100;
  else if (!sp->suffix.empty())
    return Result<double>::error(fmt::format("'{}' is not a fraction: write 85% or 0.85", excerpt(text)));
  if (v < 0 || v > 1) return Result<double>::error(fmt::format("'{}' is outside 0..100%", excerpt(text)));
  return v;
}

Result<double> parse_count(std::string_view text) {
  auto sp = split_number(text, "number", "48 or 48k");
  if (!sp) return sp.status();
  double v = sp->number;
  if (sp->suffix == "k") v *= 1e3;
  else if (sp->suffix == "m") v *= 1e6;
  else if (sp->suffix == "hz") {}
  else if (sp->suffix == "khz") v *= 1e3;
  else if (sp->suffix == "mhz") v *= 1e6;
  else if (!sp->suffix.empty())
    return Result<double>::error(fmt::format("'{}' is not a number: write 48000 or 48k", excerpt(text)));
  if (!std::isfinite(v)) return Result<double>::error(fmt::format("'{}' is too large", excerpt(text)));
  if (v < 0) return Result<double>::error(fmt::format("'{}' is negative", excerpt(text)));
  return v;
}

std::string format_size(double b) {
  if (b < 0) return "-" + format_size(-b);
  static const char* iec[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  static const char* si[] = {"B", "kB", "MB", "GB", "TB"};
  // Prefer the exact binary spelling (block sizes), else decimal (capacities).
  for (int i = 4; i >= 1; --i) {
    double u = std::pow(1024.0, i);
    if (b >= u && b / u < 1000 && std::fmod(b, u) == 0) return fmt::format("{} {}", b / u, iec[i]);
  }
  for (int i = 4; i >= 1; --i) {
    double u = std::pow(1000.0, i);
    if (b >= u) return fmt::format("{:.3g} {}", b / u, si[i]);
  }
  return fmt::format("{} {}", b, si[0]);
}

std::string format_rate(double r) {
  if (r >= 1e9) return fmt::format("{:.2f} GB/s", r / 1e9);
  if (r >= 100e6) return fmt::format("{:.0f} MB/s", r / 1e6);
  if (r >= 1e6) return fmt::format("{:.1f} MB/s", r / 1e6);
  return fmt::format("{:.2f} MB/s", r / 1e6);
}

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "never";
  if (s < 1e-3) return fmt::format("{:.0f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.1f} ms", s * 1e3);
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.2f} h", s / 3600);
}

}  // namespace sd
