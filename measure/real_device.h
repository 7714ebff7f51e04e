// RealDevice: the Device interface on real storage (DESIGN.md: record/measure
// = workload x RealDevice x real clock; also `replay --target`). Each
// operation is performed with a system call on a file under a directory and
// completes when the call returns, timed with the given Clock (a RealClock in
// practice).
//
// Files: FileId f is "<dir>/<prefix>-<pid>-<f>.dat", or the name given with
// name_file(). A device only ever touches files it created: Create uses
// O_EXCL, so an existing file of the user is never opened, truncated or
// removed; a generated name that is taken is replaced by another
// ("<prefix>-<pid>-<f>-2.dat"...), a name given with name_file() fails with
// EEXIST. An operation on a file the device did not create fails with
// ENOENT. The owner device removes the files it created when it is destroyed
// (unless keep_files) and registers them with models/cleanup.h, so Ctrl-C
// removes them too. Devices made by sibling() (one per reader thread) share
// the owner's files and never remove them.
//
// A created file is known by its device and inode, not only its name: in a
// shared directory another program may rename a file of its own over the
// name while the run goes on. Reopening (after Close, for O_DIRECT, a sibling's
// first read) checks that the name still refers to that file, a second
// Create empties the file with ftruncate on a checked descriptor (never
// O_TRUNC by name), and removal goes through remove_if_same
// (models/output_file.h). A name that has changed hands is left alone: the
// device forgets the file (its operations fail with ESTALE, then ENOENT) and
// says so once through `warn`.
//
// O_DIRECT: an operation with Op::direct uses a file descriptor opened with
// O_DIRECT and a page-aligned buffer. open() probes whether the filesystem
// accepts O_DIRECT; where it refuses (tmpfs, most FUSE mounts) or probe_direct
// is off, the device falls back to buffered I/O and says so in direct_note().
//
// Data: a write stores Op::data when given (record's headers and samples),
// else a fixed pseudo-random pattern (so compressing storage cannot cheat).
//
// Threading: one device per thread; the Clock's now() must be thread-safe.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "models/device.h"
#include "measure/fs_info.h"
#include "models/output_file.h"
#include "models/status.h"

namespace sd {

struct RealDeviceOptions {
  std::string dir;                       // an existing, writable directory
  std::string prefix = "streamdisk-measure";
  bool probe_direct = true;              // find out whether O_DIRECT works here
  bool keep_files = false;               // record: the files are the output, never removed
  // Once set (Ctrl-C), writes fail with ECANCELED so a workload without its
  // own cancel check (the recorder) stops at its next write. Not owned.
  const std::atomic<bool>* cancel = nullptr;
  // One line for each file left in place because its name no longer refers
  // to the file this device created (see above); unset: nothing is said,
  // the file is left alone all the same. Called from the thread that found it.
  std::function<void(const std::string&)> warn = nullptr;
};

class RealDevice final : public Device {
 public:
  // Fails with a message naming `dir` if it is missing or not writable.
  static Result<std::unique_ptr<RealDevice>> open(const RealDeviceOptions& opt, Clock& clock);
  // A device for another thread on the same directory and files (same pid
  // and prefix); it does not remove files and shares the O_DIRECT verdict.
  std::unique_ptr<RealDevice> sibling() const;
  ~RealDevice() override;
  RealDevice(const RealDevice&) = delete;
  RealDevice& operator=(const RealDevice&) = delete;

  Completion submit(const Op& op, double now) override;

  std::string path(FileId f) const;
  // Gives `f` this file name in the directory instead of a generated one
  // (record); its Create fails with EEXIST if the name is taken.
  void name_file(FileId f, std::string name);
  // O_DIRECT is accepted (the flag; see direct_bypasses for what it does).
  bool direct_works() const { return direct_ok_; }
  // O_DIRECT is accepted *and* bypasses host caching: false on a userspace
  // (FUSE) filesystem, whose driver writes through the page cache below it.
  bool direct_bypasses() const { return direct_ok_ && !fs_.userspace; }
  // Empty if O_DIRECT bypasses caching; else what was measured instead.
  const std::string& direct_note() const { return direct_note_; }
  const FsInfo& fs() const { return fs_; }
  uint32_t direct_alignment() const { return dio_align_; }         // bytes (offset and size)
  // Evicts `f` from the page cache before a timed read (fdatasync, then
  // posix_fadvise DONTNEED) and checks with mincore how much is still
  // resident. When every write to `f` really went through O_DIRECT (what
  // this device did, not what was asked: a refused O_DIRECT fell back to
  // buffered writes) it checks instead that nothing of `f` is resident and
  // that the filesystem is not a FUSE one. Returns what happened, for the
  // report: "bypassed (O_DIRECT)" only when that is true; anything that may
  // have read from memory starts with "not ".
  std::string drop_cache(FileId f);
  SpaceInfo space() const;  // statvfs of the directory
  // Removes every file this device created that still has its name (the
  // others are left alone, with a `warn` line each).
  void remove_created();

 private:
  // What the owner and its siblings share: file names and which files exist
  // because this run created them.
  struct Files {
    mutable std::mutex mu;
    std::unordered_map<FileId, std::string> names;  // given or chosen on a collision
    std::unordered_set<FileId> fixed;               // names given with name_file()
    std::unordered_set<FileId> created;
    std::unordered_map<FileId, FileIdentity> ids;  // what each created file is (fstat when it was made)
    // Bytes written to each file since it was created, through O_DIRECT and buffered.
    std::unordered_map<FileId, std::pair<uint64_t, uint64_t>> written;
  };
  RealDevice(RealDeviceOptions opt, Clock& clock, bool owner, std::shared_ptr<Files> files);
  struct Fds {
    int buffered = -1, direct = -1;
  };
  int create(FileId f, bool direct, int& err);
  int fd_for(FileId f, bool direct, int& err);
  // Opens created file `f` by name with `flags` if the name still refers to
  // it; else forgets it (lost()) and fails with ESTALE. Holds files_->mu.
  int reopen(FileId f, int flags, int& err);
  // `f`'s name has changed hands: forget the file, say so once. Holds files_->mu.
  void lost(FileId f, const std::string& why);
  // Removes created file `f` by name if it is still that file; forgets it
  // either way. Returns 0, ESTALE (left alone) or the removal's errno. Holds files_->mu.
  int remove_file(FileId f);
  void close_file(FileId f);
  char* buffer(uint64_t bytes);
  void probe_direct();

  RealDeviceOptions opt_;
  Clock& clock_;
  bool owner_;
  bool direct_ok_ = false;
  std::string direct_note_;
  FsInfo fs_;
  uint32_t dio_align_ = 4096;
  int pid_;
  std::shared_ptr<Files> files_;
  std::unordered_map<FileId, Fds> fds_;
  char* buf_ = nullptr;  // page-aligned, filled with a non-repeating pattern
  uint64_t buf_bytes_ = 0;
};

}  // namespace sd
