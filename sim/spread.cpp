#include "sim/spread.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace sd {

std::string RangedParam::name() const { return fmt::format("{}.{}", layer_name(layer), key); }

std::vector<RangedParam> ranged_params(const Profile& p) {
  std::vector<RangedParam> out;
  for (Layer l : kLayers) {
    if (!p.has(l)) continue;
    for (const ParamSpec* s : params_of(l)) {
      if (s->key.starts_with("read_")) continue;  // a recording only writes
      const ParamValue& v = p.params(l).entry(s->key);
      if (!v.range || v.range->first == v.range->second) continue;
      out.push_back({l, std::string(s->key), v.value, v.range->first, v.range->second});
    }
  }
  return out;
}

Profile with_value(const Profile& p, const RangedParam& r, double v) {
  Profile q = p;
  ParamValue& e = q.mutable_params(r.layer).entry(r.key);
  e.value = v;  // inside the range, which set_range checked against the table
  return q;
}

double ParamEffect::swing(double nominal) const {
  return std::max(std::fabs(at_lo - nominal), std::fabs(at_hi - nominal));
}

const ParamEffect* Spread::decisive() const {
  if (effects.empty() || effects.front().swing(nominal) == 0) return nullptr;
  return &effects.front();
}

SpreadRun::SpreadRun(const Profile& p) {
  std::vector<RangedParam> params = ranged_params(p);
  stage1_.reserve(1 + 2 * params.size());
  stage1_.push_back(p);
  for (const auto& r : params) {
    stage1_.push_back(with_value(p, r, r.lo));
    stage1_.push_back(with_value(p, r, r.hi));
    s_.effects.push_back({r, 0, 0});
  }
}

void SpreadRun::take_stage1(const std::vector<double>& a) {
  if (a.size() != stage1_.size()) std::abort();  // internal invariant: one answer per profile
  answers1_ = a;
  s_.nominal = a[0];
  for (size_t i = 0; i < s_.effects.size(); ++i) s_.effects[i].at_lo = a[1 + 2 * i], s_.effects[i].at_hi = a[2 + 2 * i];
  s_.evaluations = static_cast<int>(a.size());
  // The corners, over the parameters that moved the answer.
  Profile low = stage1_[0], high = stage1_[0];
  bool any = false;
  for (const auto& e : s_.effects) {
    if (e.at_lo == e.at_hi) continue;
    any = true;
    bool lo_lowers = e.at_lo < e.at_hi;
    low = with_value(low, e.param, lo_lowers ? e.param.lo : e.param.hi);
    high = with_value(high, e.param, lo_lowers ? e.param.hi : e.param.lo);
  }
  if (any) stage2_ = {std::move(low), std::move(high)};
}

Spread SpreadRun::finish(const std::vector<double>& a) {
  if (a.size() != stage2_.size()) std::abort();
  s_.low = s_.high = s_.nominal;
  for (double v : answers1_) s_.low = std::min(s_.low, v), s_.high = std::max(s_.high, v);
  s_.corner_low = s_.corner_high = s_.nominal;
  if (a.size() == 2) s_.corner_low = a[0], s_.corner_high = a[1];
  for (double v : a) s_.low = std::min(s_.low, v), s_.high = std::max(s_.high, v);
  s_.evaluations += static_cast<int>(a.size());
  double nominal = s_.nominal;
  std::stable_sort(s_.effects.begin(), s_.effects.end(), [nominal](const ParamEffect& x, const ParamEffect& y) {
    return x.swing(nominal) > y.swing(nominal);
  });
  return s_;
}

Result<Spread> propagate(const Profile& p, const BatchAnswer& answer) {
  SpreadRun run(p);
  auto eval = [&](const std::vector<Profile>& batch) {
    std::vector<const Profile*> ptrs;
    for (const auto& q : batch) ptrs.push_back(&q);
    return answer(ptrs);
  };
  auto a1 = eval(run.stage1());
  if (!a1) return a1.status();
  run.take_stage1(*a1);
  std::vector<double> a2;
  if (!run.stage2().empty()) {
    auto r = eval(run.stage2());
    if (!r) return r.status();
    a2 = *r;
  }
  return run.finish(a2);
}

std::string spread_method(const Spread& s) {
  return fmt::format("corner bounds: each of the {} estimated parameters with a range at either end of it, then all "
                     "at their low-answer and at their high-answer ends ({} runs, the same seeds)",
                     s.effects.size(), s.evaluations);
}

std::string measuring_step(const RangedParam& r) {
  const std::string& k = r.key;
  if (k.starts_with("stall"))
    return "streamdisk characterize: phases paced-0.3/0.5/0.7 (the pauses a paced writer meets; or streamdisk "
           "calibrate on a streamdisk record trace)";
  if (k == "burst_bytes" || k == "burst_mbps" || k == "sustained_mbps" || k == "recover_mbps" ||
      k == "recover_idle_ms")
    return "streamdisk characterize: phase cache (the write-cache cliff and its recovery)";
  if (k == "op_overhead_us") return "streamdisk characterize: phase blocksize (4 KiB ... 4 MiB O_DIRECT writes)";
  if (k == "seek_penalty_us" || k == "meta_every_bytes" || k == "meta_write_bytes")
    return "streamdisk characterize: phase interleaved (one file against four, round-robin)";
  if (k == "dirty_limit_bytes" || k == "memory_mbps" || k == "writeback_chunk_bytes")
    return "streamdisk characterize: phase buffered (flat-out buffered writes, then fsync)";
  if (k == "fill_knee" || k == "fill_floor") return "streamdisk characterize --fill: phase fill";
  if (k == "create_us" || k == "max_file_bytes" || k == "cluster_bytes")
    return "streamdisk measure on the mounted filesystem (a create and a split sweep)";
  return "streamdisk measure sweeps on the target, then streamdisk calibrate";
}

}  // namespace sd
