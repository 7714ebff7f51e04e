#include "sim/capacity.h"

#include "models/host_cache.h"

#include <fmt/format.h>

#include "models/units.h"

#include "models/stalls.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <functional>
#include <optional>

#include "models/analytic.h"
#include "sim/cost.h"
#include "sim/seed_pool.h"
#include "sim/verdict.h"

namespace sd {
namespace {

// Why the search went no further when it stopped at CapacityQuery::enough.
constexpr const char* kEnoughReason = "not searched (--enough)";

// One seed's run, reduced to what the criterion needs.
struct SeedOutcome {
  bool fail = false;
  bool config_error = false;  // the format cannot hold it: the same for every seed
  std::string reason;
  double first_overrun_s = -1;
  double simulated_s = 0;  // virtual seconds the run lasted (0: not run)
  bool ran = false;        // simulated (not inferred, not skipped)
  bool inferred = false;   // taken from the seed's runs at other candidates (CapacityQuery::same_seeds)
};

// What one seed's runs said (CapacityQuery::same_seeds): clean up to
// `clean_at` channels, overrunning from `fail_at` on (with that run's outcome).
struct SeedMemo {
  double clean_at = -INFINITY, fail_at = INFINITY;
  SeedOutcome fail;
};

class Searcher {
 public:
  Searcher(const Profile& p, const CapacityQuery& q)
      : p_(p), q_(q), pool_(q.threads), stalls_(has_stalls(p)) {
    max_seeds_ = stalls_ ? std::max(1, q.criterion.max_seeds) : 1;
    if (stalls_ && q.same_seeds && q.target == CapacityTarget::Channels) memo_.resize(static_cast<size_t>(max_seeds_));
  }

  // Runs seeds 1, 2, ... in parallel and consumes them in order until the
  // candidate is settled (or every seed ran). A single-run candidate
  // prefetch() already ran is taken from there; seeds likely to fail
  // (CapacityQuery::likely_failing) run first and may settle it alone.
  CandidateStats evaluate(double value, const RecorderConfig& cfg) {
    std::vector<SeedOutcome> seeds(static_cast<size_t>(max_seeds_));
    std::vector<char> early(seeds.size(), 0);  // run before the in-order pass
    std::vector<char> claimed(seeds.size(), 0);  // early, and claimed by the in-order pass's pool
    // memo_ is only read while the pool runs, and updated after it.
    auto work = [&](size_t i) {
      if (early[i]) {
        claimed[i] = 1;  // the pool counts it as wasted if it is not consumed
        return;
      }
      if (!memo_.empty()) {
        const SeedMemo& m = memo_[i];
        if (value <= m.clean_at || value >= m.fail_at) {
          SeedOutcome o = value <= m.clean_at ? SeedOutcome{} : m.fail;
          o.ran = false, o.inferred = true, o.simulated_s = 0;
          seeds[i] = o;
          return;
        }
      }
      seeds[i] = run_seed(cfg, i + 1);
    };
    const CapacityCriterion& cr = q_.criterion;
    CandidateStats st;
    st.value = value;
    int verdict = -1;  // certain before the bounds settled (verdict_only)
    auto count = [&](size_t i) {
      const SeedOutcome& o = seeds[i];
      ++st.seeds;
      if (o.fail) {
        ++st.seeds_with_overrun;
        st.failing_seeds.push_back(static_cast<int>(i) + 1);
        if (st.reason.empty()) st.reason = o.reason, st.first_overrun_s = o.first_overrun_s;
      }
    };
    auto consume = [&](size_t i) {
      const SeedOutcome& o = seeds[i];
      count(i);
      if (o.config_error) return false;  // not random: more seeds say nothing new
      st.side = compare_to_level(st.seeds_with_overrun, st.seeds, cr.max_overrun_probability, cr.confidence);
      if (cr.early_stop && st.side != Side::Open) return false;
      if (q_.verdict_only)
        verdict = certain_verdict(st.seeds_with_overrun, st.seeds, max_seeds_, cr.max_overrun_probability,
                                  cr.confidence);
      return verdict < 0;
    };
    if (auto it = ahead_.find(value); it != ahead_.end() && !stalls_) {
      seeds[0] = it->second;
      ahead_.erase(it);
      consume(0);
      ++runs_;
    } else if (std::vector<size_t> first = run_likely_failing(value, work, seeds, early);
               !first.empty() && fails_without_the_rest(first, seeds)) {
      for (size_t i : first) count(i), runs_ += seeds[i].ran, inferred_ += seeds[i].inferred;
      verdict = 0;
    } else {
      size_t consumed = pool_.run(seeds.size(), work, consume);
      for (size_t i = 0; i < seeds.size(); ++i) {
        const SeedOutcome& o = seeds[i];
        if (i < consumed) runs_ += o.ran, inferred_ += o.inferred;
        if (early[i]) {
          early_unconsumed_ += i >= consumed && o.ran && !claimed[i];  // run first, then not needed
          continue;
        }
        simulated_s_ += o.simulated_s;  // also runs finished but not consumed
        // Consumed seeds only: which others finished depends on the threads' timing.
        if (i < consumed) remember(o, i, value);
      }
    }
    if (!stalls_ || seeds[0].config_error) {  // one run is the exact answer
      bool fail = st.seeds_with_overrun > 0;
      st.p = fail ? Interval{1, 1} : Interval{0, 0};
      st.side = fail ? Side::Above : Side::Below;
    } else {
      st.p = clopper_pearson(st.seeds_with_overrun, st.seeds, cr.confidence);
      st.side = compare_to_level(st.seeds_with_overrun, st.seeds, cr.max_overrun_probability, cr.confidence);
    }
    st.pass = st.side == Side::Below || (st.side == Side::Open && st.probability() <= cr.max_overrun_probability);
    if (verdict >= 0 && stalls_) st.pass = verdict == 1;
    candidates_.push_back(st);
    return st;
  }

  // CapacityQuery::likely_failing: runs the seeds listed for `value` (all of
  // them, on the pool: a fixed set, so nothing depends on the threads),
  // marks them `early` and returns them, or nothing when they cannot settle
  // the candidate (too few to fail it, not a verdict-only search, no stalls).
  template <class Work>
  std::vector<size_t> run_likely_failing(double value, Work& work, std::vector<SeedOutcome>& seeds,
                                         std::vector<char>& early) {
    const CapacityCriterion& cr = q_.criterion;
    if (!stalls_ || !q_.verdict_only || !cr.early_stop) return {};
    auto it = q_.likely_failing.find(value);
    if (it == q_.likely_failing.end()) return {};
    std::vector<size_t> first;
    for (int s : it->second)
      if (s >= 1 && s <= max_seeds_) first.push_back(static_cast<size_t>(s - 1));
    std::sort(first.begin(), first.end());
    first.erase(std::unique(first.begin(), first.end()), first.end());
    if (!(static_cast<double>(first.size()) > cr.max_overrun_probability * max_seeds_)) return {};
    pool_.run(first.size(), [&](size_t j) { work(first[j]); }, [](size_t) { return true; }, SIZE_MAX);
    for (size_t i : first) {
      early[i] = 1;
      simulated_s_ += seeds[i].simulated_s;
      remember(seeds[i], i, value);  // a fixed set of seeds: nothing depends on the threads
    }
    return first;
  }

  // True if the overruns among the seeds run first fail the candidate under
  // the in-order rule, whatever the seeds not run would say.
  bool fails_without_the_rest(const std::vector<size_t>& first, const std::vector<SeedOutcome>& seeds) const {
    std::vector<int> failing;
    for (size_t i : first) {
      if (seeds[i].config_error) return false;  // the in-order pass stops at seed 1 with it
      if (seeds[i].fail) failing.push_back(static_cast<int>(i) + 1);
    }
    const CapacityCriterion& cr = q_.criterion;
    return fails_whatever_else(failing, max_seeds_, cr.max_overrun_probability, cr.confidence);
  }

  // Remembers seed i's verdict at `value`, if it ran, for the search's other
  // candidates (CapacityQuery::same_seeds).
  void remember(const SeedOutcome& o, size_t i, double value) {
    if (i >= memo_.size() || !o.ran || o.config_error) return;
    SeedMemo& m = memo_[i];
    if (!o.fail) m.clean_at = std::max(m.clean_at, value);
    else if (value < m.fail_at) m.fail_at = value, m.fail = o;
  }

  // Speculation for profiles without random stalls, where a candidate is one
  // run and the search would otherwise run its candidates one at a time:
  // runs `x` together with the candidate the search asks for next if x
  // passes and the one if it fails, on the pool, in that order (a passing
  // run is a whole recording, a failing one stops at its first overrun, so
  // the expensive branch gets the second thread). Once x passes, the
  // fail-branch is not started. evaluate() then takes these outcomes, so the
  // search, its answer and its candidate list are exactly the sequential
  // ones; outcomes it never asks for are wasted runs.
  using Next = std::optional<std::pair<double, RecorderConfig>>;
  // The fail-branch's candidate, from x's first overrun (seconds; -1 if x
  // failed otherwise): the search may aim it from that time.
  using FailNext = std::function<Next(double first_overrun_s)>;
  void prefetch(const std::pair<double, RecorderConfig>& x, const Next& if_pass, const FailNext& if_fail) {
    if (!speculates() || ahead_.count(x.first)) return;
    std::vector<const std::pair<double, RecorderConfig>*> jobs = {&x};
    bool pass_job = if_pass && !ahead_.count(if_pass->first) && if_pass->first != x.first;
    if (pass_job) jobs.push_back(&*if_pass);
    // The fail-branch's slot is last; its candidate is chosen once x has
    // failed (consume(0)), and it cannot start before: at most `ahead` jobs
    // run past the consumer, so on 2 threads x and the pass-branch run
    // together and the fail-branch follows x's failure, never a guess.
    const bool fail_slot = static_cast<bool>(if_fail);
    Next fail_next;
    if (fail_slot) jobs.push_back(nullptr);
    std::vector<SeedOutcome> out(jobs.size());
    std::vector<char> done(jobs.size(), 0);
    uint64_t wasted0 = pool_.wasted();
    pool_.run(
        jobs.size(),
        [&](size_t i) {
          if (!jobs[i]) return;  // a fail-branch with nothing (new) to run
          out[i] = run_seed(jobs[i]->second, 1);
          done[i] = 1;
        },
        [&](size_t i) {
          if (i != 0 || !fail_slot) return true;
          if (!out[0].fail) return false;  // x passed: the fail-branch is not needed
          fail_next = if_fail(out[0].reason == "overruns" ? out[0].first_overrun_s : -1);
          if (fail_next && !ahead_.count(fail_next->first) && fail_next->first != x.first &&
              !(pass_job && fail_next->first == if_pass->first))
            jobs.back() = &*fail_next;
          return true;
        },
        pass_job ? 2 : 1);
    spec_unconsumed_ += pool_.wasted() - wasted0;  // kept in ahead_, counted there if never asked for
    for (size_t i = 0; i < jobs.size(); ++i)
      if (done[i]) ahead_.emplace(jobs[i]->first, out[i]), simulated_s_ += out[i].simulated_s;
  }
  // True when the pool runs several candidates at once (prefetch() does something).
  bool speculates() const { return !stalls_ && pool_.threads() >= 2; }

  bool stalls() const { return stalls_; }
  int max_seeds() const { return max_seeds_; }
  uint64_t runs() const { return runs_; }
  uint64_t inferred() const { return inferred_; }
  double simulated_s() const { return simulated_s_; }
  uint64_t wasted() const { return pool_.wasted() - spec_unconsumed_ + ahead_.size() + early_unconsumed_; }
  unsigned threads() const { return pool_.threads(); }
  const std::vector<CandidateStats>& candidates() const { return candidates_; }

 private:
  const Profile& p_;
  const CapacityQuery& q_;
  SeedPool pool_;
  bool stalls_;
  int max_seeds_;
  uint64_t runs_ = 0, inferred_ = 0;
  std::vector<CandidateStats> candidates_;
  std::vector<SeedMemo> memo_;  // by seed - 1; empty unless CapacityQuery::same_seeds applies
  std::map<double, SeedOutcome> ahead_;  // prefetched single-run outcomes not yet asked for
  uint64_t spec_unconsumed_ = 0;         // prefetched runs the pool counts as wasted
  uint64_t early_unconsumed_ = 0;        // likely-failing seeds run first that the in-order pass did not reach
  double simulated_s_ = 0;               // virtual seconds of every run, wasted ones included

  SeedOutcome run_seed(const RecorderConfig& cfg, uint64_t seed) const {
    RecorderConfig c = cfg;
    c.stop_at_first_overrun = true;
    ModelOptions mo = q_.model;
    mo.seed = seed;
    ModelDevice dev(p_, mo);
    VirtualClock clock;
    auto r = run_recorder(dev, clock, c);
    SeedOutcome o;
    o.ran = true;
    if (r) o.simulated_s = std::max(0.0, r->end_s);
    if (!r) {
      o.fail = o.config_error = true;
      o.reason = r.message();
    } else if (!recording_ok(*r)) {
      o.fail = true;
      o.reason = r->overrun_events ? "overruns" : r->stopped_reason;
      if (r->first_overrun_s) o.first_overrun_s = *r->first_overrun_s;
    }
    return o;
  }
};

// Free bytes on the device, or infinity.
double free_bytes(const Profile& p, const ModelOptions& mo) {
  double cap = mo.capacity_bytes >= 0 ? mo.capacity_bytes : p.params(Layer::Device).get("capacity_bytes");
  return cap > 0 ? cap - mo.prefill_bytes : INFINITY;
}

// Generic bracket-and-bisect over an integer or real parameter x where
// pass(x) is true below the answer (increasing = true) or above it. The
// search is a state machine (advance: the next candidate after a verdict),
// so with `speculate` it can hand prefetch(x, next if x passes, next if it
// fails as a function of x's first overrun) both possible successors before
// x is known (Searcher::prefetch); the order of eval() calls, and so
// everything found, does not depend on it.
//
// aim_s > 0 (whole numbers, increasing, deterministic runs of aim_s seconds):
// failing candidates' first-overrun times aim the next candidate. 1 / time
// to the first overrun is taken as linear in x through the two failing
// candidates nearest the answer (a cache or a backlog that fills at the
// excess rate gives exactly that), solved for the whole recording; the next
// candidate is the whole number below (or, when that is the passing end of
// the bracket, the next one up). An aim that contradicts a verdict (outside
// the bracket, or farther than the bracketing step) is not used: a failure
// that comes from a cliff (a cache that runs out at any rate above the
// sustained one) does not follow the line.
// Two aimed candidates in a row with the same verdict are followed by a
// plain step (bisection), so a poor aim costs at most every other step.
template <class Eval, class Prefetch>
void search(double guess, double lo_limit, double hi_limit, bool integer, bool increasing, bool speculate,
            double aim_s, Eval eval, Prefetch prefetch, CapacityResult& out) {
  auto clamp = [&](double x) { return std::clamp(integer ? std::round(x) : x, lo_limit, hi_limit); };
  // The guess is usually close (the analytic rate), so bracket with small
  // steps first, growing: x1.01, x1.03, x1.1, x1.4, x2, x4, ... Step i from
  // x toward larger (up) or smaller x; whole numbers try the neighbour first
  // (the guess is often exact).
  const double kSteps[] = {1.01, 1.03, 1.1, 1.4, 2};
  auto step = [&](double x, int i, bool up) {
    if (integer && i == 0) return clamp(up ? x + 1 : x - 1);
    int k = integer ? i - 1 : i;
    double f = k < 5 ? kSteps[k] : 4.0;
    if (up) return clamp(integer ? std::max(x + 1, std::floor(x * f)) : x * f);
    return clamp(integer ? std::min(x - 1, std::ceil(x / f)) : x / f);
  };
  auto mid_of = [&](double g, double b) -> std::optional<double> {
    double gap = std::abs(b - g);
    if (integer ? gap <= 1 : gap <= 0.01 * std::max(g, b)) return std::nullopt;
    return integer ? std::floor((g + b) / 2) : (g + b) / 2;
  };
  const bool aiming = aim_s > 0 && integer && increasing;
  // good: passes; bad: fails. For increasing targets good < bad, else good > bad.
  struct State {
    double good = NAN, bad = NAN;
    bool started = false, bracketing = true, pass0 = false, up = false, at_limit = false;
    int i = 0;  // bracket steps taken
    // Aiming: failing candidates with their first overrun (x, seconds), and
    // the verdicts of the aimed candidates in a row so far.
    std::vector<std::pair<double, double>> fails;
    bool last_aimed = false;
    int aimed_run = 0;       // consecutive aimed candidates with the same verdict
    bool aimed_pass = false;  // that verdict
  };
  // Where 1 / (time to the first overrun) reaches 1 / aim_s, from the two
  // failing candidates with the fewest channels, or nothing.
  auto aim = [&](const State& s) -> std::optional<double> {
    if (s.fails.size() < 2) return std::nullopt;
    std::pair<double, double> a{INFINITY, 0}, b{INFINITY, 0};
    for (const auto& f : s.fails)
      if (f.first < a.first) b = a, a = f;
      else if (f.first < b.first && f.first != a.first) b = f;
    if (!std::isfinite(b.first)) return std::nullopt;
    double slope = (1 / b.second - 1 / a.second) / (b.first - a.first);
    double x = a.first - (1 / a.second - 1 / aim_s) / slope;
    if (!(slope > 0) || !std::isfinite(x)) return std::nullopt;
    return std::floor(x);
  };
  // Bracket away from the first verdict until it flips (a pass moves toward
  // the failing side and back), then bisect. overrun_s: a failing
  // candidate's first overrun, or -1.
  auto advance = [&](State& s, double x, bool pass, double overrun_s) -> std::optional<double> {
    (pass ? s.good : s.bad) = x;
    if (aiming && !pass && overrun_s > 0 && overrun_s < aim_s) s.fails.emplace_back(x, overrun_s);
    if (s.last_aimed) {
      s.aimed_run = s.aimed_run > 0 && s.aimed_pass == pass ? s.aimed_run + 1 : 1;
      s.aimed_pass = pass;
    } else {
      s.aimed_run = 0;
    }
    s.last_aimed = false;
    if (!s.started) s.started = true, s.pass0 = pass, s.up = pass == increasing;
    else if (s.bracketing && pass != s.pass0) s.bracketing = false;
    std::optional<double> a = aiming && s.aimed_run < 2 ? aim(s) : std::nullopt;
    if (s.bracketing) {
      double nx = step(x, s.i++, s.up);
      if (a && !s.up && *a < x && *a >= nx) {  // down from a failing guess: the aim, if no farther than the step
        nx = clamp(*a);
        s.last_aimed = nx != x;
      }
      if (nx != x) return nx;
      s.at_limit = pass;
      return std::nullopt;
    }
    std::optional<double> m = mid_of(s.good, s.bad);
    if (m && a && *a >= s.good && *a < s.bad) {  // an aim outside the bracket contradicts a verdict: bisect
      s.last_aimed = true;
      return std::max(*a, s.good + 1);  // at the good end: the next one, to confirm it fails
    }
    return m;
  };
  State st;
  CandidateStats bad_o, good_o;
  std::optional<double> x = clamp(guess);
  auto overrun_of = [](const CandidateStats& o) {
    return !o.pass && o.reason == "overruns" ? o.first_overrun_s : -1.0;
  };
  while (x) {
    if (speculate) {
      State if_pass = st;
      double xv = *x;
      std::optional<double> pass_next = advance(if_pass, xv, true, -1);
      prefetch(xv, pass_next, [&advance, st, xv](double overrun_s) mutable {
        return advance(st, xv, false, overrun_s);
      });
    }
    CandidateStats o = eval(*x);
    (o.pass ? good_o : bad_o) = o;
    x = advance(st, *x, o.pass, overrun_of(o));
  }
  out.at_search_limit = st.at_limit;
  out.found = !std::isnan(st.good);
  out.best = out.found ? st.good : 0;
  if (out.found) out.at_best = good_o;
  if (!std::isnan(st.bad)) {
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

double enough_limit(CapacityTarget t, double enough, double frame_bytes) {
  switch (t) {
    case CapacityTarget::Channels: return std::max(1.0, std::floor(enough));
    case CapacityTarget::SampleRate: return enough;
    case CapacityTarget::Buffer: return frame_bytes > 0 ? std::ceil(enough / frame_bytes) * frame_bytes : enough;
  }
  return enough;
}

bool has_stalls(const Profile& p) {
  for (Layer l : {Layer::Filesystem, Layer::Device}) {
    const LayerParams& lp = p.params(l);
    if (StallProcess(lp, 0).enabled()) return true;
  }
  // The kernel's timers (flusher, journal commits) have a random phase too.
  return HostCache::has_random_phases(p.params(Layer::Host), p.params(Layer::Filesystem));
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
  // Candidates run ahead of the search, in parallel (Searcher::prefetch).
  const bool speculate = s.speculates();
  auto prefetch = [&s](auto cfg_of) {
    return [&s, cfg_of](double x, std::optional<double> if_pass, auto if_fail) {
      auto with_cfg = [&](std::optional<double> v) -> Searcher::Next {
        if (!v) return std::nullopt;
        return std::pair{*v, cfg_of(*v)};
      };
      s.prefetch({x, cfg_of(x)}, with_cfg(if_pass), [&](double t) mutable { return with_cfg(if_fail(t)); });
    };
  };
  // Deterministic channel searches aim from failing runs' first overruns.
  const double aim_s = q.interpolate && !s.stalls() ? cfg.duration_s : 0;

  switch (q.target) {
    case CapacityTarget::Channels: {
      double per_ch = st.sample_rate * st.sample_bytes();
      double hi = q.max_channels;
      if (q.enough > 0) hi = std::min(hi, enough_limit(q.target, q.enough, 0));
      // More payload than the free space cannot pass: never simulate it.
      bool space_bound = std::isfinite(space) && std::floor(space / (frames * st.sample_bytes())) < hi;
      if (space_bound) hi = std::max(1.0, std::floor(space / (frames * st.sample_bytes())));
      std::map<uint32_t, CandidateStats> seen;  // every evaluation is complete under the criterion
      auto cfg_of = [&](double ch) {
        RecorderConfig c = cfg;
        c.stream.channels = static_cast<uint32_t>(ch);
        return c;
      };
      auto eval = [&](double ch) {
        CandidateStats o = s.evaluate(ch, cfg_of(ch));
        seen[static_cast<uint32_t>(ch)] = o;
        return o;
      };
      search(q.guess > 0 ? q.guess : std::floor(rate / per_ch), 1, hi, true, true, speculate, aim_s, eval,
             prefetch(cfg_of), out);
      if (out.at_search_limit) {
        out.reached_enough = !space_bound && q.enough > 0 && hi < q.max_channels;
        out.limited_by = space_bound ? "free space" : out.reached_enough ? kEnoughReason : "search limit";
      }
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
      if (q.enough > 0) hi = std::min(hi, enough_limit(q.target, q.enough, 0));
      bool space_bound = std::isfinite(space) && space / (cfg.duration_s * st.frame_bytes()) < hi;
      if (space_bound) hi = space / (cfg.duration_s * st.frame_bytes());
      auto cfg_of = [&](double r) {
        RecorderConfig c = cfg;
        c.stream.sample_rate = r;
        return c;
      };
      auto eval = [&](double r) { return s.evaluate(r, cfg_of(r)); };
      search(q.guess > 0 ? q.guess : rate / st.frame_bytes(), 1, hi, false, true, speculate, 0, eval, prefetch(cfg_of),
             out);
      if (out.at_search_limit) {
        out.reached_enough = !space_bound && q.enough > 0 && hi < 1e11;
        out.limited_by = space_bound ? "free space" : out.reached_enough ? kEnoughReason : "search limit";
      }
      break;
    }
    case CapacityTarget::Buffer: {
      double fb = static_cast<double>(st.frame_bytes());
      auto cfg_of = [&](double b) {
        RecorderConfig c = cfg;
        c.buffer_bytes = static_cast<uint64_t>(b);
        if (c.period_frames * st.frame_bytes() > c.buffer_bytes) c.period_frames = 0;
        if (c.block_bytes > c.buffer_bytes) c.block_bytes = 0;
        return c;
      };
      auto eval = [&](double b) { return s.evaluate(b, cfg_of(b)); };
      const double lo = std::max({fb, 4096.0, std::min(q.enough, q.max_buffer_bytes)});
      search(q.guess > 0 ? q.guess : static_cast<double>(cfg.buffer_bytes), lo, q.max_buffer_bytes, false, false,
             speculate, 0, eval, prefetch(cfg_of), out);
      if (out.found) out.best = std::ceil(out.best / fb) * fb;
      if (out.at_search_limit) {
        // A passing limit is the small end: it is enough's when enough set it.
        out.reached_enough = lo > std::max(fb, 4096.0);
        out.limited_by = out.reached_enough ? kEnoughReason : "search limit";
      }
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
  out.inferred_seeds = s.inferred();
  out.wasted_runs = s.wasted();
  out.simulated_s = s.simulated_s();
  out.threads = s.threads();
  return out;
}

std::vector<Result<CapacityResult>> find_capacities(const std::vector<const Profile*>& profiles,
                                                    const std::vector<CapacityQuery>& queries, unsigned threads) {
  std::vector<std::optional<Result<CapacityResult>>> out(profiles.size());
  // The costliest searches start first (longest processing time first): one
  // started last would run alone at the end while the other threads idle.
  // The order changes when each search runs, never what it finds.
  std::vector<size_t> order(profiles.size());
  std::vector<double> cost(profiles.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    const CapacityQuery& q = queries[i];
    if (!check_recorder(q.base).ok() || !check_criterion(q.criterion).ok()) continue;  // fails at once
    double s = estimate_capacity_search(*profiles[i], q.base, q.criterion.max_seeds, q.verdict_only, q.model, q.target,
                                        q.enough)
                   .cpu_seconds();
    if (std::isfinite(s)) cost[i] = s;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  SeedPool pool(threads);
  pool.run(
      profiles.size(), [&](size_t j) { out[order[j]].emplace(find_capacity(*profiles[order[j]], queries[order[j]])); },
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
