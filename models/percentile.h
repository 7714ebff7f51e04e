// The one percentile of the project: nearest rank. For n values and q in
// [0, 1], the value at rank ceil(q * n) in ascending order (rank 1 for q = 0):
// the smallest value with at least q * n of the values at or below it. It is
// always one of the values (no interpolation), so a p99 over 1000 latencies is
// the 990th smallest and q = 1 is the maximum. 0 for no values.
//
// Used for every latency and error percentile the commands print (replay,
// measure, characterize, mount's reply error) and by the agreement tests.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace sd {

// Reorders `v` partially (std::nth_element); call again on the same vector for
// other q.
template <class T>
double percentile_in_place(std::vector<T>& v, double q) {
  if (v.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  size_t k = std::min(v.size() - 1, rank > 0 ? rank - 1 : 0);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return static_cast<double>(v[k]);
}

template <class T>
double percentile(std::vector<T> v, double q) {
  return percentile_in_place(v, q);
}

}  // namespace sd
