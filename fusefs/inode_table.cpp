#include "fusefs/inode_table.h"

#include <unistd.h>

namespace sd::fusefs {

InodeTable::InodeTable(int root_fd) {
  auto r = std::make_unique<Inode>();
  struct stat st {};
  fstat(root_fd, &st);
  r->id = 1;
  r->fd = root_fd;
  r->dev = st.st_dev;
  r->backing_ino = st.st_ino;
  r->type = S_IFDIR;
  r->nlookup = 1;  // the root is never forgotten
  root_ = r.get();
  by_backing_[{st.st_dev, st.st_ino}] = 1;
  by_id_[1] = std::move(r);
}

InodeTable::~InodeTable() {
  for (auto& [id, in] : by_id_) close(in->fd);
}

Inode* InodeTable::get(Ino id) {
  std::lock_guard lk(mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second.get();
}

Inode* InodeTable::add_lookup(int fd, const struct stat& st) {
  std::lock_guard lk(mu_);
  auto it = by_backing_.find({st.st_dev, st.st_ino});
  if (it != by_backing_.end()) {
    close(fd);
    Inode* in = by_id_.at(it->second).get();
    ++in->nlookup;
    return in;
  }
  auto in = std::make_unique<Inode>();
  in->id = next_++;
  in->fd = fd;
  in->dev = st.st_dev;
  in->backing_ino = st.st_ino;
  in->type = st.st_mode & S_IFMT;
  in->nlookup = 1;
  Inode* p = in.get();
  by_backing_[{st.st_dev, st.st_ino}] = p->id;
  by_id_[p->id] = std::move(in);
  return p;
}

std::unique_ptr<Inode> InodeTable::forget(Ino id, uint64_t n) {
  std::lock_guard lk(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end() || it->second.get() == root_) return nullptr;
  Inode& in = *it->second;
  in.nlookup = n >= in.nlookup ? 0 : in.nlookup - n;
  if (in.nlookup > 0) return nullptr;
  by_backing_.erase({in.dev, in.backing_ino});
  auto out = std::move(it->second);
  by_id_.erase(it);
  return out;
}

size_t InodeTable::size() {
  std::lock_guard lk(mu_);
  return by_id_.size();
}

}  // namespace sd::fusefs
