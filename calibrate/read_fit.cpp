#include "calibrate/read_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "calibrate/fit.h"
#include "models/model_device.h"
#include "models/units.h"

namespace sd::cal {
namespace {

Profile read_profile(const ReadParams& p) {
  LayerProfile lp;
  lp.name = "read-fit";
  lp.params = LayerParams(Layer::Device);
  lp.params.set("sustained_mbps", 1, Origin::Profile);  // required; reads do not use it here
  lp.params.set("read_mbps", p.mbps, Origin::Profile);
  lp.params.set("read_latency_us", p.latency_us, Origin::Profile);
  lp.params.set("read_max_mbps", p.max_mbps, Origin::Profile);
  lp.params.set("read_queue_depth", p.queue_depth, Origin::Profile);
  Profile prof;
  prof.set_layer(std::move(lp));
  (void)prof.finish();
  return prof;
}

using Theta = std::array<double, 3>;  // ln latency_us, ln mbps, ln max_mbps

ReadParams from_theta(const Theta& t, int q) {
  auto clampexp = [](double v) { return std::exp(std::clamp(v, -7.0, 13.0)); };
  return {clampexp(t[0]), clampexp(t[1]), clampexp(t[2]), q};
}

struct Solution {
  Theta theta{};
  int q = 1;
  double sse = std::numeric_limits<double>::infinity();
};

double sse_of(const Theta& t, int q, const std::vector<CellFit>& cells) {
  ReadParams p = from_theta(t, q);
  double s = 0;
  for (const auto& c : cells)
    if (c.used) s += std::pow(std::log(predict_read_mbps(p, c.block, c.threads) / c.measured), 2);
  return s;
}

// Nelder-Mead from each start (it stalls in local minima of this surface),
// restarted once from the best; returns the best.
Solution solve(const std::vector<CellFit>& cells, const std::vector<Theta>& starts, int q) {
  auto f = [&](const Theta& t) { return sse_of(t, q, cells); };
  Solution best;
  for (const Theta& s : starts) {
    Theta t = nelder_mead<3>(f, s, 0.3, 150);
    double v = f(t);
    if (v < best.sse) best = {t, q, v};
  }
  best.theta = nelder_mead<3>(f, best.theta, 0.05, 150);
  best.sse = f(best.theta);
  return best;
}

// For one queue depth: fit, leave out cells far off the surface (noise such
// as 2 KB x 2 threads), fit again until the set of cells stays the same.
// Scored on all cells with a truncated square (a cell more than 10 % off
// counts as 10 % off), so depths are compared on the same cells whatever
// each one left out, and a few wild cells cannot decide the depth.
struct DepthFit {
  Solution sol;
  std::vector<CellFit> cells;
  double score = std::numeric_limits<double>::infinity();
};
DepthFit robust_fit(std::vector<CellFit> cells, const std::vector<Theta>& starts, int q) {
  DepthFit d;
  for (auto& c : cells) c.used = true;
  for (int round = 0; round < 4; ++round) {
    d.sol = round == 0 ? solve(cells, starts, q) : solve(cells, {d.sol.theta}, q);
    ReadParams p = from_theta(d.sol.theta, q);
    std::vector<double> res;
    for (auto& c : cells) {
      c.predicted = predict_read_mbps(p, c.block, c.threads);
      c.rel_err = c.predicted / c.measured - 1;
      if (c.used) res.push_back(std::log(c.predicted / c.measured));
    }
    double limit = std::max(0.10, 3 * 1.4826 * mad(res, median(res)));
    bool changed = false;
    for (auto& c : cells) {
      bool use = std::fabs(std::log(c.predicted / c.measured)) <= limit;
      changed |= use != c.used;
      c.used = use;
    }
    if (!changed) break;
  }
  d.score = 0;
  for (const auto& c : cells) d.score += std::min(std::pow(std::log(c.predicted / c.measured), 2), 0.01);
  d.cells = std::move(cells);
  return d;
}

}  // namespace

double predict_read_mbps(const ReadParams& p, double block, int threads) {
  return predict_read_mbps(read_profile(p), block, threads);
}

double predict_read_mbps(const Profile& prof, double block, int threads) {
  ModelOptions opt;
  opt.stalls = false;
  ModelDevice dev(prof, opt);
  dev.submit({OpKind::Create, 1, 0, 0}, 0);
  // One file big enough for every stream's region (within the capacity, if any).
  double cap = prof.params(Layer::Device).get("capacity_bytes");
  auto size = static_cast<uint64_t>(cap > 0 ? cap * 0.9 : static_cast<double>(uint64_t{1} << 50));
  dev.submit({OpKind::Truncate, 1, 0, size}, 0);
  const int per_thread = 30, warm = 6;
  auto b = static_cast<uint64_t>(block);
  uint64_t region = size / static_cast<uint64_t>(threads);
  std::vector<double> next(static_cast<size_t>(threads), 0.0), done;
  std::vector<uint64_t> offset(static_cast<size_t>(threads), 0);
  for (int i = 0; i < per_thread * threads; ++i) {
    size_t t = static_cast<size_t>(std::min_element(next.begin(), next.end()) - next.begin());
    if (offset[t] + b > region) offset[t] = 0;
    Completion c = dev.submit({OpKind::Read, 1, region * t + offset[t], b}, next[t]);
    offset[t] += b;
    next[t] = c.done;
    done.push_back(c.done);
  }
  std::sort(done.begin(), done.end());
  size_t k0 = static_cast<size_t>(warm * threads);
  double span = done.back() - done[k0 - 1];
  return span > 0 ? static_cast<double>(done.size() - k0) * block / span / 1e6 : 0;
}

double read_fit_steps(const std::vector<RatePoint>& rates) {
  double per_eval = 0;
  int max_threads = 1;
  for (const auto& r : rates)
    if (r.read) {
      per_eval += 30.0 * r.threads;
      max_threads = std::max(max_threads, r.threads);
    }
  return per_eval * 2000.0 * max_threads;
}

Status check_read_fit_cost(const std::vector<RatePoint>& rates) {
  // Reads simulated per second by predict_read_mbps: ~6e7 measured (document
  // 001's 32-cell table, 1.9e7 estimated reads in 0.32 s of CPU); half that
  // here for a loaded machine. Ten minutes at most.
  constexpr double kReadsPerSecond = 3e7, kMaxSeconds = 600;
  double steps = read_fit_steps(rates);
  if (steps <= kReadsPerSecond * kMaxSeconds) return {};
  size_t cells = 0;
  int max_threads = 1;
  for (const auto& r : rates)
    if (r.read) ++cells, max_threads = std::max(max_threads, r.threads);
  return Status::error(fmt::format(
      "the read fit over {} read cells with up to {} threads would take about {} (the limit is {}): give fewer cells "
      "(one row per block size x thread count, e.g. 4-8 block sizes x 1-8 threads) and thread counts up to 64",
      cells, max_threads, format_duration(steps / kReadsPerSecond), format_duration(kMaxSeconds)));
}

ReadFit fit_read_table(const std::vector<RatePoint>& rates) {
  ReadFit out;
  int max_threads = 1;
  for (const auto& r : rates)
    if (r.read) {
      out.cells.push_back({r.block_bytes, r.threads, r.mbps, 0, 0, true, r.source});
      max_threads = std::max(max_threads, r.threads);
    }
  if (out.cells.size() < 4) {
    out.why = "a read table needs 4+ cells (block size x threads)";
    return out;
  }
  // Start: the largest single-stream figure, the overall ceiling, and the
  // latency that explains the smallest single-stream block.
  double r1 = 0, top = 0, small_b = 1e30, small_x = 0;
  for (const auto& c : out.cells) {
    top = std::max(top, c.measured);
    if (c.threads == 1) {
      r1 = std::max(r1, c.measured);
      if (c.block < small_b) small_b = c.block, small_x = c.measured;
    }
  }
  if (r1 == 0) r1 = top / max_threads;
  double lat0 = small_x > 0 ? std::max(0.1, (small_b / small_x - small_b / r1) * 1.0) : 10;
  Theta start = {std::log(lat0), std::log(r1), std::log(top * 1.01)};
  DepthFit best;
  Theta from = start;
  for (int q = 1; q <= max_threads; ++q) {
    DepthFit d = robust_fit(out.cells, q == 1 ? std::vector<Theta>{start} : std::vector<Theta>{start, from}, q);
    from = d.sol.theta;
    if (d.score < best.score * (1 - 1e-6)) best = std::move(d);
  }
  Solution sol = best.sol;
  out.cells = std::move(best.cells);
  out.p = from_theta(sol.theta, sol.q);
  // Bands from the Jacobian of log MB/s with respect to the log parameters.
  std::vector<const CellFit*> used;
  for (const auto& c : out.cells)
    if (c.used) used.push_back(&c);
  out.points = used.size();
  if (used.size() < 4) {
    out.why = "too few read cells agree with any one read model";
    return out;
  }
  Eigen::MatrixXd J(used.size(), 3);
  Eigen::VectorXd r(used.size()), y(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    double base = std::log(predict_read_mbps(out.p, used[i]->block, used[i]->threads));
    r(i) = std::log(used[i]->measured) - base;
    y(i) = std::log(used[i]->measured);
    for (int k = 0; k < 3; ++k) {
      Theta t = sol.theta;
      t[k] += 1e-3;
      J(i, k) = (std::log(predict_read_mbps(from_theta(t, sol.q), used[i]->block, used[i]->threads)) - base) / 1e-3;
    }
  }
  // A ceiling nobody reaches is not measured: the streams alone explain the data.
  out.ceiling = J.col(2).cwiseAbs().maxCoeff() > 0.05;
  int k = out.ceiling ? 3 : 2;
  double dof = std::max(1.0, static_cast<double>(used.size()) - k);
  double s2 = r.squaredNorm() / dof;
  Eigen::MatrixXd Jk = J.leftCols(k);
  Eigen::MatrixXd JtJ = Jk.transpose() * Jk;
  Eigen::Vector3d var = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  if (std::fabs(JtJ.determinant()) > 1e-12) var.head(k) = (s2 * JtJ.inverse()).diagonal();
  double t = t95(static_cast<size_t>(dof));
  auto band = [&](double v, int k) { return v * (std::exp(t * std::sqrt(std::max(0.0, var(k)))) - 1); };
  out.latency_band = band(out.p.latency_us, 0);
  out.mbps_band = band(out.p.mbps, 1);
  out.max_band = band(out.p.max_mbps, 2);
  double sst = (y.array() - y.mean()).square().sum();
  // All cells alike (one stream, no latency visible): R² says nothing; report 1 if the fit is exact.
  out.r2 = sst > 1e-9 * static_cast<double>(used.size()) ? 1 - r.squaredNorm() / sst : (r.squaredNorm() < 1e-6 ? 1 : 0);
  out.ok = true;
  return out;
}

}  // namespace sd::cal
