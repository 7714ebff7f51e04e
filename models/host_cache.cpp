#include "models/host_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/rng.h"

namespace sd {

namespace {
constexpr uint64_t kTimerStream = 100;  // apart from the stall processes' streams (0..3)
constexpr double kWbtWindowS = 0.1;     // wbt's monitoring window while it scales up (win_nsec)
constexpr double kWbtIdleS = 0.5;       // idle time per step back (RWB_UNKNOWN_BUMP windows; wbt_step: 0.52 s)
}  // namespace

int HostCache::wbt_depth(double queue_depth, int windows, bool background) {
  // rq_depth_calc_max_depth and calc_wb_limits (block/blk-wbt.c, blk-rq-qos.c):
  // a depth-1 device gets 2 (one ready when one completes), else the default
  // 16 (at most the queue depth) shifted left by the negative scale step,
  // capped at 3/4 of the queue depth; background writeback gets a quarter of
  // that, other buffered writes half.
  auto qd = static_cast<long>(std::max(1.0, queue_depth));
  long depth;
  if (qd == 1) {
    depth = 2;
  } else {
    long d0 = std::min(16L, qd), maxd = 3 * qd / 4;
    int shift = std::min(windows, 20);
    depth = 1 + ((d0 - 1) << shift);
    if (shift > 0 && depth > maxd) depth = maxd;
  }
  if (depth <= 2) return static_cast<int>(background ? 1 : depth);
  return static_cast<int>(background ? (depth + 3) / 4 : (depth + 1) / 2);
}

HostCache::HostCache(const LayerParams& p, FsLayer& fs, const FileTable& files, uint64_t seed, bool random_phases)
    : fs_(fs),
      files_(files),
      limit_(p.get("dirty_limit_bytes")),
      memory_(p.get("memory_mbps") * 1e6),
      chunk_(p.get("writeback_chunk_bytes")),
      queue_(std::max(p.get("writeback_queue_bytes"), p.get("writeback_chunk_bytes"))),
      background_(p.get("dirty_background_bytes")),
      expire_(p.get("dirty_expire_ms") * 1e-3),
      interval_(p.get("writeback_interval_ms") * 1e-3),
      journal_s_(fs.journal_commit_s()) {
  background_ = effective_background(background_, limit_);
  // Linux throttles a writer from the "freerun ceiling", halfway between the
  // background level and the limit (balance_dirty_pages), pacing it at a
  // rate that follows write-back's own: when the device pauses, write-back
  // stops and so does the writer, there. Without a background level (write-
  // back from the first dirty byte) dirty_limit_bytes is the throttle point
  // itself, as calibrate measures it from a buffered write's fast phase.
  throttle_ = freerun_ceiling(background_, limit_);
  pacing_ = background_ > 0 && throttle_ < limit_ && p.get("dirty_pacing") > 0;
  release_unit_ = p.get("writeback_request_bytes") > 0 ? p.get("writeback_request_bytes")
                                                       : std::numeric_limits<double>::infinity();
  wbt_qd_ = p.get("wbt_queue_depth");
  if (wbt_qd_ > 0) {
    request_ = p.get("writeback_request_bytes") > 0 ? std::min(p.get("writeback_request_bytes"), chunk_) : chunk_;
    wbt_background_ = fs.tags_background_writeback();
    while (wbt_windows_ < 20 && wbt_depth(wbt_qd_, wbt_windows_ + 1, wbt_background_) > wbt_depth(wbt_qd_, wbt_windows_, wbt_background_))
      ++wbt_windows_;
  }
  if (random_phases) {
    SplitMix64 rng = SplitMix64::seeded(seed, kTimerStream);
    wb_phase_ = interval_ * rng.uniform();
    first_commit_ = journal_s_ * rng.uniform();
  }
}

bool HostCache::has_random_phases(const LayerParams& host, const LayerParams& fs) {
  if (host.get("dirty_limit_bytes") <= 0) return false;
  bool flusher = host.get("dirty_background_bytes") > 0 && host.get("writeback_interval_ms") > 0;
  return flusher || FsLayer::journal_commit_s(fs) > 0;
}

double HostCache::wbt_window(double t) const {
  // Window boundaries are computed as burst_start_ + k * window: the
  // tolerance keeps such a time in window k, not k - 1.
  return std::floor((t - burst_start_) / kWbtWindowS + 1e-9);
}

int HostCache::wbt_step_at(double t) const {
  // Clamped as a double: before any writeback (wb_last_end_ = -1e300) the
  // window number is far outside int.
  return static_cast<int>(std::clamp(wbt_window(t), 0.0, static_cast<double>(wbt_windows_)));
}

double HostCache::queue_at(double t) const {
  if (wbt_qd_ <= 0) return queue_;
  return wbt_depth(wbt_qd_, wbt_step_at(t), wbt_background_) * request_;
}

double HostCache::inflight_at(double t) const {
  double left = inflight_bytes_;
  for (const InFlight& f : inflight_) {
    if (f.end > t) break;
    left -= static_cast<double>(f.bytes);
  }
  return left;
}

double HostCache::slot_time(double bytes, double t0) const {
  // Requests finish in order: room comes when enough of the oldest ones
  // ended, or (wbt) when the next window lets more requests in.
  double left = inflight_bytes_;
  if (inflight_.empty() || left + bytes <= queue_at(t0)) return t0;
  double t = t0;
  size_t i = 0;
  for (; i < inflight_.size() && inflight_[i].end <= t; ++i) left -= static_cast<double>(inflight_[i].bytes);
  while (i < inflight_.size()) {
    if (left + bytes <= queue_at(t)) return t;
    double next = inflight_[i].end;
    if (wbt_qd_ > 0) {
      double k = wbt_window(t) + 1;
      if (k <= wbt_windows_) next = std::min(next, std::max(t, burst_start_ + std::max(k, 1.0) * kWbtWindowS));
    }
    t = next;
    for (; i < inflight_.size() && inflight_[i].end <= t; ++i) left -= static_cast<double>(inflight_[i].bytes);
  }
  return t;
}

double HostCache::tick(double t) const {
  return interval_ > 0 ? wb_phase_ + std::ceil((t - wb_phase_) / interval_ - 1e-9) * interval_ : t;
}

double HostCache::oldest_ready(const FileQueue& fq) const {
  for (uint64_t id : fq.ids)
    if (id >= base_ && queued_[id - base_].live) return queued_[id - base_].ready;
  return std::numeric_limits<double>::infinity();
}

bool HostCache::next_chunk(double& start, FileId& file) const {
  if (queued_.empty()) return false;
  // Room for one request (wbt) or one chunk.
  double unit = wbt_qd_ > 0 ? request_ : chunk_;
  // A chunk of one file under way continues first (wbt sends it in pieces).
  const FileQueue* pass = nullptr;
  if (pass_left_ > 0)
    if (auto it = by_file_.find(pass_file_); it != by_file_.end() && it->second.bytes > 0) pass = &it->second;
  if (draining_ || background_ <= 0 || queued_bytes_ >= background_) {
    file = pass ? pass_file_ : queued_.front().file;
    double ready = pass ? oldest_ready(*pass) : queued_.front().ready;
    // Over the background level the flusher starts when the level was
    // reached, not back when its oldest page was dirtied.
    double from = background_ <= 0 ? 0.0 : draining_ ? drain_from_ : over_bg_since_;
    start = slot_time(unit, std::max(ready, from));
    return true;
  }
  auto due_of = [&](const FileQueue& fq) { return std::max(tick(fq.since + expire_), oldest_ready(fq)); };
  constexpr double never = std::numeric_limits<double>::infinity();
  double best = pass ? due_of(*pass) : never;
  if (best < never)
    file = pass_file_;
  else
    for (const auto& [f, fq] : by_file_)
      if (fq.bytes > 0)
        if (double due = due_of(fq); due < best) best = due, file = f;
  if (best == never) return false;
  start = slot_time(unit, best);
  return true;
}

void HostCache::commit_until(double t) {
  while (txn_open_ && next_commit_ <= t) {
    double start = next_commit_;
    // Everything submitted so far ends by last_end_ (the device serves in
    // order); the commit's journal blocks go after it.
    double done = fs_.journal_write(std::max(start, last_end_), files_.used_bytes());
    last_end_ = std::max(last_end_, done);
    commits_.push_back({start, done});
    txn_open_ = false;  // the next write opens the next transaction
  }
}

double HostCache::journal_wait(double now) {
  if (journal_s_ <= 0) return now;
  double t = now;
  while (!commits_.empty() && commits_.front().done <= t) commits_.pop_front();
  for (const Commit& c : commits_)
    if (c.start <= t && t < c.done) t = c.done;
  if (!txn_open_) {
    txn_open_ = true;
    next_commit_ = now + (first_commit_ >= 0 ? first_commit_ : journal_s_);
    first_commit_ = -1;
  }
  return t;
}

void HostCache::retire(double until) {
  while (!inflight_.empty() && inflight_.front().end <= until) {
    count_done(inflight_.front().busy, static_cast<double>(inflight_.front().bytes));
    inflight_bytes_ -= static_cast<double>(inflight_.front().bytes);
    inflight_.pop_front();
  }
}

void HostCache::drop_dead() {
  while (!queued_.empty() && !queued_.front().live) queued_.pop_front(), ++base_;
}

HostCache::FileQueue& HostCache::queue_of(FileId f) {
  if (!last_queue_ || last_file_ != f) last_file_ = f, last_queue_ = &by_file_[f];
  return *last_queue_;
}

size_t HostCache::first_extent(FileQueue& fq, double start) {
  // Ids of extents already popped off the queue stay in the file queues until skipped.
  auto live = [&](uint64_t id) { return id >= base_ && queued_[id - base_].live; };
  auto& ids = fq.ids;
  while (!ids.empty() && !live(ids.front())) ids.pop_front();
  // Usually the oldest dirty extent continues where the last writeback ended.
  if (!ids.empty()) {
    const Extent& e = extent(ids.front());
    if (e.ready <= start && e.offset == fq.next) return 0;
  }
  // Otherwise: the lowest offset at or past that point, else wrap to the lowest.
  size_t ahead = ids.size(), any = ids.size();
  for (size_t k = 0; k < ids.size(); ++k) {
    if (!live(ids[k])) continue;
    const Extent& e = extent(ids[k]);
    if (e.ready > start) continue;
    if (e.offset >= fq.next && (ahead == ids.size() || e.offset < extent(ids[ahead]).offset)) ahead = k;
    if (any == ids.size() || e.offset < extent(ids[any]).offset) any = k;
  }
  return ahead != ids.size() ? ahead : any;
}

size_t HostCache::continuation(const FileQueue& fq, size_t after, uint64_t offset, double start) {
  const auto& ids = fq.ids;
  auto live = [&](uint64_t id) { return id >= base_ && queued_[id - base_].live; };
  auto fits = [&](size_t k) {
    if (!live(ids[k])) return false;
    const Extent& e = extent(ids[k]);
    return e.ready <= start && e.offset == offset;
  };
  size_t k = after + 1;  // usually the next one dirtied
  while (k < ids.size() && !live(ids[k])) ++k;
  if (k < ids.size() && fits(k)) return k;
  for (k = 0; k < ids.size(); ++k)
    if (fits(k)) return k;
  return ids.size();
}

void HostCache::pump(double until) {
  while (true) {
    drop_dead();
    if (queued_.empty()) break;
    double start;
    FileId file;
    if (!next_chunk(start, file) || start > until) break;
    commit_until(start);
    // That file goes down in offset order (one of its extents is dirty by `start`).
    FileQueue& fq = queue_of(file);
    if (file != pass_file_ || pass_left_ <= 0) pass_file_ = file, pass_left_ = chunk_;
    double piece = pass_left_;
    if (wbt_qd_ > 0) {
      // After an idle spell wbt has stepped back towards its default depth.
      if (start - wb_last_end_ >= kWbtIdleS) {
        double back = std::floor((start - wb_last_end_) / kWbtIdleS);
        burst_start_ = start - std::max(0.0, wbt_step_at(wb_last_end_) - back) * kWbtWindowS;
      }
      piece = std::min(piece, std::max(request_, queue_at(start) - inflight_at(start)));
    }
    auto limit = static_cast<uint64_t>(std::max(1.0, std::floor(piece)));
    size_t k = first_extent(fq, start);
    uint64_t offset = extent(fq.ids[k]).offset, bytes = 0;
    while (k < fq.ids.size() && bytes < limit) {
      Extent& e = extent(fq.ids[k]);
      uint64_t take = std::min(e.bytes, limit - bytes);
      bytes += take;
      e.offset += take, e.bytes -= take;
      if (e.bytes > 0) break;  // the rest stays dirty
      e.live = false;
      k = continuation(fq, k, offset + bytes, start);
    }
    // The chunk goes on while the file has more (the kernel's pass ends when its pages do).
    pass_left_ = bytes < limit ? 0 : pass_left_ - static_cast<double>(bytes);
    send(fq, file, offset, bytes, start);
  }
  commit_until(until);
  retire(until);
}

void HostCache::send(FileQueue& fq, FileId file, uint64_t offset, uint64_t bytes, double start) {
  fq.next = offset + bytes;
  fq.bytes -= static_cast<double>(bytes);
  queued_bytes_ -= static_cast<double>(bytes);
  double paused = fs_.stalled_seconds();
  double end = fs_.write(file, offset, bytes, start, files_.used_bytes());
  paused = fs_.stalled_seconds() - paused;
  // The device serves requests in order: this one's own time began when it
  // was sent or when the one before it ended; a pause it met is taken first
  // (nothing is written while the device is paused).
  double busy = end - std::max(start, std::min(end, last_end_));
  inflight_.push_back({end, bytes, std::max(0.0, busy - paused)});
  last_end_ = std::max(last_end_, end);
  wb_last_end_ = std::max(wb_last_end_, end);
  inflight_bytes_ += static_cast<double>(bytes);
}

double HostCache::next_event() const {
  double t = std::numeric_limits<double>::infinity();
  if (!inflight_.empty()) t = inflight_.front().end;
  double start;
  FileId file;
  if (next_chunk(start, file)) t = std::min(t, start);
  return t;
}

double HostCache::dirty_at(double now) {
  pump(now);
  return queued_bytes_ + inflight_bytes_;
}

double HostCache::dirty_scheduled(double now) const {
  double done = 0;
  for (const auto& w : inflight_)
    if (w.end <= now) done += static_cast<double>(w.bytes);
  return queued_bytes_ + inflight_bytes_ - done;
}

double HostCache::write(FileId file, uint64_t offset, uint64_t bytes, double now) {
  pump(now);
  double t = journal_wait(now);
  if (t > now) pump(t);
  auto b = static_cast<double>(bytes);
  if (pacing_) {
    t = paced(b, t);
  } else {
    // A write larger than the whole cache needs everything else gone first.
    // Pages leave the dirty count (Linux counts those under writeback too)
    // as their writeback request ends, request by request
    // (writeback_request_bytes; without it, a whole piece at once).
    double need = std::min(b, throttle_);
    const double from = t;
    while (true) {
      double left = served(t, release_unit_);
      double excess = queued_bytes_ + inflight_bytes_ - left + need - throttle_;
      if (excess <= 0) break;
      double next = served_by(left + excess, t, release_unit_);
      if (next == std::numeric_limits<double>::infinity()) next = next_event();  // not yet sent down
      if (next == std::numeric_limits<double>::infinity() || next <= t) break;  // (<= t: rounding)
      t = next;
      pump(t);
    }
    // A writer held longer than one of balance_dirty_pages' pauses sleeps
    // in whole pauses and looks at the level after each: it goes on at the
    // end of the first pause that finds room.
    double pause = max_pause();
    if (pause > 0 && t - from > pause) {
      t = from + pause * std::ceil((t - from) / pause - 1e-9);
      pump(t);
    }
  }
  t += b / memory_;
  add_dirty(file, offset, bytes, now, t);
  return t;
}

double HostCache::bandwidth() const { return bw_time_ > 0 ? bw_bytes_ / bw_time_ : kInitBandwidth; }

void HostCache::count_done(double busy, double bytes) {
  // Averaged over the device's busy time (idle spells leave it as it was),
  // the older requests' weight halving every ~2 s of it.
  busy = std::max(0.0, busy);
  double keep;
  if (busy == keep_busy_[0]) {
    keep = keep_[0];
  } else if (busy == keep_busy_[1]) {
    keep = keep_[1];
    std::swap(keep_busy_[0], keep_busy_[1]), std::swap(keep_[0], keep_[1]);
  } else {
    keep = std::exp(-busy / kBandwidthS);
    keep_busy_[1] = keep_busy_[0], keep_[1] = keep_[0];
    keep_busy_[0] = busy, keep_[0] = keep;
  }
  bw_bytes_ = bw_bytes_ * keep + bytes;
  bw_time_ = bw_time_ * keep + busy;
}

double HostCache::served(double t, double unit) const {
  // The device serves in order, each request from its start to its end; in
  // whole units of `unit` bytes when it is given.
  double done = 0;
  for (const InFlight& f : inflight_) {
    double from = f.end - f.busy, b = static_cast<double>(f.bytes);
    if (t <= from) break;
    if (t >= f.end || f.busy <= 0) {
      done += b;
      continue;
    }
    double part = b * (t - from) / f.busy;
    done += unit > 0 && unit < b ? std::floor(part / unit + 1e-9) * unit : unit > 0 ? 0 : part;
    break;
  }
  return done;
}

double HostCache::served_by(double bytes, double t, double unit) const {
  double done = 0;
  for (const InFlight& f : inflight_) {
    double from = f.end - f.busy, b = static_cast<double>(f.bytes);
    if (done + b >= bytes) {
      if (f.busy <= 0 || (unit > 0 && unit >= b)) return std::max(t, f.end);
      double part = bytes - done;
      if (unit > 0) part = std::min(b, std::ceil(part / unit - 1e-9) * unit);
      return std::max(t, from + part / b * f.busy);
    }
    done += b;
  }
  return std::numeric_limits<double>::infinity();
}

double HostCache::max_pause() const {
  // wb_max_pause: an eighth of the time the device needs for what is dirty
  // (a writer held is at the limit), plus a jiffy (4 ms at Debian's 250 Hz),
  // at most 200 ms (MAX_PAUSE).
  return std::min(kMaxPauseS, 0.128 * limit_ / bandwidth() + 0.004);
}

double HostCache::paced(double b, double t) {
  // Linux's balance_dirty_pages: under the freerun ceiling a writer is not
  // held; above it, it is paced at dirty_ratelimit x pos_ratio, where
  // pos_ratio = 1 + ((setpoint - dirty) / (limit - setpoint))^3 (2 at the
  // ceiling, 1 at the setpoint halfway to the limit, 0 at the limit) and
  // dirty_ratelimit follows writeback's own bandwidth (the estimate here:
  // completed writeback over the device's busy time, averaged over about
  // kBandwidthS of it). Dirty data leaves as the device writes it (pages end
  // their writeback bio by bio), not a whole chunk at once. Time the writer
  // spent elsewhere since its last pause counts (up to 1 s), and a pause is
  // taken in steps of at most max_pause(), after which the level is read
  // again. At the limit itself it sleeps whole steps until the device has
  // made room.
  double need = std::min(b, limit_);
  double setpoint = (throttle_ + limit_) / 2;
  while (true) {
    double done = served(t);
    double dirty = queued_bytes_ + inflight_bytes_ - done;
    if (dirty + need <= throttle_) {
      paced_from_ = t;
      return t;
    }
    double x = (setpoint - (dirty + need)) / (limit_ - setpoint);
    double rate = bandwidth() * std::clamp(1 + x * x * x, 0.0, 2.0);
    if (dirty + need >= limit_ || rate <= 0) {
      // Room comes as the device writes what is in flight, or when writeback
      // sends more; the writer looks again after each whole pause.
      if (std::min(served_by(done + dirty + need - limit_ + 1, t), next_event()) ==
          std::numeric_limits<double>::infinity())
        return t;
      t += max_pause();
      pump(t);
      paced_from_ = t;
      continue;
    }
    double from = std::max(paced_from_, t - 1.0);
    double until = from + b / rate;
    if (until <= t) {
      paced_from_ = until;
      return t;
    }
    double pause = max_pause();
    if (until - t <= pause) {
      paced_from_ = until;
      t = until;
      pump(t);
      return t;
    }
    // A long pause: one step of it, then the level again with what is left.
    double step = t + pause;
    b -= (step - from) * rate;
    paced_from_ = step;
    t = step;
    pump(t);
  }
}

void HostCache::add_dirty(FileId file, uint64_t offset, uint64_t bytes, double now, double ready) {
  auto b = static_cast<double>(bytes);
  // Pages become dirty as they are copied; one extent per call keeps this cheap.
  FileQueue& fq = queue_of(file);
  if (fq.bytes <= 0) fq.since = now;
  fq.bytes += b;
  Extent* last = queued_.empty() ? nullptr : &queued_.back();
  if (last && last->live && last->file == file && last->offset + last->bytes == offset && last->ready >= now &&
      last->bytes + bytes <= static_cast<uint64_t>(chunk_)) {
    last->bytes += bytes, last->ready = ready;
  } else {
    queued_.push_back({file, offset, bytes, ready, true});
    fq.ids.push_back(base_ + queued_.size() - 1);
  }
  if (background_ > 0 && queued_bytes_ < background_ && queued_bytes_ + b >= background_)
    over_bg_since_ = now + (ready - now) * std::min(1.0, (background_ - queued_bytes_) / b);  // copied page by page
  queued_bytes_ += b;
}

bool HostCache::unthrottled_room(double& bytes) const {
  if (journal_s_ > 0) return false;
  bytes = throttle_ - (queued_bytes_ + inflight_bytes_);
  return true;
}

void HostCache::write_unthrottled(FileId file, uint64_t offset, uint64_t bytes, double now, double ready) {
  pump(now);
  add_dirty(file, offset, bytes, now, ready);
}

bool HostCache::appends(FileId file, uint64_t offset, double first_ready) const {
  if (background_ > 0 || wbt_qd_ > 0 || journal_s_ > 0 || pacing_ || draining_ || pass_left_ > 0) return false;
  if (!(chunk_ >= 1 && std::floor(chunk_) == chunk_ && chunk_ < 0x1p52)) return false;
  // The file's queue holds its live extents in queue order, after ids already written back.
  auto it = by_file_.find(file);
  const FileQueue* fq = it == by_file_.end() ? nullptr : &it->second;
  size_t ids = 0;
  if (fq)
    while (ids < fq->ids.size() && !(fq->ids[ids] >= base_ && queued_[fq->ids[ids] - base_].live)) ++ids;
  size_t live = 0;
  const Extent* last = nullptr;
  for (size_t i = 0; i < queued_.size(); ++i) {
    const Extent& e = queued_[i];
    if (!e.live) {
      if (live > 0) return false;  // written back after a live one: not the simple order
      continue;
    }
    if (e.file != file || !fq || ids + live >= fq->ids.size() || fq->ids[ids + live] != base_ + i) return false;
    if (last ? e.offset != last->offset + last->bytes || e.ready < last->ready : e.offset < fq->next) return false;
    last = &e, ++live;
  }
  if (fq && ids + live != fq->ids.size()) return false;
  if (last && (last->offset + last->bytes != offset || last->ready > first_ready)) return false;
  // Nothing of another file waits for writeback; requests in flight end in order.
  if (queued_bytes_ != (fq ? fq->bytes : 0.0)) return false;
  for (size_t i = 1; i < inflight_.size(); ++i)
    if (inflight_[i].end < inflight_[i - 1].end) return false;
  return true;
}

void HostCache::pump_appends(FileId file, double until) {
  // pump() traced where appends() holds: next_chunk() takes the queue's
  // front (no background level, no chunk under way), first_extent() the
  // front extent (the lowest offset, at or past where writeback stopped),
  // continuation() the next one if it is dirty by then; no journal commits.
  const auto limit = static_cast<uint64_t>(chunk_);
  const bool one_chunk = queue_ <= chunk_;  // one chunk in flight at a time: slot_time in one step
  while (true) {
    drop_dead();
    if (queued_.empty()) break;
    double ready = std::max(queued_.front().ready, 0.0);
    double start = !one_chunk ? slot_time(chunk_, ready)
                   : inflight_.empty() ? ready
                                       : std::max(ready, inflight_.back().end);
    if (start > until) break;
    FileQueue& fq = queue_of(file);
    while (!(fq.ids.front() >= base_ && extent(fq.ids.front()).live)) fq.ids.pop_front();
    pass_file_ = file;
    uint64_t offset = queued_.front().offset, bytes = 0;
    for (size_t k = 0; k < queued_.size() && bytes < limit; ++k) {
      Extent& e = queued_[k];
      if (k > 0 && e.ready > start) break;
      uint64_t take = std::min(e.bytes, limit - bytes);
      bytes += take;
      e.offset += take, e.bytes -= take;
      if (e.bytes > 0) break;
      e.live = false;
    }
    pass_left_ = 0;  // bytes < limit, or chunk_ - bytes = 0
    send(fq, file, offset, bytes, start);
  }
  retire(until);
}

void HostCache::append_run(FileTable& files, FileId file, uint64_t offset, uint64_t bytes, uint64_t n,
                           const double* times) {
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t at = offset + i * bytes;
    files.commit_write(file, at, bytes);
    pump_appends(file, times[2 * i]);
    add_dirty(file, at, bytes, times[2 * i], times[2 * i + 1]);
  }
}

bool HostCache::steady_pending(Pending& p) const {
  if (background_ > 0 || journal_s_ > 0 || wbt_qd_ > 0 || draining_ || pass_left_ > 0) return false;
  if (std::floor(chunk_) != chunk_ || queued_.size() != 1 || !queued_.front().live) return false;
  const Extent& e = queued_.front();
  if (!inflight_.empty() && inflight_.back().end > e.ready) return false;
  auto it = by_file_.find(e.file);
  if (it == by_file_.end() || it->second.bytes != static_cast<double>(e.bytes) ||
      queued_bytes_ != static_cast<double>(e.bytes))
    return false;
  p = {e.file, e.offset, e.bytes, e.ready};
  return true;
}

void HostCache::skip_writes(const Pending& p, uint64_t bytes, uint64_t n, double last_now, double last_ready) {
  // What each write's pump and write() leave, as traced through them: the
  // extent before it written back and popped (ids count on by one per write),
  // its id left dead at the front of the file's ids, the chunk's pass ended,
  // every request retired; the new extent dirty alone.
  uint64_t id = base_ + n;
  uint64_t offset = p.offset + p.bytes + (n - 1) * bytes;
  queued_.clear();
  base_ = id;
  queued_.push_back({p.file, offset, bytes, last_ready, true});
  FileQueue& fq = queue_of(p.file);
  fq.ids.clear();
  fq.ids.push_back(id - 1);
  fq.ids.push_back(id);
  fq.next = offset;
  fq.bytes = static_cast<double>(bytes);
  fq.since = last_now;
  pass_file_ = p.file, pass_left_ = 0;
  inflight_.clear();
  inflight_bytes_ = 0;
  queued_bytes_ = static_cast<double>(bytes);
}

double HostCache::drain(double now) {
  // Issue every queued chunk; the last one to finish ends the fsync.
  pump(now);
  // With a journal, fsync does not wait for the periodic commit: the data
  // goes down first, then the open transaction commits at once (ext4's
  // fsync forces it), and the fsync returns when its journal blocks are down.
  bool open = txn_open_;
  txn_open_ = false;
  draining_ = true, drain_from_ = now;
  pump(std::numeric_limits<double>::infinity());
  draining_ = false;
  if (open) {
    txn_open_ = true;
    next_commit_ = std::max(now, last_end_);
    commit_until(next_commit_);
  }
  return std::max(now, last_end_);
}

}  // namespace sd
