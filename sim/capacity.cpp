#include "sim/capacity.h"

#include <fmt/format.h>

#include "models/units.h"

#include "models/stalls.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>

#include "models/analytic.h"
#include "sim/seed_pool.h"
#include "sim/verdict.h"

namespace sd {
namespace {

// One seed's run, reduced to what the criterion needs.
struct SeedOutcome {
  bool fail = false;
  bool config_error = false;  // the format cannot hold it: the same for every seed
  std::string reason;
  double first_overrun_s = -1;
};

class Searcher {
 public:
  Searcher(const Profile& p, const CapacityQuery& q)
      : p_(p), q_(q), pool_(q.threads), stalls_(has_stalls(p)) {
    max_seeds_ = stalls_ ? std::max(1, q.criterion.max_seeds) : 1;
  }

  // Runs seeds 1, 2, ... in parallel and consumes them in order until the
  // candidate is settled (or every seed ran).
  CandidateStats evaluate(double value, const RecorderConfig& cfg) {
    RecorderConfig c = cfg;
    c.stop_at_first_overrun = true;
    std::vector<SeedOutcome> seeds(static_cast<size_t>(max_seeds_));
    auto work = [&](size_t i) {
      ModelOptions mo = q_.model;
      mo.seed = static_cast<uint64_t>(i + 1);
      ModelDevice dev(p_, mo);
      VirtualClock clock;
      auto r = run_recorder(dev, clock, c);
      SeedOutcome& o = seeds[i];
      if (!r) {
        o.fail = o.config_error = true;
        o.reason = r.message();
      } else if (!recording_ok(*r)) {
        o.fail = true;
        o.reason = r->overrun_events ? "overruns" : r->stopped_reason;
        if (r->first_overrun_s) o.first_overrun_s = *r->first_overrun_s;
      }
    };
    const CapacityCriterion& cr = q_.criterion;
    CandidateStats st;
    st.value = value;
    auto consume = [&](size_t i) {
      const SeedOutcome& o = seeds[i];
      ++st.seeds;
      if (o.fail) {
        ++st.seeds_with_overrun;
        if (st.reason.empty()) st.reason = o.reason, st.first_overrun_s = o.first_overrun_s;
      }
      if (o.config_error) return false;  // not random: more seeds say nothing new
      st.side = compare_to_level(st.seeds_with_overrun, st.seeds, cr.max_overrun_probability, cr.confidence);
      return !(cr.early_stop && st.side != Side::Open);
    };
    runs_ += pool_.run(seeds.size(), work, consume);
    if (!stalls_ || seeds[0].config_error) {  // one run is the exact answer
      bool fail = st.seeds_with_overrun > 0;
      st.p = fail ? Interval{1, 1} : Interval{0, 0};
      st.side = fail ? Side::Above : Side::Below;
    } else {
      st.p = clopper_pearson(st.seeds_with_overrun, st.seeds, cr.confidence);
      st.side = compare_to_level(st.seeds_with_overrun, st.seeds, cr.max_overrun_probability, cr.confidence);
    }
    st.pass = st.side == Side::Below || (st.side == Side::Open && st.probability() <= cr.max_overrun_probability);
    candidates_.push_back(st);
    return st;
  }

  bool stalls() const { return stalls_; }
  int max_seeds() const { return max_seeds_; }
  uint64_t runs() const { return runs_; }
  uint64_t wasted() const { return pool_.wasted(); }
  unsigned threads() const { return pool_.threads(); }
  const std::vector<CandidateStats>& candidates() const { return candidates_; }

 private:
  const Profile& p_;
  const CapacityQuery& q_;
  SeedPool pool_;
  bool stalls_;
  int max_seeds_;
  uint64_t runs_ = 0;
  std::vector<CandidateStats> candidates_;
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
  CandidateStats bad_o, good_o;
  while (true) {
    CandidateStats o = eval(x);
    if (o.pass) {
      good = x, good_o = o;
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
      CandidateStats o = eval(mid);
      if (o.pass) good = mid, good_o = o;
      else bad = mid, bad_o = o;
    }
  }
  out.found = !std::isnan(good);
  out.best = out.found ? good : 0;
  if (out.found) out.at_best = good_o;
  if (!std::isnan(bad)) {
    out.limited_by = bad_o.reason;
    out.first_overrun_s = bad_o.first_overrun_s;
  }
}

// The channel counts the search tried near the answer (no extra runs).
std::vector<uint32_t> default_probes(const CapacityResult& r, const std::vector<CandidateStats>& tried,
                                     uint32_t max_ch) {
  auto best = static_cast<uint32_t>(r.best);
  std::vector<uint32_t> out;
  for (const auto& c : tried) {
    auto ch = static_cast<uint32_t>(c.value);
    if (ch >= std::max<uint32_t>(1, best / 2) && ch <= 2 * best + 2 && ch <= max_ch) out.push_back(ch);
  }
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

Status check_criterion(const CapacityCriterion& c) {
  if (!(c.max_overrun_probability > 0 && c.max_overrun_probability < 1))
    return Status::error("--max-overrun-probability must be above 0 and below 100 %, such as 5% or 0.01");
  if (!(c.confidence >= 0.5 && c.confidence < 1))
    return Status::error("--confidence must be from 50 % to below 100 %, such as 95%");
  if (c.max_seeds < 1) return Status::error("--seeds must be 1 or more");
  return {};
}

Result<CapacityResult> find_capacity(const Profile& p, const CapacityQuery& q) {
  if (auto st = check_recorder(q.base); !st.ok()) return st;
  if (auto st = check_criterion(q.criterion); !st.ok()) return st;
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
      std::map<uint32_t, CandidateStats> seen;  // every evaluation is complete under the criterion
      auto eval = [&](double ch) {
        RecorderConfig c = cfg;
        c.stream.channels = static_cast<uint32_t>(ch);
        CandidateStats o = s.evaluate(ch, c);
        seen[c.stream.channels] = o;
        return o;
      };
      search(std::floor(rate / per_ch), 1, hi, true, true, eval, out);
      if (out.at_search_limit) out.limited_by = space_bound ? "free space" : "search limit";
      std::vector<uint32_t> probes = q.probes.empty() ? default_probes(out, s.candidates(), q.max_channels) : q.probes;
      for (uint32_t ch : probes) {
        if (space_bound && ch > hi) {  // more payload than free space: fails on every seed, exactly
          CandidateStats full;
          full.value = ch, full.seeds = full.seeds_with_overrun = 1, full.p = {1, 1}, full.side = Side::Above;
          full.reason = "free space";
          out.probes.push_back({ch, full});
          continue;
        }
        auto it = seen.find(ch);
        if (it == seen.end()) it = seen.emplace(ch, eval(ch)).first;
        out.probes.push_back({ch, it->second});
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
        return s.evaluate(r, c);
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
        return s.evaluate(b, c);
      };
      search(static_cast<double>(cfg.buffer_bytes), std::max(fb, 4096.0), q.max_buffer_bytes, false, false, eval,
             out);
      if (out.found) out.best = std::ceil(out.best / fb) * fb;
      if (out.at_search_limit) out.limited_by = "search limit";
      break;
    }
  }
  out.candidates = s.candidates();
  if (out.found) {
    // The band: the answer and every open candidate the search met.
    out.band_low = out.band_high = out.best;
    for (const auto& c : out.candidates)
      if (c.side == Side::Open) {
        double v = q.target == CapacityTarget::Buffer ? std::ceil(c.value / static_cast<double>(st.frame_bytes())) *
                                                            static_cast<double>(st.frame_bytes())
                                                      : c.value;
        out.band_low = std::min(out.band_low, v), out.band_high = std::max(out.band_high, v);
      }
  }
  out.stalls = s.stalls();
  out.max_seeds = s.max_seeds();
  out.runs = s.runs();
  out.wasted_runs = s.wasted();
  out.threads = s.threads();
  return out;
}

std::vector<Result<CapacityResult>> find_capacities(const std::vector<const Profile*>& profiles,
                                                    const std::vector<CapacityQuery>& queries, unsigned threads) {
  std::vector<std::optional<Result<CapacityResult>>> out(profiles.size());
  SeedPool pool(threads);
  pool.run(
      profiles.size(), [&](size_t i) { out[i].emplace(find_capacity(*profiles[i], queries[i])); },
      [](size_t) { return true; }, SIZE_MAX);
  std::vector<Result<CapacityResult>> results;
  for (auto& r : out) results.push_back(std::move(*r));
  return results;
}

}  // namespace sd

namespace sd {

std::string criterion_text(const CapacityCriterion& c, double duration_s) {
  return fmt::format("P(>=1 overrun in {}) < {:g} %", format_duration(duration_s), 100 * c.max_overrun_probability);
}

}  // namespace sd
