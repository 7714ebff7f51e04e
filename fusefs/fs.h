// The filesystem behind `streamdisk mount` (internal to fusefs/).
//
// Every data operation goes through one shared ModelDevice (one emulated
// device per mount: all files and threads share its queue, cache and fill
// level). A worker computes the completion time under model_mu_, does the
// real I/O on the backing file, and parks the reply in the ReplyScheduler,
// which sends it at that time. Metadata operations pass through to the
// backing directory and are answered at once (their model cost, if any, is
// the create cost, answered like a write).
//
// Locks (apart from power_mu_, no code path holds two of them at once):
// InodeTable's mutex (inodes), model_mu_ (the model and issue order, the
// fault schedule), ReplyScheduler's mutex (parked replies), trace_mu_ (the
// trace writer and the completion-error samples), keep_mu_ (the writes kept
// for a power loss). power_mu_ is taken before any of them: shared by a
// write from its submission to its pwrite, exclusive while a power loss
// rewrites the backing files (fs_powerloss.cpp).
#pragma once
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "fusefs/channel.h"
#include "fusefs/inode_table.h"
#include "fusefs/mount.h"
#include "fusefs/reply_scheduler.h"
#include "fusefs/semantics.h"
#include "models/fault.h"
#include "models/model_device.h"
#include "models/trace.h"

namespace sd::fusefs {

// How long the kernel may cache attributes and entries (s): the backing
// directory is ours while mounted, so nothing changes them behind our back.
inline constexpr double kAttrTimeout = 1.0;

// An open file: the backing descriptor and how the application opened it.
struct Handle {
  int fd = -1;
  bool direct = false;  // O_DIRECT: the model bypasses the emulated page cache
  bool sync = false;    // O_SYNC/O_DSYNC: each write is followed by a flush in the model
};

// An operation submitted to the model, at `start`, answered at `c.done`.
struct Issued {
  Op op;
  double start = 0;
  Completion c;
  int depth = 1;  // replies parked at issue, plus this one
  int thread = 0;  // the caller's thread id
  uint64_t seq = 0;  // issue order
};

class Fs {
 public:
  Fs(const MountOptions& opt, int root_fd);
  ~Fs();
  static const fuse_lowlevel_ops& ops();  // the callback table (fs_lowlevel.cpp)
  Channel& channel() { return channel_; }

  // Opens the trace (if any) before mounting.
  Status open_trace();
  // Sends every parked reply, closes the trace (call after the loop ends).
  Status shutdown();
  MountSummary summary();
  // For the status line.
  struct Snapshot {
    double now, bytes_written;
    ModelState model;
    size_t waiting;
  };
  Snapshot snapshot();
  // Fault events from index `from` on (status line), and the control.
  std::vector<FaultEvent> fault_events(size_t from);
  int add_fault(const std::string& spec);  // 0 or EINVAL (bad spec)
  // Once a gone fault fired: the errno every call gets (0 before). Checked
  // before a call touches the backing directory.
  int gone();
  // The control (fs_control.cpp): setting kFaultXattr on the root adds a
  // fault (0 or EINVAL); other attributes go to setxattr below.
  static bool is_control(Ino ino, const char* name);
  int control(const char* value, size_t size);
  // Once a powerloss fault fired: makes the backing files what the durability
  // model says survived (once; later calls return at once). Called by the
  // first call that finds the device gone, the status line and shutdown.
  void apply_power_loss();

  // ---- metadata (fs_meta.cpp); return 0 or an errno ----
  int lookup(Ino parent, const char* name, fuse_entry_param& e);
  void forget(Ino ino, uint64_t n);
  int getattr(Ino ino, struct stat& st);
  int setattr(fuse_req_t req, Ino ino, struct stat* attr, int to_set, fuse_file_info* fi, struct stat& out);
  int mkdir(Ino parent, const char* name, mode_t mode, fuse_entry_param& e);
  int unlink(Ino parent, const char* name);
  int rmdir(Ino parent, const char* name);
  int rename(Ino parent, const char* name, Ino newparent, const char* newname, unsigned flags);
  int opendir(Ino ino, fuse_file_info* fi);
  void readdir(fuse_req_t req, Ino ino, size_t size, off_t off, fuse_file_info* fi);  // replies
  void releasedir(fuse_file_info* fi);
  int statfs(struct statvfs& sv);
  // Links and extended attributes (fs_links.cpp), as the emulated
  // filesystem's driver answers them (Semantics).
  int symlink(const char* target, Ino parent, const char* name, fuse_entry_param& e);
  int readlink(Ino ino, std::string& out);
  int link(Ino ino, Ino newparent, const char* newname, fuse_entry_param& e);
  void setxattr(fuse_req_t req, Ino ino, const char* name, const char* value, size_t size, int flags);
  void getxattr(fuse_req_t req, Ino ino, const char* name, size_t size);
  void listxattr(fuse_req_t req, Ino ino, size_t size);
  void removexattr(fuse_req_t req, Ino ino, const char* name);

  // ---- data (fs_data.cpp); each replies exactly once ----
  void open(fuse_req_t req, Ino ino, fuse_file_info* fi);
  void create(fuse_req_t req, Ino parent, const char* name, mode_t mode, fuse_file_info* fi);
  void write(fuse_req_t req, Ino ino, const char* buf, size_t size, off_t off, fuse_file_info* fi);
  void read(fuse_req_t req, Ino ino, size_t size, off_t off, fuse_file_info* fi);
  void fsync(fuse_req_t req, Ino ino, int datasync, fuse_file_info* fi);
  void release(fuse_req_t req, Ino ino, fuse_file_info* fi);
  void fallocate(fuse_req_t req, Ino ino, int mode, off_t off, off_t len, fuse_file_info* fi);

 private:
  Inode* inode(Ino ino) { return inodes_.get(ino); }
  // Looks `name` up in the backing directory and fills the entry. With
  // register_in_model, a regular file the model does not know yet joins it.
  int entry_for(Inode* parent, const char* name, fuse_entry_param& e, bool register_in_model = true);
  int stat_inode(Inode* in, struct stat& st);
  // What the emulated filesystem shows for a backing object's stat:
  // mode and owner (permissions), timestamps (time_resolution_us).
  void present(struct stat& st) const;
  // The name `name` has in the backing directory of `parent`: itself, or
  // with case_insensitive an existing entry that matches it without case.
  std::string backing_name(Inode* parent, const char* name);
  // Makes sure a regular file found in the backing directory is a file of
  // the model (registered as created, at its current size).
  void ensure_in_model(Inode* in, uint64_t size, int thread);
  // Submits `op` under model_mu_, with the issue time read inside the lock
  // so issue order = submission order (the trace replays exactly).
  Issued submit(const Op& op, int thread);
  void note_reply(int thread, double t);  // `thread`'s request completed (in the model) at t
  // Answers at `due` (>= is.c.done) with `send`; records the trace row and
  // the completion error once it is sent.
  void answer(const Issued& is, double due, int error, uint64_t bytes, std::function<void()> send);
  // A model op whose reply was already sent (or needs none): trace only.
  void record(const Issued& is, double end, int error, uint64_t bytes);
  std::string proc_path(int fd) const;
  // Fills fi for an open file: direct_io, unless shared mappings of direct_io
  // files are refused (see channel.h) and the file is opened read-write.
  void set_open_reply(fuse_file_info* fi, Handle* h) const;
  // Power loss (fs_powerloss.cpp): with keep_, every write's place and time
  // and the bytes an overwrite replaced, recorded before its pwrite.
  void keep_write(int fd, FileId file, uint64_t seq, double t, uint64_t off, uint64_t n);
  void keep_existing(FileId file, uint64_t size);
  // Rewrites one backing file (opened O_RDWR) to what `sf` says survived.
  void apply_to_file(int fd, const SurvivingFile& sf);

  const MountOptions& opt_;
  Channel channel_;
  const Semantics sem_;
  RealClock clock_;  // zero at mount
  InodeTable inodes_;
  std::mutex model_mu_;  // guards model_
  ModelDevice model_;
  FaultSchedule faults_;  // model_mu_
  FaultDevice device_;    // model_ behind faults_; model_mu_
  std::atomic<int> gone_{0};
  std::atomic<double> gone_at_{0};  // faults_.gone_time(), readable without model_mu_
  std::unordered_map<int, double> last_reply_;  // caller thread -> its last modelled completion (s); model_mu_
  double last_issue_ = 0;                       // model_mu_
  uint64_t next_seq_ = 0;                       // model_mu_
  ReplyScheduler sched_;
  std::mutex trace_mu_;  // guards trace_, trace_pending_, trace_next_, late_*
  TraceWriter trace_;
  std::map<uint64_t, TraceRecord> trace_pending_;  // answered, waiting for earlier issues
  uint64_t trace_next_ = 0;                        // the next seq to write
  std::vector<float> late_;  // reply - modelled (s), capped at kMaxSamples
  double late_max_ = 0;
  uint64_t late_count_ = 0;
  std::atomic<uint64_t> writes_{0}, reads_{0}, other_{0}, written_{0}, read_bytes_{0};
  std::atomic<uint64_t> enospc_{0}, efbig_{0}, errors_{0};
  // ---- power loss ----
  struct KeptWrite {
    uint64_t seq = 0;  // issue order (0: what the file held before the mount)
    AppWrite w;
    std::vector<char> old;  // the bytes it replaced (overwrites only)
  };
  bool keep_ = false;           // the durability log and kept_ are kept
  std::shared_mutex power_mu_;  // see the lock notes at the top
  std::mutex keep_mu_;          // guards kept_, kept_old_bytes_, kept_full_
  std::unordered_map<FileId, std::vector<KeptWrite>> kept_;
  uint64_t kept_old_bytes_ = 0;
  bool kept_full_ = false;               // past the cap: rewritten ranges may hold later bytes
  std::atomic<bool> power_applied_{false};
  std::vector<PowerLossFile> power_files_;  // power_mu_ (exclusive) writes it once
  double power_lost_at_ = -1;               // idem
};

}  // namespace sd::fusefs
