#include "sim/capacity.h"

#include "models/stalls.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "models/analytic.h"
#include "sim/verdict.h"

namespace sd {
namespace {

struct Outcome {
  bool pass = true;
  std::string reason;  // of the first failing seed
  double first_overrun_s = -1;
  int failing_seeds = 0;
};

class Searcher {
 public:
  Searcher(const Profile& p, const CapacityQuery& q) : p_(p), q_(q) {
    seeds_ = has_stalls(p) ? std::max(1, q.seeds) : 1;
  }

  // Runs seeds until one fails (all of them if `all`).
  Outcome evaluate(const RecorderConfig& cfg, bool all) {
    Outcome o;
    RecorderConfig c = cfg;
    c.stop_at_first_overrun = true;
    for (int s = 1; s <= seeds_; ++s) {
      ModelOptions mo = q_.model;
      mo.seed = static_cast<uint64_t>(s);
      ModelDevice dev(p_, mo);
      VirtualClock clock;
      auto r = run_recorder(dev, clock, c);
      ++runs_;
      if (!r) {  // a configuration the format cannot hold counts as a failure
        o.pass = false, ++o.failing_seeds;
        if (o.reason.empty()) o.reason = r.message();
        if (!all) break;
        continue;
      }
      if (recording_ok(*r)) continue;
      o.pass = false;
      ++o.failing_seeds;
      if (o.reason.empty()) {
        o.reason = r->overrun_events ? "overruns" : r->stopped_reason;
        if (r->first_overrun_s) o.first_overrun_s = *r->first_overrun_s;
      }
      if (!all) break;
    }
    return o;
  }

  int seeds() const { return seeds_; }
  uint64_t runs() const { return runs_; }

 private:
  const Profile& p_;
  const CapacityQuery& q_;
  int seeds_;
  uint64_t runs_ = 0;
};

// Free bytes on the device, or infinity.
double free_bytes(const Profile& p, const ModelOptions& mo) {
  double cap = mo.capacity_bytes >= 0 ? mo.capacity_bytes : p.params(Layer::Device).get("capacity_bytes");
  return cap > 0 ? cap - mo.prefill_bytes : INFINITY;
}

// Generic bracket-and-bisect over an integer or real parameter x where
// pass(x) is true below the answer (increasing = true) or above it.
template <class Eval>
void search(double guess, double lo_limit, double hi_limit, bool integer, bool increasing, Eval eval,
            CapacityResult& out) {
  // The guess is usually close (the analytic rate), so bracket with small
  // steps first, growing: x1.01, x1.03, x1.1, x1.4, x2, x4, ...
  int step = 0;
  const double kSteps[] = {1.01, 1.03, 1.1, 1.4, 2};
  auto factor = [&] { return step < 5 ? kSteps[step++] : 4.0; };
  // Whole numbers try the neighbour first: the guess is often exact.
  bool first = integer;
  auto next_up = [&](double x) {
    if (first) return first = false, x + 1;
    double f = factor();
    return integer ? std::max(x + 1, std::floor(x * f)) : x * f;
  };
  auto next_down = [&](double x) {
    if (first) return first = false, x - 1;
    double f = factor();
    return integer ? std::min(x - 1, std::ceil(x / f)) : x / f;
  };
  auto clamp = [&](double x) { return std::clamp(integer ? std::round(x) : x, lo_limit, hi_limit); };
  // good: passes; bad: fails. For increasing targets good < bad, else good > bad.
  double good = NAN, bad = NAN;
  double x = clamp(guess);
  Outcome bad_o;
  while (true) {
    Outcome o = eval(x);
    if (o.pass) {
      good = x;
      if (!std::isnan(bad)) break;
      double nx = clamp(increasing ? next_up(x) : next_down(x));
      if (nx == x) { out.at_search_limit = true; break; }
      x = nx;
    } else {
      bad = x, bad_o = o;
      if (!std::isnan(good)) break;
      double nx = clamp(increasing ? next_down(x) : next_up(x));
      if (nx == x) break;
      x = nx;
    }
  }
  if (!std::isnan(good) && !std::isnan(bad)) {
    while (true) {
      double gap = std::abs(bad - good);
      if (integer ? gap <= 1 : gap <= 0.01 * std::max(good, bad)) break;
      double mid = integer ? std::floor((good + bad) / 2) : (good + bad) / 2;
      Outcome o = eval(mid);
      if (o.pass) good = mid;
      else bad = mid, bad_o = o;
    }
  }
  out.found = !std::isnan(good);
  out.best = out.found ? good : 0;
  if (!std::isnan(bad)) {
    out.limited_by = bad_o.reason;
    out.first_overrun_s = bad_o.first_overrun_s;
  }
}

std::vector<uint32_t> default_probes(const CapacityResult& r, uint32_t max_ch) {
  static const uint32_t ladder[] = {1,   2,   4,   8,   12,  16,   18,   24,   32,   48,   64,   96,  128,
                                    192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
  auto best = static_cast<uint32_t>(r.best);
  std::vector<uint32_t> out;
  for (uint32_t c : ladder)
    if (c >= std::max<uint32_t>(1, best / 2) && c <= 2 * best + 2 && c <= max_ch) out.push_back(c);
  if (best >= 1) out.push_back(best);
  if (best + 1 <= max_ch) out.push_back(best + 1);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

bool has_stalls(const Profile& p) {
  for (Layer l : {Layer::Filesystem, Layer::Device}) {
    const LayerParams& lp = p.params(l);
    if (StallProcess(lp, 0).enabled()) return true;
  }
  return false;
}

Result<CapacityResult> find_capacity(const Profile& p, const CapacityQuery& q) {
  if (auto st = check_recorder(q.base); !st.ok()) return st;
  Searcher s(p, q);
  CapacityResult out;
  RecorderConfig cfg = q.base;
  const StreamSpec& st = q.base.stream;
  double block = static_cast<double>(cfg.block_bytes ? cfg.block_bytes : cfg.buffer_bytes / 2);
  double rate = write_rate(p, std::max(block, 4096.0), Phase::Sustained, cfg.direct);
  double space = free_bytes(p, q.model);
  double frames = cfg.duration_s * st.sample_rate;

  switch (q.target) {
    case CapacityTarget::Channels: {
      double per_ch = st.sample_rate * st.sample_bytes();
      double hi = q.max_channels;
      // More payload than the free space cannot pass: never simulate it.
      bool space_bound = std::isfinite(space) && std::floor(space / (frames * st.sample_bytes())) < hi;
      if (space_bound) hi = std::max(1.0, std::floor(space / (frames * st.sample_bytes())));
      // Outcomes by channel count; complete when every seed ran (a pass, or one seed).
      std::map<uint32_t, Outcome> seen;
      auto eval = [&](double ch) {
        RecorderConfig c = cfg;
        c.stream.channels = static_cast<uint32_t>(ch);
        Outcome o = s.evaluate(c, false);
        if (o.pass || s.seeds() == 1) seen[c.stream.channels] = o;
        return o;
      };
      search(std::floor(rate / per_ch), 1, hi, true, true, eval, out);
      if (out.at_search_limit) out.limited_by = space_bound ? "free space" : "search limit";
      bool derive = q.probes.empty() && s.seeds() == 1;
      std::vector<uint32_t> probes = q.probes.empty() ? default_probes(out, q.max_channels) : q.probes;
      for (uint32_t ch : probes) {
        if (space_bound && ch > hi) {  // more payload than free space: fails on every seed
          out.probes.push_back({ch, s.seeds(), s.seeds()});
          continue;
        }
        if (auto it = seen.find(ch); it != seen.end()) {
          out.probes.push_back({ch, it->second.failing_seeds, s.seeds()});
          continue;
        }
        if (derive) {  // no stalls: the outcome is the search's, by its monotonicity assumption
          out.probes.push_back({ch, ch > out.best ? 1 : 0, 1});
          continue;
        }
        RecorderConfig c = cfg;
        c.stream.channels = ch;
        Outcome o = s.evaluate(c, true);
        out.probes.push_back({ch, o.failing_seeds, s.seeds()});
      }
      break;
    }
    case CapacityTarget::SampleRate: {
      double hi = 1e11;
      bool space_bound = std::isfinite(space) && space / (cfg.duration_s * st.frame_bytes()) < hi;
      if (space_bound) hi = space / (cfg.duration_s * st.frame_bytes());
      auto eval = [&](double r) {
        RecorderConfig c = cfg;
        c.stream.sample_rate = r;
        return s.evaluate(c, false);
      };
      search(rate / st.frame_bytes(), 1, hi, false, true, eval, out);
      if (out.at_search_limit) out.limited_by = space_bound ? "free space" : "search limit";
      break;
    }
    case CapacityTarget::Buffer: {
      double fb = static_cast<double>(st.frame_bytes());
      auto eval = [&](double b) {
        RecorderConfig c = cfg;
        c.buffer_bytes = static_cast<uint64_t>(b);
        if (c.period_frames * st.frame_bytes() > c.buffer_bytes) c.period_frames = 0;
        if (c.block_bytes > c.buffer_bytes) c.block_bytes = 0;
        return s.evaluate(c, false);
      };
      search(static_cast<double>(cfg.buffer_bytes), std::max(fb, 4096.0), q.max_buffer_bytes, false, false, eval,
             out);
      if (out.found) out.best = std::ceil(out.best / fb) * fb;
      if (out.at_search_limit) out.limited_by = "search limit";
      break;
    }
  }
  out.seeds_used = s.seeds();
  out.runs = s.runs();
  return out;
}

}  // namespace sd
