#include "sim/capacity_spread.h"

#include <algorithm>
#include <map>
#include <utility>

namespace sd {
namespace {

double answer_of(const CapacityResult& r) { return r.found ? r.best : 0; }

// A profile's ranged values: the spread's profiles of one base differ in nothing else.
std::vector<double> key_of(const Profile& q, const std::vector<RangedParam>& params) {
  std::vector<double> k;
  k.reserve(params.size());
  for (const auto& r : params) k.push_back(q.params(r.layer).get(r.key));
  return k;
}

// The lowest and highest positive answers (0 when none: the search's own start).
std::pair<double, double> positive_range(const std::vector<double>& a) {
  double lo = 0, hi = 0;
  for (double v : a)
    if (v > 0) lo = lo > 0 ? std::min(lo, v) : v, hi = std::max(hi, v);
  return {lo, hi};
}

class Stages {
 public:
  Stages(const std::vector<const Profile*>& profiles, const std::vector<CapacityQuery>& queries, unsigned threads,
         SpreadShortcuts sc, SpreadCost& cost)
      : queries_(queries), threads_(threads), sc_(sc), cost_(cost), known_(profiles.size()), failing_(profiles.size()) {
    for (const Profile* p : profiles) params_.push_back(ranged_params(*p)), stalls_.push_back(has_stalls(*p));
  }

  // Answers for stage[i][j] (profile i's j-th profile of the stage), searched
  // in one batch; guess(i, j) is where each search starts (near_start).
  template <class Guess>
  Result<std::vector<std::vector<double>>> eval(const std::vector<const std::vector<Profile>*>& stage, Guess guess,
                                                bool near) {
    using R = Result<std::vector<std::vector<double>>>;
    struct Slot {
      size_t i, j, batch;
      std::vector<double> key;
    };
    std::vector<std::vector<double>> out(stage.size());
    std::vector<Slot> slots;
    std::vector<const Profile*> ps;
    std::vector<CapacityQuery> qs;
    std::map<std::pair<size_t, std::vector<double>>, size_t> pending;  // (profile, key) -> batch index
    for (size_t i = 0; i < stage.size(); ++i) {
      out[i].assign(stage[i]->size(), 0);
      for (size_t j = 0; j < stage[i]->size(); ++j) {
        const Profile& q = (*stage[i])[j];
        std::vector<double> key = sc_.reuse ? key_of(q, params_[i]) : std::vector<double>{};
        if (sc_.reuse) {
          if (auto it = known_[i].find(key); it != known_[i].end()) {
            out[i][j] = it->second, ++cost_.reused;
            continue;
          }
          if (auto it = pending.find({i, key}); it != pending.end()) {
            slots.push_back({i, j, it->second, key}), ++cost_.reused;
            continue;
          }
          pending[{i, key}] = ps.size();
        }
        CapacityQuery cq = queries_[i];
        if (sc_.no_probes) cq.probes.clear();
        cq.verdict_only = sc_.verdict_only;
        // Only where a non-monotone verdict can come from seeds near the level (covered by the band),
        // and only for whole numbers (sim/capacity_spread.h).
        if (near && sc_.near_start && stalls_[i] && cq.target == CapacityTarget::Channels) {
          cq.guess = guess(i, j);
          // Above the known answer first: its seeds' clean runs settle most of the answer's.
          if (sc_.same_seeds && cq.guess > 0) cq.same_seeds = true, cq.guess += 1;
          if (cq.same_seeds && sc_.failing_first) cq.likely_failing = failing_[i];
        }
        slots.push_back({i, j, ps.size(), std::move(key)});
        ps.push_back(&q);
        qs.push_back(std::move(cq));
      }
    }
    auto results = find_capacities(ps, qs, threads_);
    cost_.searches += ps.size();
    for (const auto& r : results)
      if (r) cost_.runs += r->runs, cost_.simulated_s += r->simulated_s;
    for (const Slot& s : slots)
      if (results[s.batch]) learn_failing(s.i, *results[s.batch]);
    for (const Slot& s : slots) {
      if (!results[s.batch]) return R::error(results[s.batch].message());
      double a = answer_of(*results[s.batch]);
      out[s.i][s.j] = a;
      if (sc_.reuse) known_[s.i][s.key] = a;
    }
    return R(std::move(out));
  }

  void remember(size_t i, const Profile& p, double answer) {
    if (sc_.reuse) known_[i][key_of(p, params_[i])] = answer;
  }

  // The seeds that overran at each candidate of a search of profile i
  // (failing first): the next searches of the profile run them first.
  void learn_failing(size_t i, const CapacityResult& r) {
    if (!sc_.failing_first) return;
    for (const auto& c : r.candidates) {
      if (c.failing_seeds.empty()) continue;
      std::vector<int>& seeds = failing_[i][c.value];
      seeds.insert(seeds.end(), c.failing_seeds.begin(), c.failing_seeds.end());
      std::sort(seeds.begin(), seeds.end());
      seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    }
  }

 private:
  const std::vector<CapacityQuery>& queries_;
  unsigned threads_;
  SpreadShortcuts sc_;
  SpreadCost& cost_;
  std::vector<std::vector<RangedParam>> params_;
  std::vector<bool> stalls_;  // the profile has random stalls
  std::vector<std::map<std::vector<double>, double>> known_;  // per profile: ranged values -> answer
  std::vector<std::map<double, std::vector<int>>> failing_;   // per profile: candidate -> seeds that overran
};

}  // namespace

Result<std::vector<Spread>> capacity_spreads(const std::vector<const Profile*>& profiles,
                                             const std::vector<CapacityQuery>& queries,
                                             const std::vector<Result<CapacityResult>>* nominal, unsigned threads,
                                             SpreadShortcuts sc, SpreadCost* cost_out) {
  using R = Result<std::vector<Spread>>;
  const size_t n = profiles.size();
  SpreadCost cost;
  Stages stages(profiles, queries, threads, sc, cost);
  std::vector<SpreadRun> runs;
  runs.reserve(n);
  for (const Profile* p : profiles) runs.emplace_back(*p);

  // The nominal answers: the caller's, else searched here (stage 1's first
  // profile is the profile itself).
  std::vector<double> nominal_answer(n, 0);
  bool have_nominal = nominal != nullptr && sc.reuse;
  if (have_nominal) {
    if (nominal->size() != n) return R::error("capacity_spreads: one nominal result per profile");
    for (size_t i = 0; i < n; ++i) {
      if (!(*nominal)[i]) return R::error((*nominal)[i].message());
      nominal_answer[i] = answer_of(*(*nominal)[i]);
      stages.remember(i, *profiles[i], nominal_answer[i]);
      stages.learn_failing(i, *(*nominal)[i]);
    }
  } else if (sc.near_start) {
    // Stage 1 starts from the nominal answers: search them first.
    std::vector<std::vector<Profile>> own(n);
    std::vector<const std::vector<Profile>*> stage0;
    for (size_t i = 0; i < n; ++i) own[i] = {*profiles[i]}, stage0.push_back(&own[i]);
    auto a0 = stages.eval(stage0, [](size_t, size_t) { return 0.0; }, false);
    if (!a0) return a0.status();
    for (size_t i = 0; i < n; ++i) nominal_answer[i] = (*a0)[i][0];
    have_nominal = true;
  }

  std::vector<const std::vector<Profile>*> stage1, stage2;
  for (const auto& r : runs) stage1.push_back(&r.stage1());
  auto a1 = stages.eval(stage1, [&](size_t i, size_t) { return nominal_answer[i]; }, have_nominal);
  if (!a1) return a1.status();
  std::vector<std::pair<double, double>> ends(n);
  for (size_t i = 0; i < n; ++i) runs[i].take_stage1((*a1)[i]), ends[i] = positive_range((*a1)[i]);

  for (const auto& r : runs) stage2.push_back(&r.stage2());
  // Stage 2 is the low corner, then the high one.
  auto a2 = stages.eval(stage2, [&](size_t i, size_t j) { return j == 0 ? ends[i].first : ends[i].second; }, true);
  if (!a2) return a2.status();
  std::vector<Spread> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(runs[i].finish((*a2)[i]));
  if (cost_out) *cost_out = cost;
  return R(std::move(out));
}

}  // namespace sd
