#include "models/stalls.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sd {

StallProcess::StallProcess(const LayerParams& p, uint64_t seed) {
  const char* pre[2] = {"stall_", "stall2_"};
  double jitter = p.get("stall_period_jitter"), interval_jitter = p.get("stall_interval_jitter");
  for (int pop = 0; pop < 2; ++pop) {
    std::string k = pre[pop];
    double median = p.get(k + "duration_ms") * 1e-3, sigma = p.get(k + "duration_sigma");
    for (int by_time = 0; by_time < 2; ++by_time) {
      Source& s = src_[static_cast<size_t>(pop * 2 + by_time)];
      s.by_time = by_time != 0;
      s.mean_gap = by_time ? p.get(k + "period_ms") * 1e-3 : p.get(k + "interval_mb") * 1e6;
      s.jitter = by_time ? jitter : interval_jitter;
      s.median_s = median, s.sigma = sigma;
      // Each source draws from a stream of its own.
      s.rng = SplitMix64::seeded(seed, static_cast<uint64_t>(pop * 2 + by_time));
      if (!s.on()) continue;
      if (s.by_time) {
        double first = s.mean_gap * s.rng.uniform();  // a random phase
        s.next = first, s.next_len = s.length();
      } else if (s.jitter < 1) {
        s.next = s.mean_gap * s.rng.uniform();  // a random phase
      } else {
        s.next = -std::log(s.rng.uniform()) * s.mean_gap;
      }
    }
  }
  update_flags();
}

void StallProcess::update_flags() {
  any_ = enabled();
  any_time_ = src_[1].on() || src_[3].on();
}

double StallProcess::Source::length() { return median_s * (sigma > 0 ? std::exp(sigma * rng.normal()) : 1.0); }

// Start to start (time) or end to next (bytes): (1 - j) of the mean gap is
// regular, j of it exponential (j = 1: Poisson).
double StallProcess::Source::gap() { return mean_gap * ((1 - jitter) + jitter * -std::log(rng.uniform())); }

void StallProcess::Source::draw_time_pause() {
  next += gap();
  next_len = length();
}

bool StallProcess::enabled() const {
  return std::any_of(src_.begin(), src_.end(), [](const Source& s) { return s.on(); });
}

void StallProcess::disable() {
  for (Source& s : src_) s.mean_gap = 0;
  update_flags();
}

double StallProcess::delay_on(double start, double end, uint64_t bytes) {
  double stall = 0;
  // Byte-triggered: the pause is inside the request that writes the byte.
  for (Source& s : src_) {
    if (s.by_time || !s.on()) continue;
    double left = static_cast<double>(bytes);
    while (left >= s.next) {
      left -= s.next;
      stall += s.length();
      ++count_;
      s.next = s.gap();
    }
    s.next -= left;
  }
  if (!any_time_) {
    total_s_ += stall;
    return stall;
  }
  // Time-triggered: walk the request's service through the pauses it meets.
  double t = start, work = std::max(0.0, end - start) + stall;
  for (;;) {
    Source* first = nullptr;
    for (Source& s : src_)
      if (s.by_time && s.on() && (!first || s.next < first->next)) first = &s;
    if (!first || first->next >= t + work) break;
    double from = first->next, until = first->next + first->next_len;
    if (until > t) {
      if (from <= t) {
        t = until;  // the pause began while the request waited or the channel idled
      } else {
        work -= from - t;
        t = until;
      }
      ++count_;
    }
    // A pause that ended before the request began passed unseen.
    first->draw_time_pause();
  }
  double total = t + work - std::max(0.0, end - start) - start;
  total_s_ += total;
  return total;
}

bool StallProcess::bytes_before_pause(double& bytes) const {
  bytes = std::numeric_limits<double>::infinity();
  if (any_time_) return false;
  for (const Source& s : src_) {
    if (s.by_time || !s.on()) continue;
    if (!(s.next < 0x1p52)) return false;
    bytes = std::min(bytes, s.next);
  }
  return true;
}

void StallProcess::pass_bytes(double bytes) {
  for (Source& s : src_)
    if (!s.by_time && s.on()) s.next -= bytes;
}

// E[max(0, L - c)] for a log-normal L (median m, sigma s): the call-option
// formula E[L] Phi(d1) - c Phi(d2), d1 = (ln(m / c) + s^2) / s, d2 = d1 - s.
double StallProcess::Source::mean_excess(double c) const {
  if (c <= 0) return median_s * std::exp(sigma * sigma / 2);
  if (sigma <= 0) return std::max(0.0, median_s - c);
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  double d1 = (std::log(median_s / c) + sigma * sigma) / sigma;
  return median_s * std::exp(sigma * sigma / 2) * phi(d1) - c * phi(d1 - sigma);
}

double StallProcess::mean_seconds_per_byte(double catchup_s) const {
  double s = 0;
  for (const Source& src : src_)
    if (!src.by_time && src.on()) s += src.mean_excess(catchup_s) / src.mean_gap;
  return s;
}

double StallProcess::time_fraction(double catchup_s) const {
  double f = 0;
  for (const Source& src : src_)
    if (src.by_time && src.on()) f += src.mean_excess(catchup_s) / src.mean_gap;
  return std::min(f, 0.95);
}

}  // namespace sd
