#include "calibrate/seek_fit.h"

#include <cmath>

#include <fmt/format.h>

#include "calibrate/fit.h"

namespace sd::cal {

std::string meta_of(const Series& s, const char* key) {
  auto it = s.meta.find(key);
  return it == s.meta.end() ? "" : it->second;
}

SeekFit fit_seek_penalty(const Series& seq, const Series& inter) {
  SeekFit f;
  auto durations = [](const Series& s) {
    std::vector<double> d;
    for (const auto& op : s.ops)
      if (!op.read && op.bytes > 0 && !op.error) d.push_back(op.end - op.start);
    return d;
  };
  std::vector<double> a = durations(seq), b = durations(inter);
  if (a.size() < 5 || b.size() < 5) {
    f.why = fmt::format("the interleaved-files sweep has too few writes ({} sequential, {} interleaved; 5+ each)",
                        a.size(), b.size());
    return f;
  }
  f.sequential_s = median(a);
  f.interleaved_s = median(b);
  // Standard error of a median ~ 1.2533 sigma / sqrt(n), sigma from the MAD.
  auto se = [](const std::vector<double>& v, double med) {
    return 1.2533 * 1.4826 * mad(v, med) / std::sqrt(static_cast<double>(v.size()));
  };
  f.penalty_s = f.interleaved_s - f.sequential_s;
  f.band = 1.96 * std::hypot(se(a, f.sequential_s), se(b, f.interleaved_s));
  f.points = a.size() + b.size();
  f.ok = true;
  return f;
}

}  // namespace sd::cal
