// Power loss through the mount: when a powerloss fault fires, the backing
// files become what the durability model (models/durability.h) says the
// device holds after the outage: files whose directory entry never became
// durable are removed, each other file gets the length that survives, bytes
// that never became durable read as zeros, and a range rewritten after it
// became durable (a header patched at close) holds its earlier bytes again.
// The device then stays gone until unmounted. Only files inside the backing
// directory that the model knows are touched.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "fusefs/fs.h"

namespace sd::fusefs {
namespace {

// Cap on the bytes kept from overwritten ranges (headers, in practice).
constexpr uint64_t kMaxKeptOld = 256ull << 20;

bool write_all(int fd, const char* p, size_t n, uint64_t off) {
  while (n > 0) {
    ssize_t r = pwrite(fd, p, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<size_t>(r), off += static_cast<uint64_t>(r);
  }
  return true;
}

bool write_zeros(int fd, uint64_t off, uint64_t n) {
  static const std::vector<char> zeros(1 << 20, 0);
  while (n > 0) {
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, zeros.size()));
    if (!write_all(fd, zeros.data(), k, off)) return false;
    off += k, n -= k;
  }
  return true;
}

}  // namespace

void Fs::keep_existing(FileId file, uint64_t size) {
  std::lock_guard lk(keep_mu_);
  auto& v = kept_[file];
  v.clear();
  KeptWrite k;
  k.w = {0, size, -std::numeric_limits<double>::infinity()};
  v.push_back(std::move(k));
}

void Fs::keep_write(int fd, FileId file, uint64_t seq, double t, uint64_t off, uint64_t n) {
  KeptWrite k;
  k.seq = seq + 1;
  k.w = {off, n, t};
  struct stat st {};
  if (!opt_.discard && fstat(fd, &st) == 0 && off < static_cast<uint64_t>(st.st_size)) {
    // An overwrite: keep what it replaces, in case it never becomes durable.
    uint64_t m = std::min<uint64_t>(n, static_cast<uint64_t>(st.st_size) - off);
    std::lock_guard lk(keep_mu_);
    if (kept_old_bytes_ + m <= kMaxKeptOld) {
      k.old.resize(m);
      ssize_t r = pread(fd, k.old.data(), m, static_cast<off_t>(off));
      k.old.resize(r > 0 ? static_cast<size_t>(r) : 0);
      kept_old_bytes_ += k.old.size();
    } else {
      kept_full_ = true;
    }
    kept_[file].push_back(std::move(k));
    return;
  }
  std::lock_guard lk(keep_mu_);
  kept_[file].push_back(std::move(k));
}

void Fs::apply_to_file(int fd, const SurvivingFile& sf) {
  if (!opt_.discard) {
    std::vector<KeptWrite> kw;
    {
      std::lock_guard lk(keep_mu_);
      if (auto it = kept_.find(sf.file); it != kept_.end()) kw = it->second;
    }
    std::sort(kw.begin(), kw.end(), [](const KeptWrite& a, const KeptWrite& b) { return a.seq < b.seq; });
    std::vector<AppWrite> writes;
    writes.reserve(kw.size());
    for (const auto& k : kw) writes.push_back(k.w);
    // Writes that replaced bytes, in issue order: the first one after write
    // k over a byte holds k's version of it; none: the file holds it now.
    std::vector<size_t> overwrites;
    for (size_t j = 0; j < kw.size(); ++j)
      if (!kw[j].old.empty()) overwrites.push_back(j);
    struct stat st {};
    uint64_t size_now = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    for (const Piece& p : resolve_contents(sf, writes)) {
      if (p.write < 0) {
        // Never durable: zeros (past the current end, the truncate below makes them).
        uint64_t end = std::min(p.offset + p.bytes, size_now);
        if (p.offset < end) write_zeros(fd, p.offset, end - p.offset);
        continue;
      }
      std::vector<std::pair<uint64_t, uint64_t>> done;  // parts restored already
      for (size_t j : overwrites) {
        if (j <= static_cast<size_t>(p.write)) continue;
        const KeptWrite& o = kw[j];
        uint64_t x = std::max(p.offset, o.w.offset), y = std::min(p.offset + p.bytes, o.w.offset + o.old.size());
        if (x >= y) continue;
        // Only the parts no earlier overwrite restored.
        std::vector<std::pair<uint64_t, uint64_t>> todo = {{x, y}};
        for (const auto& [a, b] : done) {
          std::vector<std::pair<uint64_t, uint64_t>> next;
          for (const auto& [u, v] : todo) {
            if (b <= u || a >= v) next.emplace_back(u, v);
            else {
              if (u < a) next.emplace_back(u, a);
              if (b < v) next.emplace_back(b, v);
            }
          }
          todo = std::move(next);
        }
        for (const auto& [u, v] : todo) write_all(fd, o.old.data() + (u - o.w.offset), v - u, u);
        done.emplace_back(x, y);
      }
    }
  }
  if (ftruncate(fd, static_cast<off_t>(sf.length)) != 0) {
    fmt::print(stderr, "streamdisk: power loss: cannot set a backing file's length: {}\n", std::strerror(errno));
  }
}

void Fs::apply_power_loss() {
  if (!keep_ || power_applied_.load()) return;
  std::unique_lock pl(power_mu_);  // no write is between its submission and its pwrite
  if (power_applied_.load()) return;
  PowerLossImage img;
  {
    std::lock_guard lk(model_mu_);
    double t = faults_.power_lost_at();
    if (t == std::numeric_limits<double>::infinity()) return;  // gone, not a power loss
    img = model_.power_loss_image(t);
  }
  power_applied_ = true;
  power_lost_at_ = img.time;
  namespace fs = std::filesystem;
  std::string root = proc_path(inodes_.root()->fd);
  std::error_code ec;
  std::vector<std::pair<fs::path, const SurvivingFile*>> found;
  // The model knows files by inode number, which names a file only on one
  // filesystem: another one mounted inside the backing directory is not
  // entered (its files, the user's, may have the same numbers).
  struct stat root_st {};
  if (stat(root.c_str(), &root_st) != 0) return;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;
    if (st.st_dev != root_st.st_dev) {
      if (S_ISDIR(st.st_mode)) it.disable_recursion_pending();
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (const SurvivingFile* sf = img.find(static_cast<FileId>(st.st_ino))) found.emplace_back(it->path(), sf);
  }
  for (const auto& [path, sf] : found) {
    PowerLossFile r;
    r.path = path.lexically_relative(root).string();
    r.exists = sf->exists;
    r.written = sf->size_at_loss;
    if (!sf->exists) {
      fs::remove(path, ec);
    } else {
      int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) continue;
      apply_to_file(fd, *sf);
      ::fsync(fd);
      ::close(fd);
      r.length = sf->length;
      r.data_bytes = sf->data_bytes();
    }
    power_files_.push_back(std::move(r));
  }
  std::sort(power_files_.begin(), power_files_.end(),
            [](const PowerLossFile& a, const PowerLossFile& b) { return a.path < b.path; });
}

}  // namespace sd::fusefs
