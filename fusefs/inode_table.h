// FUSE inode numbers <-> objects in the backing directory. Each inode holds an
// O_PATH descriptor of its backing object (as libfuse's passthrough_hp does),
// so renames need no path bookkeeping. The model names files by the backing
// object's st_ino (model_id()), which stays stable when the kernel forgets
// and looks a file up again.
//
// Threading: every method locks mu_. An Inode* stays valid until the kernel
// forgets it (nlookup reaches 0), so callbacks use it without the lock.
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "models/device.h"

namespace sd::fusefs {

using Ino = uint64_t;  // fuse_ino_t

struct Inode {
  Ino id = 0;
  int fd = -1;  // O_PATH, owned; constant while the inode lives
  dev_t dev = 0;
  ino_t backing_ino = 0;
  mode_t type = 0;  // S_IFREG, S_IFDIR, ...
  uint64_t nlookup = 0;  // guarded by the table's mutex
  FileId model_id() const { return static_cast<FileId>(backing_ino); }
  bool regular() const { return S_ISREG(type); }
};

class InodeTable {
 public:
  // Takes ownership of `root_fd` (O_PATH of the backing directory).
  explicit InodeTable(int root_fd);
  ~InodeTable();
  Inode* root() { return root_; }
  // nullptr if unknown (the kernel never sends an ino it was not given).
  Inode* get(Ino id);
  // Registers the object behind `fd` (O_PATH, ownership passes in) with
  // stat `st`, or finds it if known (then `fd` is closed); adds one lookup.
  Inode* add_lookup(int fd, const struct stat& st);
  // Drops `n` lookups; returns the inode if it is now forgotten (removed from
  // the table; the caller closes its fd and deletes it), else nullptr.
  std::unique_ptr<Inode> forget(Ino id, uint64_t n);
  size_t size();

 private:
  std::mutex mu_;  // guards everything below and Inode::nlookup
  Inode* root_;
  std::unordered_map<Ino, std::unique_ptr<Inode>> by_id_;
  std::map<std::pair<dev_t, ino_t>, Ino> by_backing_;
  Ino next_ = 2;  // 1 is FUSE_ROOT_ID
};

}  // namespace sd::fusefs
