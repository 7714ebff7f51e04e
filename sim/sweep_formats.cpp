// The formats sweep (document 000): for each file format and channel count,
// the same block of frames appended back to back for T seconds through the
// format's layout, so every header, segment and per-channel write the format
// needs is issued, as a recorder writing flat out would.
#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "sim/sweep_common.h"
#include "sim/sweeps.h"

namespace sd {
using namespace sweep_detail;

namespace {

// Issues a layout's writes on the point's files; false on an error.
bool issue_writes(Issuer& io, const FormatsSweep& s, const std::vector<FormatWrite>& ws, FormatsPoint& p) {
  for (const FormatWrite& w : ws) {
    Op op{OpKind::Write, s.first_file + w.file, w.offset, w.bytes, s.direct};
    if (w.what != FormatWrite::What::Payload) op.data = w.data.data();
    Completion c = io.issue(op);
    ++p.ops;
    (w.what == FormatWrite::What::Payload ? p.payload_bytes : p.other_bytes) += static_cast<double>(c.bytes);
    if (c.error || c.bytes < w.bytes) {
      p.error = c.error ? c.error : EIO;
      return false;
    }
  }
  return true;
}

void run_point(const SweepEnv& env, const FormatsSweep& s, Layout& layout, Issuer& io, Progress& prog,
               double base, double total, FormatsPoint& p) {
  const auto& names = layout.file_names();
  for (uint32_t f = 0; f < names.size(); ++f) io.create(s.first_file + f, s.direct, p.error);
  std::vector<FormatWrite> ws;
  if (!p.error) layout.begin(ws);
  const uint64_t frames = std::max<uint64_t>(1, s.block_bytes / layout.payload_frame_bytes());
  double t0 = env.clock->now();
  bool ok = !p.error && issue_writes(io, s, ws, p);
  std::string label = fmt::format("{} x {} ch", format_name(p.format), p.channels);
  while (ok && !cancelled(env) && env.clock->now() - t0 < s.seconds &&
         (s.max_bytes == 0 || p.payload_bytes + s.block_bytes <= static_cast<double>(s.max_bytes) || p.blocks == 0)) {
    uint64_t n = std::min(frames, layout.frames_left());
    if (n == 0) break;  // the format's size limit
    ws.clear();
    layout.append(n, ws);
    ok = issue_writes(io, s, ws, p);
    ++p.blocks;
    double el = env.clock->now() - t0;
    prog.report(label, (base + std::min(1.0, el / s.seconds)) / total, el > 0 ? p.payload_bytes / el : 0);
  }
  ws.clear();
  layout.finish(ws);
  if (ok) issue_writes(io, s, ws, p);
  for (uint32_t f = 0; f < names.size(); ++f)
    if (s.fsync != FsyncMode::Never) io.issue({OpKind::Fsync, s.first_file + f, 0, 0, s.direct});
  p.seconds = env.clock->now() - t0;
  p.rate = p.seconds > 0 ? p.payload_bytes / p.seconds : 0;
  for (uint32_t f = 0; f < names.size(); ++f) {
    io.issue({OpKind::Close, s.first_file + f, 0, 0, s.direct});
    io.issue({OpKind::Remove, s.first_file + f, 0, 0, s.direct});
  }
}

}  // namespace

Result<FormatsResult> run_formats_sweep(const SweepEnv& env, const FormatsSweep& s) {
  // Build every layout first: a format that cannot hold the stream fails before any write.
  std::vector<std::unique_ptr<Layout>> layouts;
  for (FormatKind k : s.formats)
    for (uint32_t ch : s.channels) {
      LayoutOptions lo;
      lo.kind = k;
      lo.stream = {ch, s.sample_rate, s.sample_bits, false};
      lo.base_name = "sweep";
      auto l = make_layout(lo);
      if (!l) return l.status();
      layouts.push_back(std::move(*l));
    }
  FormatsResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  size_t i = 0;
  for (FormatKind k : s.formats)
    for (uint32_t ch : s.channels) {
      if (cancelled(env)) break;
      FormatsPoint p;
      p.format = k;
      p.channels = ch;
      run_point(env, s, *layouts[i], io, prog, static_cast<double>(i), static_cast<double>(layouts.size()), p);
      r.points.push_back(p);
      ++i;
    }
  r.cancelled = cancelled(env);
  return r;
}

SweepTable formats_table(const FormatsResult& r) {
  SweepTable t;
  t.columns = {"format", "channels", "write_mbps", "payload_bytes", "other_bytes", "ops_per_block", "seconds"};
  for (const auto& p : r.points)
    t.rows.push_back({static_cast<double>(p.format), static_cast<double>(p.channels), p.rate / 1e6, p.payload_bytes,
                      p.other_bytes, p.blocks ? static_cast<double>(p.ops) / static_cast<double>(p.blocks) : 0,
                      p.seconds});
  return t;
}

}  // namespace sd
