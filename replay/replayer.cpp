#include "replay/replayer.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "models/model_device.h"
#include "models/percentile.h"
#include "models/trace.h"

namespace sd {
namespace {

struct ThreadQueue {
  std::vector<size_t> ops;  // indices into the list, in order
  size_t next = 0;
  double free_at = 0;       // when its previous op completed
};

double issue_time(double sched, double free_at, double resolution) {
  // A recorded gap below the trace's resolution is the recorder issuing
  // back to back; snapping keeps a simulated trace's replay bit-exact.
  return sched < free_at + resolution ? free_at : sched;
}

struct WriteEvent {
  double sched, done, bytes;
};

// Cumulative bytes the recorder has produced by time t: samples arrive
// steadily, so production rises linearly from one recorded write to the
// next, reaching the block's last byte when the recorder issued it.
class Production {
 public:
  explicit Production(const std::vector<WriteEvent>& by_sched) {
    if (by_sched.empty()) return;
    double first = by_sched[0].sched;
    double gap = by_sched.size() > 1 ? by_sched[1].sched - first : 0;
    t_.push_back(std::max(0.0, first - gap));
    c_.push_back(0);
    for (const auto& w : by_sched) {
      t_.push_back(w.sched);
      c_.push_back(c_.back() + w.bytes);
    }
  }
  double at(double x) const {
    if (t_.empty() || x < t_.front()) return 0;
    auto it = std::upper_bound(t_.begin(), t_.end(), x);
    if (it == t_.end()) return c_.back();
    size_t i = static_cast<size_t>(it - t_.begin());  // t_[i-1] <= x < t_[i]
    double span = t_[i] - t_[i - 1];
    return span > 0 ? c_[i - 1] + (c_[i] - c_[i - 1]) * (x - t_[i - 1]) / span : c_[i - 1];
  }

 private:
  std::vector<double> t_, c_;
};

// The recorder's buffer holds what it produced and the device has not yet
// finished writing. It peaks just before a write completes; a completion
// that finds more than `buffer` waiting is an overrun (samples were lost
// while it was late). Also fills a downsampled timeline for plots.
void buffer_sweep(std::vector<WriteEvent> w, double buffer, size_t points, double end, ReplayStats& s) {
  std::stable_sort(w.begin(), w.end(), [](const WriteEvent& a, const WriteEvent& b) { return a.sched < b.sched; });
  Production prod(w);
  std::vector<std::pair<double, double>> done;  // (time, bytes)
  for (const auto& e : w) done.emplace_back(e.done, e.bytes);
  std::sort(done.begin(), done.end());
  size_t n = std::max<size_t>(points, 2);
  double step = end > 0 ? end / static_cast<double>(n - 1) : 1;
  s.timeline.assign(n, {});
  double written = 0, peak = 0, bin_peak = 0;
  size_t k = 0;
  auto close_bins = [&](double until) {
    for (; k < n && step * static_cast<double>(k) < until; ++k) {
      TimelinePoint& p = s.timeline[k];
      p.t = step * static_cast<double>(k);
      p.scheduled_bytes = prod.at(p.t);
      p.written_bytes = written;
      p.buffered_bytes = std::max(bin_peak, p.scheduled_bytes - written);
      bin_peak = 0;
    }
  };
  for (const auto& [t, bytes] : done) {
    close_bins(t);
    double level = prod.at(t) - written;
    peak = std::max(peak, level);
    bin_peak = std::max(bin_peak, level);
    if (buffer >= 0 && level > buffer + 0.5) {
      ++s.overruns;
      if (s.overrun_times.size() < 1000) s.overrun_times.push_back(t);
    }
    written += bytes;
  }
  close_bins(INFINITY);
  s.needed_buffer_bytes = peak;
}

void summarise(const OpList& list, const std::vector<OpOutcome>& out, const ReplayOptions& opt, ReplayStats& s) {
  std::vector<double> lat;
  std::vector<WriteEvent> ev;
  double behind_sum = 0;
  s.ops = out.size();
  for (size_t i = 0; i < out.size(); ++i) {
    const ReplayOp& op = list.ops[i];
    const OpOutcome& o = out[i];
    s.completion_s = std::max(s.completion_s, o.done);
    double behind = opt.as_fast_as_possible ? 0 : o.issue - o.sched;
    if (behind < opt.resolution_s) behind = 0;  // the trace's own rounding, not lateness
    s.max_behind_s = std::max(s.max_behind_s, behind);
    behind_sum += behind;
    bool short_write = op.kind == OpKind::Write && !o.error && o.bytes < op.bytes;
    if (o.error) ++s.errors[errno_name(o.error)];
    if (short_write) ++s.errors["short write"];
    if (o.error || short_write) {
      ++s.failed_ops;
      if (!s.first_error)
        s.first_error = FirstError{i, o.issue, std::string(op_name(op.kind)), op.file,
                                   o.error ? errno_name(o.error) : std::string("short write")};
    }
    if (op.kind == OpKind::Fsync) s.fsync_max_s = std::max(s.fsync_max_s, o.done - o.issue);
    if (op.kind != OpKind::Write) continue;
    ++s.writes;
    s.bytes_written += static_cast<double>(o.bytes);
    s.failed_write_bytes += static_cast<double>(op.bytes - std::min(op.bytes, o.bytes));
    lat.push_back(o.done - o.issue);
    // The recorder's buffer drains only by what reached the device.
    ev.push_back({opt.as_fast_as_possible ? o.issue : o.sched, o.done, static_cast<double>(op.bytes)});
  }
  s.mean_behind_s = out.empty() ? 0 : behind_sum / static_cast<double>(out.size());
  s.recorded_end_s = list.recorded_end() * opt.time_scale;
  const double qs[5] = {0.5, 0.9, 0.99, 0.999, 1.0};
  for (int q = 0; q < 5; ++q) s.write_latency_s[q] = percentile_in_place(lat, qs[q]);
  buffer_sweep(std::move(ev), opt.buffer_bytes, opt.timeline_points, s.completion_s, s);
  if (opt.as_fast_as_possible) {
    s.needed_buffer_bytes = 0;
    s.kept_up.reset();
  } else if (opt.buffer_bytes >= 0) {
    s.kept_up = s.overruns == 0;
  } else {
    s.kept_up = s.max_behind_s <= opt.tolerance_s;
  }
  // Data that never reached the device was not kept up with, however fast
  // the errors came back.
  if (s.kept_up && s.failed_ops > 0) s.kept_up = false;
}

}  // namespace

ReplayRun replay_ops(const OpList& list, Device& dev, Clock& clock, const ReplayOptions& opt) {
  ReplayRun run;
  run.outcomes.resize(list.ops.size());
  std::unordered_map<std::string, FileId> ids;
  std::unordered_set<FileId> live;
  std::map<int, ThreadQueue> threads;
  for (size_t i = 0; i < list.ops.size(); ++i) {
    threads[list.ops[i].thread].ops.push_back(i);
    ids.try_emplace(list.ops[i].file, static_cast<FileId>(ids.size() + 1));
  }
  // Min-heap of (issue time, op index, thread): ties keep the list's order.
  using Entry = std::tuple<double, size_t, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  auto push_next = [&](int tid, ThreadQueue& q) {
    if (q.next >= q.ops.size()) return;
    size_t i = q.ops[q.next];
    double sched = opt.as_fast_as_possible ? 0 : list.ops[i].start * opt.time_scale;
    run.outcomes[i].sched = sched;
    heap.emplace(opt.open_loop ? sched : issue_time(sched, q.free_at, opt.resolution_s), i, tid);
  };
  for (auto& [tid, q] : threads) push_next(tid, q);
  size_t done_count = 0;
  auto cancelled = [&] { return opt.cancel && opt.cancel->load(); };
  while (!heap.empty() && !cancelled()) {
    auto [issue, i, tid] = heap.top();
    clock.sleep_until(issue);  // a real clock wakes early on Ctrl-C
    if (cancelled()) break;
    if (clock.now() < issue - 1e-6) continue;  // woken early by a signal that did not cancel: sleep again
    heap.pop();
    const ReplayOp& op = list.ops[i];
    ThreadQueue& q = threads[tid];
    double now = clock.now();
    FileId id = ids[op.file];
    OpOutcome& o = run.outcomes[i];
    o.issue = now;
    if (op.kind == OpKind::Create && live.contains(id)) {
      o.done = now;  // reopening a file the replay already created
    } else {
      if (!live.contains(id) && op.kind != OpKind::Create) {
        auto c = dev.submit({OpKind::Create, id, 0, 0, op.direct}, now);
        now = std::max(now, c.done);
      }
      live.insert(id);
      Completion c = dev.submit({op.kind, id, op.offset, op.bytes, op.direct}, now);
      o.done = c.done;
      o.error = c.error;
      o.bytes = c.bytes;
      o.direct = c.direct;
      if (op.kind == OpKind::Remove) live.erase(id);
    }
    q.free_at = o.done;
    ++q.next;
    push_next(tid, q);
    if (opt.progress && (++done_count % 4096 == 0)) opt.progress(done_count, list.ops.size());
  }
  run.cancelled = cancelled();
  summarise(list, run.outcomes, opt, run.stats);
  return run;
}

ReplayRun replay_on_model(const OpList& ops, const Profile& profile, const ReplayOptions& opt, uint64_t seed) {
  ModelOptions mo;
  mo.seed = seed;
  return replay_on_model(ops, profile, opt, mo);
}

ReplayRun replay_on_model(const OpList& ops, const Profile& profile, const ReplayOptions& opt,
                          const ModelOptions& mo) {
  ModelDevice dev(profile, mo);
  VirtualClock clock;
  ReplayRun run = replay_ops(ops, dev, clock, opt);
  ModelState st = dev.state(run.stats.completion_s);
  run.stats.stalls = st.stalls;
  run.stats.stall_seconds = st.stall_seconds;
  return run;
}

std::optional<double> recorded_needed_buffer(const OpList& ops, double time_scale) {
  if (!ops.has_durations()) return std::nullopt;
  std::vector<WriteEvent> ev;
  for (const auto& o : ops.ops)
    if (o.kind == OpKind::Write)
      ev.push_back({o.start * time_scale, (o.start + o.duration) * time_scale, static_cast<double>(o.bytes)});
  ReplayStats s;
  buffer_sweep(std::move(ev), -1, 2, ops.recorded_end() * time_scale, s);
  return s.needed_buffer_bytes;
}

}  // namespace sd
