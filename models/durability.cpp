#include "models/durability.h"

#include <algorithm>

namespace sd {
namespace {

// Intervals [start, end) marked so far; paint() reports the unmarked parts of
// a range, then marks the whole range.
class Painted {
 public:
  template <class F>
  void paint(uint64_t x, uint64_t y, F&& gap) {
    if (x >= y) return;
    auto it = iv_.upper_bound(x);
    if (it != iv_.begin() && std::prev(it)->second >= x) --it;  // touches or covers x
    uint64_t lo = x, hi = y, at = x;
    while (it != iv_.end() && it->first <= y) {
      if (it->first > at) gap(at, std::min(it->first, y));
      at = std::max(at, it->second);
      lo = std::min(lo, it->first), hi = std::max(hi, it->second);
      it = iv_.erase(it);
    }
    if (at < y) gap(at, y);
    iv_[lo] = hi;
  }

 private:
  std::map<uint64_t, uint64_t> iv_;
};

}  // namespace

std::string_view length_rule_name(LengthRule r) {
  switch (r) {
    case LengthRule::Journal: return "journal commit";
    case LengthRule::WithData: return "with the data";
    case LengthRule::AtClose: return "at close/fsync";
  }
  return "?";
}

DurabilityParams DurabilityParams::of(const LayerParams& fs, const LayerParams& device) {
  DurabilityParams p;
  p.cache_bytes = device.get("write_cache_bytes");
  p.destage_s = device.get("write_cache_destage_ms") * 1e-3;
  p.flush_honest = device.get("flush_honest") != 0;
  if (fs.get("userspace") != 0) p.rule = LengthRule::AtClose;
  else if (fs.get("journal_commit_ms") > 0) p.rule = LengthRule::Journal;
  else p.rule = LengthRule::WithData;
  return p;
}

uint64_t SurvivingFile::data_bytes() const {
  Painted p;
  uint64_t n = 0;
  for (const auto& r : ranges)
    p.paint(r.offset, std::min(r.offset + r.bytes, std::max(r.offset, length)), [&](uint64_t a, uint64_t b) { n += b - a; });
  return n;
}

const SurvivingFile* PowerLossImage::find(FileId f) const {
  for (const auto& s : files)
    if (s.file == f) return &s;
  return nullptr;
}

void DurabilityLog::created(FileId f, double t) {
  File& e = files_[f];
  e = File{};
  e.created = t;
}

void DurabilityLog::existing(FileId f, uint64_t size) {
  File& e = files_[f];
  e = File{};
  e.existing = true, e.existing_size = size, e.size = size;
  e.created = -std::numeric_limits<double>::infinity();
}

void DurabilityLog::resized(FileId f, uint64_t size, double t) {
  File& e = files_[f];
  e.size = size;
  e.truncs.emplace_back(t, size);
}

void DurabilityLog::device_write(FileId f, uint64_t offset, uint64_t bytes, double start, double end) {
  auto it = files_.find(f);
  if (it == files_.end() || bytes == 0) return;  // metadata, journal, a file removed meanwhile
  it->second.writes.push_back({offset, bytes, start, end});
  if (!accepted_.empty() && end < accepted_.back().first) sorted_ = false;
  accepted_.emplace_back(end, static_cast<double>(bytes));
}

void DurabilityLog::commit(double start, double done) {
  commits_.emplace_back(start, done);
  if (p_.flush_honest) flushes_.push_back(done);  // the commit block goes down with a barrier
}

void DurabilityLog::synced(FileId f, double done) {
  auto it = files_.find(f);
  if (it != files_.end()) {
    it->second.size_points.emplace_back(done, it->second.size);
    it->second.sync_points.emplace_back(done, it->second.size);
  }
  if (p_.rule == LengthRule::Journal) commits_.emplace_back(done, done);  // fsync forces a commit
  if (p_.flush_honest) flushes_.push_back(done);
}

void DurabilityLog::closed(FileId f, double t) {
  auto it = files_.find(f);
  if (it != files_.end()) it->second.size_points.emplace_back(t, it->second.size);
}

void DurabilityLog::removed(FileId f, double t) {
  auto it = files_.find(f);
  if (it != files_.end()) it->second.removed = std::min(it->second.removed, t);
}

bool DurabilityLog::on_media(double a, double t) const {
  if (a > t) return false;
  if (p_.cache_bytes <= 0 || t - a >= p_.destage_s) return true;
  auto f = std::lower_bound(flushes_.begin(), flushes_.end(), a);
  if (f != flushes_.end() && *f <= t) return true;
  // Bytes acknowledged after it (up to t) pushed it out of the cache?
  double newer = 0;
  auto it = std::upper_bound(accepted_.begin(), accepted_.end(), std::make_pair(a, std::numeric_limits<double>::max()));
  for (; it != accepted_.end() && it->first <= t; ++it)
    if ((newer += it->second) >= p_.cache_bytes) return true;
  return false;
}

uint64_t DurabilityLog::disk_size(const File& f, double s, double t, bool need_media) const {
  double cut = -std::numeric_limits<double>::infinity();
  uint64_t ds = f.existing ? f.existing_size : 0;
  for (const auto& [tt, size] : f.truncs)
    if (tt <= s && tt >= cut) cut = tt, ds = size;
  for (const Write& w : f.writes)
    if (w.end <= s && w.end >= cut && (!need_media || on_media(w.end, t))) ds = std::max(ds, w.offset + w.bytes);
  return ds;
}

SurvivingFile DurabilityLog::image_of(FileId id, const File& f, double t) const {
  SurvivingFile s;
  s.file = id;
  s.size_at_loss = f.size;
  if (f.removed <= t || f.created > t) return s;
  // The length at the latest close or fsync by t (at-close rule), and at the
  // latest fsync (with-data rule: closing writes nothing by itself).
  auto latest = [&](const std::vector<std::pair<double, uint64_t>>& points, double& when, uint64_t& size) {
    when = -1, size = f.existing ? f.existing_size : 0;
    for (const auto& [pt, sz] : points)
      if (pt <= t && pt >= when) when = pt, size = sz;
  };
  double last_size_t, last_sync_t;
  uint64_t last_size, last_sync;
  latest(f.size_points, last_size_t, last_size);
  latest(f.sync_points, last_sync_t, last_sync);
  switch (p_.rule) {
    case LengthRule::Journal: {
      double best = -std::numeric_limits<double>::infinity();  // the latest commit's start that is durable
      for (const auto& [start, done] : commits_)
        if (done <= t && start > best && on_media(done, t)) best = start;
      s.exists = f.existing || best >= f.created;
      if (s.exists) s.length = disk_size(f, best, t, false);
      break;
    }
    case LengthRule::WithData: {
      s.length = std::max(disk_size(f, t, t, true), last_sync_t >= 0 ? last_sync : 0);
      bool any = std::any_of(f.writes.begin(), f.writes.end(), [&](const Write& w) { return w.end <= t && on_media(w.end, t); });
      s.exists = f.existing || any || last_sync_t >= 0;
      break;
    }
    case LengthRule::AtClose:
      s.exists = true;
      s.length = last_size;
      break;
  }
  if (!s.exists) {
    s.length = 0;
    return s;
  }
  for (const Write& w : f.writes) {
    if (w.end > t || !on_media(w.end, t)) continue;
    uint64_t limit = s.length;
    for (const auto& [tt, size] : f.truncs)
      if (tt > w.end && tt <= t) limit = std::min(limit, size);  // cut off later
    if (w.offset >= limit) continue;
    s.ranges.push_back({w.offset, std::min(w.bytes, limit - w.offset), w.start});
  }
  if (f.existing && f.existing_size > 0) {
    // What was there before the run is durable (it counts as written at the
    // start), up to where a truncate cut it.
    uint64_t kept = std::min(f.existing_size, s.length);
    for (const auto& [tt, size] : f.truncs)
      if (tt <= t) kept = std::min(kept, size);
    if (kept > 0) s.ranges.insert(s.ranges.begin(), DurableRange{0, kept, -std::numeric_limits<double>::infinity()});
  }
  return s;
}

PowerLossImage DurabilityLog::at(double t) {
  if (!sorted_) std::sort(accepted_.begin(), accepted_.end()), sorted_ = true;
  std::sort(flushes_.begin(), flushes_.end());
  PowerLossImage img;
  img.time = t;
  for (const auto& [id, f] : files_) img.files.push_back(image_of(id, f, t));
  return img;
}

std::vector<Piece> resolve_contents(const SurvivingFile& sf, const std::vector<AppWrite>& writes) {
  // Which request made each byte durable (the latest wins), as sorted segments.
  struct Seg {
    uint64_t x, y;
    double sent;
  };
  std::vector<Seg> segs;
  {
    Painted p;
    for (auto r = sf.ranges.rbegin(); r != sf.ranges.rend(); ++r)
      p.paint(r->offset, std::min(r->offset + r->bytes, sf.length),
              [&](uint64_t a, uint64_t b) { segs.push_back({a, b, r->sent}); });
    std::sort(segs.begin(), segs.end(), [](const Seg& a, const Seg& b) { return a.x < b.x; });
  }
  // Each byte holds the latest write issued before its request was sent.
  std::vector<Piece> out;
  Painted done;
  for (size_t k = writes.size(); k-- > 0;) {
    const AppWrite& w = writes[k];
    uint64_t x = w.offset, y = std::min(w.offset + w.bytes, sf.length);
    if (x >= y) continue;
    auto it = std::upper_bound(segs.begin(), segs.end(), x, [](uint64_t v, const Seg& s) { return v < s.x; });
    if (it != segs.begin()) --it;
    for (; it != segs.end() && it->x < y; ++it) {
      if (it->y <= x || w.t > it->sent) continue;
      done.paint(std::max(x, it->x), std::min(y, it->y), [&](uint64_t a, uint64_t b) {
        out.push_back({a, b - a, static_cast<int64_t>(k)});
      });
    }
  }
  std::sort(out.begin(), out.end(), [](const Piece& a, const Piece& b) { return a.offset < b.offset; });
  // The rest of the length reads as zeros.
  std::vector<Piece> all;
  uint64_t at = 0;
  for (const Piece& p : out) {
    if (p.offset > at) all.push_back({at, p.offset - at, -1});
    all.push_back(p);
    at = p.offset + p.bytes;
  }
  if (at < sf.length) all.push_back({at, sf.length - at, -1});
  return all;
}

}  // namespace sd
