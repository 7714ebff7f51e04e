#include "models/file_table.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace sd {

FileTable::FileTable(double cluster, double max_file, double capacity, double prefill)
    : cluster_(cluster), max_file_(max_file), capacity_(capacity), prefill_(prefill) {
  int e = 0;
  if (cluster >= 1 && std::frexp(cluster, &e) == 0.5 && e - 1 <= 52) shift_ = e - 1;
}

bool FileTable::create(FileId f) { return files_.emplace(f, 0).second; }

uint64_t* FileTable::entry(FileId f) const {
  if (last_size_ && last_id_ == f) return last_size_;
  auto it = files_.find(f);
  if (it == files_.end()) return nullptr;
  last_id_ = f;
  last_size_ = const_cast<uint64_t*>(&it->second);
  return last_size_;
}

void FileTable::remove(FileId f) {
  auto it = files_.find(f);
  if (it == files_.end()) return;
  last_size_ = nullptr;
  clusters_ -= clusters_for(it->second);
  files_.erase(it);
}

uint64_t FileTable::size(FileId f) const {
  uint64_t* e = entry(f);
  return e ? *e : 0;
}

uint64_t FileTable::clusters_for(uint64_t size) const {
  // Below 2^53 the size, the quotient and its ceiling are exact doubles.
  if (shift_ >= 0 && size < (uint64_t{1} << 53)) return (size + ((uint64_t{1} << shift_) - 1)) >> shift_;
  if (size == memo_size_) return memo_clusters_;
  memo_size_ = size;
  memo_clusters_ = static_cast<uint64_t>(std::ceil(static_cast<double>(size) / cluster_));
  return memo_clusters_;
}

FileTable::Grant FileTable::check_write(FileId f, uint64_t offset, uint64_t bytes) const {
  uint64_t allowed = bytes;
  int err = 0;
  if (max_file_ > 0) {
    auto limit = static_cast<uint64_t>(max_file_);
    if (offset >= limit) return {0, EFBIG};
    if (offset + bytes > limit) allowed = limit - offset, err = EFBIG;
  }
  if (capacity_ > 0) {
    uint64_t old_size = size(f);
    uint64_t new_size = std::max(old_size, offset + allowed);
    double free_bytes = capacity_ - used_bytes();
    // Room to spare (the usual case), without rounding: the clusters added are
    // at most (new - old) / cluster + 1, the free ones at least free / cluster - 1.
    if (static_cast<double>(new_size - old_size) + 2 * cluster_ <= free_bytes) return {allowed, err};
    uint64_t extra = clusters_for(new_size) - clusters_for(old_size);
    auto free_clusters = static_cast<uint64_t>(std::max(0.0, std::floor(free_bytes / cluster_)));
    if (extra > free_clusters) {
      // Only what fits in the free clusters is written.
      uint64_t max_end = (clusters_for(old_size) + free_clusters) * static_cast<uint64_t>(cluster_);
      if (offset >= max_end) return {0, ENOSPC};
      allowed = std::min(allowed, max_end - offset);
      err = ENOSPC;
    }
  }
  return {allowed, err};
}

void FileTable::commit_write(FileId f, uint64_t offset, uint64_t bytes) {
  uint64_t* e = entry(f);
  uint64_t& size = e ? *e : files_[f];
  uint64_t new_size = std::max(size, offset + bytes);
  clusters_ += clusters_for(new_size) - clusters_for(size);
  size = new_size;
}

int FileTable::truncate(FileId f, uint64_t new_size) {
  if (max_file_ > 0 && static_cast<double>(new_size) > max_file_) return EFBIG;
  uint64_t& size = files_[f];
  uint64_t before = clusters_for(size), after = clusters_for(new_size);
  if (after > before && capacity_ > 0 &&
      static_cast<double>(after - before) * cluster_ > capacity_ - used_bytes())
    return ENOSPC;
  clusters_ = clusters_ - before + after;
  size = new_size;
  return 0;
}

}  // namespace sd
