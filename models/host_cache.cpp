#include "models/host_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/rng.h"

namespace sd {

namespace {
constexpr uint64_t kTimerStream = 100;  // apart from the stall processes' streams (0..3)
}  // namespace

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
  // Linux halves a background level at or above the dirty limit.
  if (limit_ > 0 && background_ >= limit_) background_ = limit_ / 2;
  // Linux throttles a writer from the "freerun ceiling", halfway between the
  // background level and the limit (balance_dirty_pages), pacing it at a
  // rate that follows write-back's own: when the device pauses, write-back
  // stops and so does the writer, there. Without a background level (write-
  // back from the first dirty byte) dirty_limit_bytes is the throttle point
  // itself, as calibrate measures it from a buffered write's fast phase.
  throttle_ = background_ > 0 ? (background_ + limit_) / 2 : limit_;
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

double HostCache::slot_time(double bytes) const {
  // Requests finish in order: room comes when enough of the oldest ones ended.
  double left = inflight_bytes_;
  if (left + bytes <= queue_ || inflight_.empty()) return 0;
  for (const InFlight& f : inflight_) {
    left -= static_cast<double>(f.bytes);
    if (left + bytes <= queue_) return f.end;
  }
  return inflight_.back().end;
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
  double slot = slot_time(chunk_);
  if (draining_ || background_ <= 0 || queued_bytes_ >= background_) {
    const Extent& head = queued_.front();
    file = head.file;
    start = std::max({head.ready, slot, draining_ && background_ > 0 ? drain_from_ : 0.0});
    return true;
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [f, fq] : by_file_) {
    if (fq.bytes <= 0) continue;
    double due = std::max(tick(fq.since + expire_), oldest_ready(fq));
    if (due < best) best = due, file = f;
  }
  if (best == std::numeric_limits<double>::infinity()) return false;
  start = std::max(best, slot);
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
    auto limit = static_cast<uint64_t>(chunk_);
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
    fq.next = offset + bytes;
    fq.bytes -= static_cast<double>(bytes);
    queued_bytes_ -= static_cast<double>(bytes);
    double end = fs_.write(file, offset, bytes, start, files_.used_bytes());
    inflight_.push_back({end, bytes});
    last_end_ = std::max(last_end_, end);
    inflight_bytes_ += static_cast<double>(bytes);
  }
  commit_until(until);
  retire(until);
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
  // A write larger than the whole cache needs everything else gone first.
  double need = std::min(b, throttle_);
  while (queued_bytes_ + inflight_bytes_ + need > throttle_) {
    double next = next_event();
    if (next == std::numeric_limits<double>::infinity()) break;
    t = std::max(t, next);
    pump(t);
  }
  t += b / memory_;
  // Pages become dirty as they are copied; one extent per call keeps this cheap.
  FileQueue& fq = queue_of(file);
  if (fq.bytes <= 0) fq.since = now;
  fq.bytes += b;
  Extent* last = queued_.empty() ? nullptr : &queued_.back();
  if (last && last->live && last->file == file && last->offset + last->bytes == offset && last->ready >= now &&
      last->bytes + bytes <= static_cast<uint64_t>(chunk_)) {
    last->bytes += bytes, last->ready = t;
  } else {
    queued_.push_back({file, offset, bytes, t, true});
    fq.ids.push_back(base_ + queued_.size() - 1);
  }
  queued_bytes_ += b;
  return t;
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
