#include "calibrate/synthetic.h"

#include <cmath>

#include <fmt/format.h>

namespace sd::cal {


namespace {

// Runs writes through the model and records them with noisy durations: the
// model says how long each op took, the "measurement" adds jitter.
class Recorder {
 public:
  Recorder(const Profile& p, const char* sweep, Noise n, bool direct = true)
      : dev_(p, ModelOptions{n.seed}), rng_(n.seed ^ 0xA5A5), jitter_(n.jitter), direct_(direct) {
    trace_.meta = {{"tool", "streamdisk synthetic"}, {"profile", p.name}, {"sweep", sweep},
                   {"seed", fmt::format("{}", n.seed)}, {"direct", direct ? "1" : "0"}};
    dev_.submit({OpKind::Create, 1, 0, 0}, 0);
  }
  // One write issued now; returns false once the device refuses (ENOSPC).
  bool write(uint64_t bytes) {
    double stalled = dev_.stall_seconds();
    Completion c = dev_.submit({OpKind::Write, 1, offset_, bytes, direct_}, model_now_);
    // The jitter is the ordinary writes' (rate jitter); a direct write's stall is added as drawn.
    double pause = direct_ ? std::min(dev_.stall_seconds() - stalled, c.done - model_now_) : 0;
    double d = (c.done - model_now_ - pause) * std::max(0.05, 1 + jitter_ * rng_.normal()) + pause;
    TraceRecord r;
    r.start = now_, r.end = now_ + d, r.file = "1", r.offset = offset_, r.bytes = c.bytes, r.error = c.error;
    r.direct = c.direct;
    trace_.records.push_back(r);
    model_now_ = c.done, now_ = r.end;
    offset_ += c.bytes;
    return c.error == 0 && c.bytes > 0;  // a short write is followed by the error, as with dd
  }
  void forget() { trace_.records.clear(); }
  void idle(double s) { model_now_ += s, now_ += s; }
  double now() const { return now_; }
  Trace take() { return std::move(trace_); }
  double written() const { return static_cast<double>(offset_); }

 private:
  ModelDevice dev_;
  NoiseGen rng_;
  double jitter_;
  bool direct_;
  Trace trace_;
  double now_ = 0, model_now_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace

Trace synth_block_sweep(const Profile& p, const std::vector<uint64_t>& sizes, size_t count, Noise n,
                        double precondition) {
  Recorder r(p, "blocksize", n);
  while (r.written() < precondition) r.write(1 << 20);
  r.forget();
  for (uint64_t b : sizes)
    for (size_t i = 0; i < count; ++i) r.write(b);
  return r.take();
}

Trace synth_sustained(const Profile& p, uint64_t block, double total, const std::vector<std::pair<double, double>>& gaps,
                      Noise n) {
  Recorder r(p, "sustained", n);
  size_t g = 0;
  while (r.written() < total) {
    if (g < gaps.size() && r.written() >= gaps[g].first) r.idle(gaps[g++].second);
    if (!r.write(block)) break;
  }
  return r.take();
}

Trace synth_paced(const Profile& p, uint64_t block, double mbps, double seconds, Noise n) {
  Recorder r(p, "paced", n);
  double pace = static_cast<double>(block) / (mbps * 1e6);
  for (uint64_t i = 0;; ++i) {
    double due = static_cast<double>(i) * pace;  // a writer behind its schedule writes at once
    if (due >= seconds) break;
    if (r.now() < due) r.idle(due - r.now());
    if (!r.write(block)) break;
  }
  Trace t = r.take();
  t.meta["pace_mbps"] = fmt::format("{:.6g}", mbps);
  return t;
}

Trace synth_fill(const Profile& p, uint64_t block, Noise n) {
  Recorder r(p, "fill", n);
  while (r.write(block)) {
  }
  return r.take();
}

Trace synth_buffered(const Profile& p, uint64_t block, double total, Noise n) {
  Recorder r(p, "buffered", n, false);
  while (r.written() < total && r.write(block)) {
  }
  return r.take();
}

std::vector<RatePoint> synth_read_table(const ReadParams& p, const std::vector<double>& blocks, int max_threads,
                                        Noise n) {
  NoiseGen rng(n.seed);
  std::vector<RatePoint> out;
  for (double b : blocks)
    for (int t = 1; t <= max_threads; ++t) {
      double v = predict_read_mbps(p, b, t) * (1 + n.jitter * rng.normal());
      out.push_back({b, t, v, true, 0, fmt::format("synthetic {}x{}", b, t)});
    }
  return out;
}

}  // namespace sd::cal
