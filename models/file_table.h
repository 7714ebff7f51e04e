// Files as the filesystem layer sees them: sizes, clusters in use, and the
// limits that make writes fail (EFBIG past max_file_bytes, ENOSPC past the
// device's capacity). Files are allocated in whole clusters, without holes.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "models/device.h"

namespace sd {

class FileTable {
 public:
  FileTable(double cluster_bytes, double max_file_bytes, double capacity_bytes, double prefill_bytes);
  // Copies drop the lookup cache (it points into the source's map).
  FileTable(const FileTable& o) { *this = o; }
  FileTable& operator=(const FileTable& o) {
    cluster_ = o.cluster_, shift_ = o.shift_, max_file_ = o.max_file_, capacity_ = o.capacity_, prefill_ = o.prefill_;
    clusters_ = o.clusters_, files_ = o.files_, last_size_ = nullptr;
    memo_size_ = UINT64_MAX, memo_clusters_ = 0;
    return *this;
  }

  bool exists(FileId f) const { return entry(f) != nullptr; }
  // Returns false if the file already exists.
  bool create(FileId f);
  void remove(FileId f);
  uint64_t size(FileId f) const;
  // How many of `bytes` at `offset` may be written, and the errno if not all.
  struct Grant {
    uint64_t bytes;
    int error;
  };
  Grant check_write(FileId f, uint64_t offset, uint64_t bytes) const;
  void commit_write(FileId f, uint64_t offset, uint64_t bytes);
  int truncate(FileId f, uint64_t new_size);  // 0 or errno

  double used_bytes() const { return prefill_ + static_cast<double>(clusters_) * cluster_; }
  double capacity() const { return capacity_; }
  double cluster() const { return cluster_; }
  double max_file() const { return max_file_; }

 private:
  uint64_t clusters_for(uint64_t size) const;
  // log2 of the cluster size when it is a power of two (0 .. 52), else -1:
  // clusters_for's ceil(size / cluster) is then exact as a shift.
  int shift_ = -1;
  // The last size clusters_for computed (a file's size after one write is
  // its size before the next): one rounding per write instead of two.
  mutable uint64_t memo_size_ = UINT64_MAX, memo_clusters_ = 0;
  // The size entry of `f`, or null. Remembers the last file looked up:
  // recorders write one file over and over, and references into an
  // unordered_map stay valid until that element is erased.
  uint64_t* entry(FileId f) const;
  mutable FileId last_id_ = 0;
  mutable uint64_t* last_size_ = nullptr;

  double cluster_, max_file_, capacity_, prefill_;
  uint64_t clusters_ = 0;
  std::unordered_map<FileId, uint64_t> files_;  // id -> size
};

}  // namespace sd
