#include "sim/sweep_common.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/units.h"

namespace sd {

std::string_view fsync_mode_name(FsyncMode m) {
  switch (m) {
    case FsyncMode::Never: return "never";
    case FsyncMode::End: return "end";
    case FsyncMode::Every: return "every";
  }
  return "?";
}

std::optional<FsyncMode> fsync_mode_from_name(std::string_view s) {
  if (s == "never") return FsyncMode::Never;
  if (s == "end") return FsyncMode::End;
  if (s == "every") return FsyncMode::Every;
  return std::nullopt;
}

std::vector<uint64_t> default_sweep_blocks() {
  std::vector<uint64_t> b;
  for (uint64_t x = 512; x <= (8u << 20); x *= 4) b.push_back(x);  // 512 B, 2 KiB ... 8 MiB
  return b;
}

namespace sweep_detail {

void Issuer::record(const Op& op, double start, const Completion& c, int queue_depth) {
  if (!env_.trace && !buffer_) return;
  TraceRecord r;
  r.start = start;
  r.end = c.done;
  r.op = op.kind;
  r.file = std::to_string(op.file);
  r.offset = (op.kind == OpKind::Write || op.kind == OpKind::Read) ? op.offset : 0;
  r.bytes = op.kind == OpKind::Truncate ? op.bytes : c.bytes;
  r.thread = thread_;
  r.queue_depth = queue_depth;
  r.error = c.error;
  r.direct = c.direct;
  if (buffer_)
    buffer_->push_back(std::move(r));
  else
    env_.trace(r);
}

bool Issuer::create(FileId f, bool direct, int& error) {
  Completion c = issue({OpKind::Create, f, 0, 0, direct});
  if (c.error) error = c.error;
  return !c.error;
}

Completion Issuer::issue(const Op& op, int queue_depth) {
  double start = env_.clock->now();
  Completion c = dev_.submit(op, start);
  env_.clock->sleep_until(c.done);  // virtual: jumps; real: already past, returns at once
  record(op, start, c, queue_depth);
  return c;
}

Completion Issuer::issue_at(const Op& op, double now, int queue_depth) {
  Completion c = dev_.submit(op, now);
  record(op, now, c, queue_depth);
  return c;
}

void Progress::report(const std::string& phase, double fraction, double rate, bool force) {
  if (!env_.progress) return;
  double t = env_.clock->now();
  if (!force && last_ >= 0 && t - last_ < 0.1) return;
  last_ = t;
  env_.progress({phase, std::min(1.0, std::max(0.0, fraction)), rate, t - t0_});
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

bool cancelled(const SweepEnv& env) { return env.cancel && env.cancel->load(std::memory_order_relaxed); }

std::string drop_cache(const SweepEnv& env, FileId f) {
  return env.drop_cache ? env.drop_cache(f) : std::string("not needed: model");
}

std::string size_label(uint64_t bytes) { return format_size(static_cast<double>(bytes)); }

}  // namespace sweep_detail

// ---- result tables ----

SweepTable blocksize_table(const BlockSizeResult& r) {
  SweepTable t;
  t.columns = {"block_bytes", "write_mbps", "write_bytes", "write_seconds", "write_latency_max_s",
               "read_mbps", "read_bytes", "read_seconds"};
  for (const auto& p : r.points)
    t.rows.push_back({static_cast<double>(p.block), p.write_rate / 1e6, p.write_bytes, p.write_seconds,
                      p.write_latency_max, p.read_rate / 1e6, p.read_bytes, p.read_seconds});
  return t;
}

SweepTable threads_table(const ThreadsResult& r) {
  SweepTable t;
  t.columns = {"block_bytes", "threads", "read_mbps", "read_bytes", "seconds"};
  for (const auto& p : r.points)
    t.rows.push_back({static_cast<double>(p.block), static_cast<double>(p.threads), p.rate / 1e6, p.bytes,
                      p.seconds});
  return t;
}

SweepTable sustained_table(const SustainedResult& r) {
  SweepTable t;
  t.columns = {"start_s", "end_s", "bytes", "write_mbps"};
  for (const auto& w : r.windows) t.rows.push_back({w.start, w.end, w.bytes, w.rate / 1e6});
  return t;
}

SweepTable fill_table(const FillResult& r) {
  SweepTable t;
  t.columns = {"fill_before", "fill_after", "bytes", "seconds", "write_mbps"};
  for (const auto& p : r.points) t.rows.push_back({p.fill_before, p.fill_after, p.bytes, p.seconds, p.rate / 1e6});
  return t;
}

}  // namespace sd
