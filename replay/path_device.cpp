#include "replay/path_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace sd {

PathDevice::~PathDevice() {
  for (auto& [id, fd] : fds_) ::close(fd);
}

Status PathDevice::check_dir() const {
  struct stat st {};
  if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error(fmt::format("--target '{}' is not a directory (create it first)", dir_));
  if (::access(dir_.c_str(), W_OK) != 0)
    return Status::error(fmt::format("--target '{}' is not writable (choose a directory you can write to)", dir_));
  return {};
}

std::string PathDevice::path_of(FileId id) const { return fmt::format("{}/replay-{}.dat", dir_, id); }

int PathDevice::fd_for(FileId id, bool create, int& err) {
  if (auto it = fds_.find(id); it != fds_.end()) return it->second;
  std::string p = path_of(id);
  int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0);
  int fd = ::open(p.c_str(), flags, 0644);
  if (fd < 0) {
    err = errno;
    return -1;
  }
  if (create && std::find(made_.begin(), made_.end(), p) == made_.end()) made_.push_back(p);
  fds_[id] = fd;
  return fd;
}

Completion PathDevice::submit(const Op& op, double now) {
  int err = 0;
  uint64_t bytes = 0;
  int fd = fd_for(op.file, op.kind == OpKind::Create, err);
  if (fd >= 0) {
    switch (op.kind) {
      case OpKind::Create: break;
      case OpKind::Write:
      case OpKind::Read: {
        if (buf_.size() < std::min<uint64_t>(op.bytes, 8u << 20)) {
          buf_.resize(std::min<uint64_t>(op.bytes, 8u << 20));
          for (size_t i = 0; i < buf_.size(); ++i) buf_[i] = static_cast<char>(i * 131 + 7);  // not all zeros
        }
        while (bytes < op.bytes) {
          size_t n = std::min<uint64_t>(op.bytes - bytes, buf_.size());
          ssize_t r = op.kind == OpKind::Write ? ::pwrite(fd, buf_.data(), n, static_cast<off_t>(op.offset + bytes))
                                               : ::pread(fd, buf_.data(), n, static_cast<off_t>(op.offset + bytes));
          if (r < 0 && errno == EINTR) continue;
          if (r <= 0) {
            err = r < 0 ? errno : 0;
            break;
          }
          bytes += static_cast<uint64_t>(r);
        }
        break;
      }
      case OpKind::Fsync:
        if (::fsync(fd) != 0) err = errno;
        break;
      case OpKind::Truncate:
        if (::ftruncate(fd, static_cast<off_t>(op.bytes)) != 0) err = errno;
        break;
      case OpKind::Close:
        ::close(fd);
        fds_.erase(op.file);
        break;
      case OpKind::Remove:
        ::close(fd);
        fds_.erase(op.file);
        if (::unlink(path_of(op.file).c_str()) != 0) err = errno;
        break;
    }
  }
  return {std::max(now, clock_.now()), err, bytes};
}

void PathDevice::cleanup(bool keep) {
  for (auto& [id, fd] : fds_) ::close(fd);
  fds_.clear();
  if (!keep)
    for (const auto& p : made_) ::unlink(p.c_str());
  made_.clear();
}

}  // namespace sd
