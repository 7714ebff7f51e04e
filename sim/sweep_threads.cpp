// The threads sweep (document 001): one file read by 1..N threads, each
// reading its own contiguous slice in blocks, swept over block size.
#include <algorithm>
#include <cerrno>
#include <thread>

#include <fmt/format.h>

#include "sim/sweep_common.h"
#include "sim/sweeps.h"

namespace sd {
using namespace sweep_detail;

namespace {

struct Slice {
  uint64_t pos = 0, end = 0;
};

std::vector<Slice> slices(uint64_t file_bytes, uint64_t block, int n) {
  uint64_t per = std::max(block, file_bytes / static_cast<uint64_t>(n) / block * block);
  std::vector<Slice> out;
  for (int i = 0; i < n; ++i) {
    uint64_t a = std::min(file_bytes, per * static_cast<uint64_t>(i));
    out.push_back({a, std::min(file_bytes, a + per)});
  }
  return out;
}

// Virtual time: the logical thread whose clock is earliest issues next, so
// the device sees requests in time order and the run is deterministic.
void run_virtual(const SweepEnv& env, const ThreadsSweep& s, ThreadsPoint& p) {
  int n = p.threads;
  std::vector<Issuer> io;
  for (int i = 0; i < n; ++i) io.emplace_back(env, *env.dev, i);
  std::vector<Slice> sl = slices(s.file_bytes, p.block, n);
  const double start = env.clock->now();
  std::vector<double> t(static_cast<size_t>(n), start);
  std::vector<bool> done(static_cast<size_t>(n), false);
  for (;;) {
    int i = -1;
    for (int k = 0; k < n; ++k)
      if (!done[k] && (i < 0 || t[k] < t[i])) i = k;
    if (i < 0 || cancelled(env)) break;
    Slice& x = sl[i];
    if (x.pos >= x.end || t[i] - start >= s.seconds) {
      done[i] = true;
      continue;
    }
    Completion c = io[i].issue_at({OpKind::Read, s.file, x.pos, std::min(p.block, x.end - x.pos), s.direct}, t[i], n);
    ++p.reads;
    t[i] = c.done;
    if (c.error || c.bytes == 0) {
      p.error = c.error ? c.error : p.error;
      done[i] = true;
      continue;
    }
    x.pos += c.bytes;
    p.bytes += static_cast<double>(c.bytes);
  }
  env.clock->sleep_until(*std::max_element(t.begin(), t.end()));
  p.seconds = env.clock->now() - start;
}

// Wall time: one OS thread per logical thread, each on its own device.
void run_real(const SweepEnv& env, const ThreadsSweep& s, ThreadsPoint& p) {
  int n = p.threads;
  std::vector<Slice> sl = slices(s.file_bytes, p.block, n);
  std::vector<std::vector<TraceRecord>> bufs(static_cast<size_t>(n));
  std::vector<double> bytes(static_cast<size_t>(n), 0);
  std::vector<uint64_t> reads(static_cast<size_t>(n), 0);
  std::vector<int> errors(static_cast<size_t>(n), 0);
  const double start = env.clock->now();
  std::vector<std::thread> th;
  for (int i = 0; i < n; ++i)
    th.emplace_back([&, i] {
      Issuer io(env, *env.thread_devices[i], i, &bufs[i]);
      Slice x = sl[i];
      while (x.pos < x.end && !cancelled(env) && env.clock->now() - start < s.seconds) {
        Completion c = io.issue({OpKind::Read, s.file, x.pos, std::min(p.block, x.end - x.pos), s.direct}, n);
        ++reads[i];
        if (c.error || c.bytes == 0) {
          errors[i] = c.error;
          break;
        }
        x.pos += c.bytes;
        bytes[i] += static_cast<double>(c.bytes);
      }
    });
  for (auto& t : th) t.join();
  p.seconds = env.clock->now() - start;
  for (int i = 0; i < n; ++i) {
    p.bytes += bytes[i];
    p.reads += reads[i];
    if (errors[i]) p.error = errors[i];
  }
  if (env.trace) {
    std::vector<TraceRecord> all;
    for (auto& b : bufs) all.insert(all.end(), b.begin(), b.end());
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    for (const auto& r : all) env.trace(r);
  }
}

}  // namespace

ThreadsResult run_threads_sweep(const SweepEnv& env, const ThreadsSweep& s) {
  ThreadsResult r;
  Issuer io(env, *env.dev);
  Progress prog(env);
  int max_threads = s.threads.empty() ? 1 : *std::max_element(s.threads.begin(), s.threads.end());
  bool real = !env.thread_devices.empty();
  if (real && static_cast<int>(env.thread_devices.size()) < max_threads) std::abort();  // caller's invariant
  // The file to read, written sequentially in 1 MiB blocks and synced.
  if (ThreadsPoint failed; !io.create(s.file, s.direct, failed.error)) {
    r.points.push_back(failed);
    return r;
  }
  const uint64_t mb = 1 << 20;
  double t0 = env.clock->now();
  uint64_t off = 0;
  while (off < s.file_bytes && !cancelled(env)) {
    Completion c = io.issue({OpKind::Write, s.file, off, std::min(mb, s.file_bytes - off), s.direct});
    if (c.error || c.bytes == 0) break;
    off += c.bytes;
    prog.report("write the file to read", 0, off / std::max(1e-9, env.clock->now() - t0));
  }
  io.issue({OpKind::Fsync, s.file, 0, 0, s.direct});
  r.setup_write_rate = off / std::max(1e-9, env.clock->now() - t0);
  ThreadsSweep eff = s;
  eff.file_bytes = off;  // what was actually written
  const double total = static_cast<double>(s.blocks.size() * s.threads.size());
  double done = 0;
  for (uint64_t b : s.blocks) {
    for (int n : s.threads) {
      if (cancelled(env) || off == 0) break;
      ThreadsPoint p;
      p.block = b;
      p.threads = n;
      p.cache = drop_cache(env, s.file);
      if (real)
        run_real(env, eff, p);
      else
        run_virtual(env, eff, p);
      p.rate = p.seconds > 0 ? p.bytes / p.seconds : 0;
      r.points.push_back(p);
      done += 1;
      prog.report(fmt::format("read {} x {} threads", size_label(b), n), done / total, p.rate, true);
    }
  }
  io.issue({OpKind::Close, s.file, 0, 0, s.direct});
  io.issue({OpKind::Remove, s.file, 0, 0, s.direct});
  r.cancelled = cancelled(env);
  return r;
}

}  // namespace sd
