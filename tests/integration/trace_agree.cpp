// trace_agree TRACE: replays a `streamdisk mount --trace` trace through a
// fresh ModelDevice in virtual time (the same profile, overrides, capacity,
// prefill and seed, read from the trace header) and compares, per operation:
//   - the virtual completion with the trace's modelled_end_s: the mount used
//     the same model and fed it the same operations in the same order;
//   - the virtual completion with the trace's end_s (when the reply really
//     went out), relative to the issue time, for writes and reads.
// Prints the error percentiles; exits 1 if the models disagree by more than
// 1 us or the reply error exceeds --p50-ms, --p90-ms or --p99-ms (default 1
// each) at that percentile.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/model_device.h"
#include "models/percentile.h"
#include "models/profile.h"
#include "models/trace.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_agree TRACE [--p50-ms X] [--p90-ms Y] [--p99-ms Z]\n");
    return 2;
  }
  double p50_limit = 1e-3, p90_limit = 1e-3, p99_limit = 1e-3;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--p50-ms") p50_limit = std::atof(argv[i + 1]) * 1e-3;
    if (k == "--p90-ms") p90_limit = std::atof(argv[i + 1]) * 1e-3;
    if (k == "--p99-ms") p99_limit = std::atof(argv[i + 1]) * 1e-3;
  }
  auto tr = sd::read_trace_file(argv[1]);
  if (!tr) {
    std::fprintf(stderr, "%s\n", tr.message().c_str());
    return 2;
  }
  std::vector<std::string> sets;
  for (int i = 1; tr->meta.count("set" + std::to_string(i)); ++i) sets.push_back(tr->meta.at("set" + std::to_string(i)));
  auto prof = sd::load_profile(tr->meta.at("profile"), sets);
  if (!prof) {
    std::fprintf(stderr, "%s\n", prof.message().c_str());
    return 2;
  }
  sd::ModelOptions mo;
  mo.seed = std::stoull(tr->meta.at("seed"));
  if (tr->meta.count("capacity_bytes")) mo.capacity_bytes = std::stod(tr->meta.at("capacity_bytes"));
  if (tr->meta.count("prefill_bytes")) mo.prefill_bytes = std::stod(tr->meta.at("prefill_bytes"));
  sd::ModelDevice model(*prof, mo);

  auto rows = tr->records;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].start < rows[i - 1].start) {
      std::fprintf(stderr, "FAIL: trace row %zu is not in issue order (docs/formats.md)\n", i + 1);
      return 1;
    }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  double model_err = 0;
  std::vector<double> reply_err;
  for (const auto& r : rows) {
    sd::Op op{r.op, std::stoull(r.file), r.offset, r.bytes, false};
    sd::Completion c = model.submit(op, r.start);
    if (r.modelled_end) model_err = std::max(model_err, std::fabs(c.done - *r.modelled_end));
    if (r.op == sd::OpKind::Write || r.op == sd::OpKind::Read) reply_err.push_back((r.end - r.start) - (c.done - r.start));
  }
  if (reply_err.empty()) {
    std::fprintf(stderr, "no writes or reads in the trace\n");
    return 1;
  }
  std::vector<double> abs_err;
  for (double e : reply_err) abs_err.push_back(std::fabs(e));
  std::sort(abs_err.begin(), abs_err.end());
  auto q = [&](double p) { return sd::percentile_in_place(abs_err, p); };
  std::printf("ops %zu, data ops %zu: |model - replayed model| max %.3g s; |reply - model| p50 %.3f ms, p90 %.3f ms, "
              "p99 %.3f ms, max %.3f ms\n",
              rows.size(), reply_err.size(), model_err, q(0.5) * 1e3, q(0.9) * 1e3, q(0.99) * 1e3,
              abs_err.back() * 1e3);
  int rc = 0;
  if (model_err > 1e-6) std::fprintf(stderr, "FAIL: the mount's model and the replayed model disagree\n"), rc = 1;
  if (q(0.5) > p50_limit) std::fprintf(stderr, "FAIL: p50 reply error above %.3f ms\n", p50_limit * 1e3), rc = 1;
  if (q(0.9) > p90_limit) std::fprintf(stderr, "FAIL: p90 reply error above %.3f ms\n", p90_limit * 1e3), rc = 1;
  if (q(0.99) > p99_limit) std::fprintf(stderr, "FAIL: p99 reply error above %.3f ms\n", p99_limit * 1e3), rc = 1;
  return rc;
}
