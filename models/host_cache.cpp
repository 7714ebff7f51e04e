#include "models/host_cache.h"

#include <algorithm>
#include <limits>

namespace sd {

HostCache::HostCache(const LayerParams& p, FsLayer& fs, const FileTable& files)
    : fs_(fs),
      files_(files),
      limit_(p.get("dirty_limit_bytes")),
      memory_(p.get("memory_mbps") * 1e6),
      chunk_(p.get("writeback_chunk_bytes")) {}

void HostCache::retire(double until) {
  while (!inflight_.empty() && inflight_.front().end <= until) {
    inflight_bytes_ -= static_cast<double>(inflight_.front().bytes);
    inflight_.pop_front();
  }
}

void HostCache::pump(double until) {
  while (!queued_.empty()) {
    Extent& head = queued_.front();
    double start = std::max(head.ready, inflight_.empty() ? 0.0 : inflight_.back().end);
    if (start > until) break;
    // Merge contiguous dirty data of the same file, up to one chunk.
    auto limit = static_cast<uint64_t>(chunk_);
    FileId file = head.file;
    uint64_t offset = head.offset, bytes = 0;
    while (!queued_.empty() && bytes < limit) {
      Extent& e = queued_.front();
      if (e.file != file || e.offset != offset + bytes || e.ready > start) break;
      uint64_t take = std::min(e.bytes, limit - bytes);
      bytes += take;
      e.offset += take;
      e.bytes -= take;
      if (e.bytes == 0) queued_.pop_front();
    }
    queued_bytes_ -= static_cast<double>(bytes);
    double end = fs_.write(file, offset, bytes, start, files_.used_bytes());
    inflight_.push_back({end, bytes});
    last_end_ = std::max(last_end_, end);
    inflight_bytes_ += static_cast<double>(bytes);
  }
  retire(until);
}

double HostCache::next_event() const {
  double t = std::numeric_limits<double>::infinity();
  if (!inflight_.empty()) t = inflight_.front().end;
  if (!queued_.empty())
    t = std::min(t, std::max(queued_.front().ready, inflight_.empty() ? 0.0 : inflight_.back().end));
  return t;
}

double HostCache::dirty_at(double now) {
  pump(now);
  return queued_bytes_ + inflight_bytes_;
}

double HostCache::write(FileId file, uint64_t offset, uint64_t bytes, double now) {
  double t = now;
  pump(t);
  auto b = static_cast<double>(bytes);
  // A write larger than the whole cache needs everything else gone first.
  double need = std::min(b, limit_);
  while (queued_bytes_ + inflight_bytes_ + need > limit_) {
    double next = next_event();
    if (next == std::numeric_limits<double>::infinity()) break;
    t = std::max(t, next);
    pump(t);
  }
  t += b / memory_;
  // Pages become dirty as they are copied; one extent per call keeps this cheap.
  if (!queued_.empty() && queued_.back().file == file && queued_.back().offset + queued_.back().bytes == offset &&
      queued_.back().ready >= now && queued_.back().bytes + bytes <= static_cast<uint64_t>(chunk_))
    queued_.back().bytes += bytes, queued_.back().ready = t;
  else
    queued_.push_back({file, offset, bytes, t});
  queued_bytes_ += b;
  return t;
}

double HostCache::drain(double now) {
  // Issue every queued chunk; the last one to finish ends the fsync.
  pump(std::numeric_limits<double>::infinity());
  return std::max(now, last_end_);
}

}  // namespace sd
