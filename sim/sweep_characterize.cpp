// The characterization workloads: paced writes, interleaved files, and a
// sustained write with idle gaps. See sweeps.h.
#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "models/units.h"
#include "sim/sweep_common.h"
#include "sim/sweeps.h"

namespace sd {
using namespace sweep_detail;

// ---- paced ----

PacedResult run_paced_write(const SweepEnv& env, const PacedSweep& s) {
  PacedResult r;
  r.rate = s.rate;
  Issuer io(env, *env.dev);
  Progress prog(env);
  if (!io.create(s.file, s.direct, r.error)) return r;
  const double period = static_cast<double>(s.block) / s.rate;
  const std::string label = "paced write " + format_rate(s.rate);
  double t0 = env.clock->now(), last = t0;
  uint64_t off = 0;
  for (uint64_t k = 0; !cancelled(env); ++k) {
    double slot = t0 + static_cast<double>(k) * period;
    if (slot - t0 >= s.seconds) break;
    if (s.max_bytes > 0 && off + s.block > s.max_bytes) break;
    double now = env.clock->now();
    if (now > slot + 1e-6) {
      ++r.late;
      r.max_lag = std::max(r.max_lag, now - slot);
    } else {
      env.clock->sleep_until(slot);
    }
    double start = env.clock->now();
    Completion c = io.issue({OpKind::Write, s.file, off, s.block, s.direct});
    if (c.error || c.bytes == 0) {
      r.error = c.error ? c.error : EIO;
      break;
    }
    off += c.bytes;
    r.latencies.push_back(c.done - start);
    last = c.done;
    prog.report(label, (c.done - t0) / s.seconds, (c.done - t0) > 0 ? static_cast<double>(off) / (c.done - t0) : 0);
  }
  r.bytes = static_cast<double>(off);
  r.seconds = last - t0;
  r.achieved = r.seconds > 0 ? r.bytes / r.seconds : 0;
  if (off > 0) io.issue({OpKind::Fsync, s.file, 0, 0, s.direct});
  io.issue({OpKind::Close, s.file, 0, 0, s.direct});
  io.issue({OpKind::Remove, s.file, 0, 0, s.direct});
  r.cancelled = cancelled(env);
  return r;
}

// ---- interleaved ----

InterleavedResult run_interleaved_write(const SweepEnv& env, const InterleavedSweep& s,
                                        const std::function<void()>& between_phases) {
  InterleavedResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  const int n = std::max(2, s.files);
  std::vector<FileId> made;
  auto phase = [&](const std::vector<FileId>& files, const char* label, double frac0) {
    std::vector<double> times;
    std::vector<uint64_t> off(files.size(), 0);
    double t0 = env.clock->now(), bytes = 0;
    for (size_t k = 0; !cancelled(env); ++k) {
      double now = env.clock->now();
      if (now - t0 >= s.seconds) break;
      if (s.max_bytes > 0 && bytes + static_cast<double>(s.block) > static_cast<double>(s.max_bytes)) break;
      size_t i = k % files.size();
      Completion c = io.issue({OpKind::Write, files[i], off[i], s.block, s.direct});
      if (c.error || c.bytes == 0) {
        r.error = c.error ? c.error : EIO;
        break;
      }
      off[i] += c.bytes;
      bytes += static_cast<double>(c.bytes);
      times.push_back(c.done - now);
      prog.report(label, frac0 + 0.5 * (c.done - t0) / s.seconds, bytes / std::max(1e-9, c.done - t0));
    }
    for (FileId f : files) io.issue({OpKind::Fsync, f, 0, 0, s.direct});
    return times;
  };
  auto create = [&](FileId f) {
    if (!io.create(f, s.direct, r.error)) return false;
    made.push_back(f);
    return true;
  };
  if (create(s.first_file)) {
    auto seq = phase({s.first_file}, "one file (reference)", 0);
    r.sequential_writes = seq.size();
    r.sequential_op_s = median(seq);
  }
  if (between_phases && !r.error && !cancelled(env)) between_phases();
  std::vector<FileId> many;
  for (int i = 0; i < n && !r.error; ++i)
    if (create(s.first_file + 1 + static_cast<FileId>(i))) many.push_back(s.first_file + 1 + static_cast<FileId>(i));
  if (!r.error && !cancelled(env)) {
    auto inter = phase(many, "interleaved files", 0.5);
    r.interleaved_writes = inter.size();
    r.interleaved_op_s = median(inter);
  }
  for (FileId f : made) {
    io.issue({OpKind::Close, f, 0, 0, s.direct});
    io.issue({OpKind::Remove, f, 0, 0, s.direct});
  }
  r.cancelled = cancelled(env);
  return r;
}

// ---- sustained write with idle gaps ----

CacheResult run_cache_sweep(const SweepEnv& env, const CacheSweep& s) {
  CacheResult r;
  SustainedSweep first{s.block, s.max_bytes, s.max_seconds, s.window, s.until_steady, s.direct,
                       FsyncMode::End, s.first_file};
  r.first = run_sustained_sweep(env, first);
  r.bytes = r.first.bytes;
  r.error = r.first.error;
  if (r.error || cancelled(env) || !r.first.cliff_seconds) {
    r.cancelled = cancelled(env);
    return r;  // no cliff: nothing to recover
  }
  Issuer io(env, *env.dev);
  Progress prog(env);
  const double limit = 0.7 * r.first.initial_rate, b = static_cast<double>(s.block);
  FileId f = s.first_file + 1;
  for (double gap : s.gaps) {
    if (cancelled(env)) break;
    // Idle: the cache recovers (progress shows the wait).
    double g0 = env.clock->now();
    while (!cancelled(env) && env.clock->now() < g0 + gap) {
      env.clock->sleep_until(std::min(g0 + gap, env.clock->now() + 0.2));
      prog.report(fmt::format("idle {:.0f} s (cache recovers)", gap), 0, 0);
    }
    if (!io.create(f, s.direct, r.error)) break;
    double t0 = env.clock->now(), fast = 0;
    uint64_t off = 0;
    int slow_run = 0, ops_back = 0;
    bool back = false;
    double back_at = 0;
    while (!cancelled(env) && env.clock->now() - t0 < s.refill_seconds && r.bytes + b <= static_cast<double>(s.max_bytes)) {
      double now = env.clock->now();
      Completion c = io.issue({OpKind::Write, f, off, s.block, s.direct});
      if (c.error || c.bytes == 0) {
        r.error = c.error ? c.error : EIO;
        break;
      }
      off += c.bytes;
      r.bytes += static_cast<double>(c.bytes);
      double lat = c.done - now;
      bool slow = lat > 0 && static_cast<double>(c.bytes) / lat < limit;
      slow_run = slow ? slow_run + 1 : 0;
      if (!back) fast += static_cast<double>(c.bytes);
      if (slow_run >= 16 && !back) {
        fast -= 16 * b;
        back = true;
        back_at = env.clock->now();
        ops_back = 16;
      } else if (back) {
        ++ops_back;
      }
      // Well past the cliff again (a second and 48 writes): the sustained
      // rate around each refill is then what a rolling baseline sees.
      if (back && ops_back >= 48 && env.clock->now() - back_at >= 1.0) break;
      prog.report(fmt::format("write after {:.0f} s idle", gap), (c.done - t0) / s.refill_seconds,
                  static_cast<double>(off) / std::max(1e-9, c.done - t0));
    }
    io.issue({OpKind::Fsync, f, 0, 0, s.direct});
    io.issue({OpKind::Close, f, 0, 0, s.direct});
    io.issue({OpKind::Remove, f, 0, 0, s.direct});
    ++f;
    r.refill_fast_bytes.push_back(std::max(0.0, fast));
    r.gaps_done.push_back(gap);
    if (r.error) break;
  }
  r.cancelled = cancelled(env);
  return r;
}

}  // namespace sd
