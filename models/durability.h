// The durability model: what a power loss at time T leaves on the emulated
// device, per file: whether the file exists, its length, and which byte
// ranges hold data (the rest of the length reads as zeros). DESIGN.md
// "Faults and durability": the model's own layers answer it.
//
//   host        data the application wrote sits in the page cache until its
//               writeback request completed on the device (HostCache; O_DIRECT
//               and cache-less hosts write straight down);
//   device      an acknowledged request may still sit in the device's volatile
//               write cache (write_cache_bytes, the newest bytes): it is on
//               media once it is write_cache_destage_ms old, once that many
//               newer bytes pushed it out, or after an honest flush
//               (flush_honest = 0: a flush empties nothing);
//   filesystem  a file's length and directory entry become durable by the
//               driver's rule:
//                 journal   (a kernel filesystem with journal_commit_ms, ext4
//                           data=ordered): at each commit, the lengths its data
//                           writeback reached when the commit started; a file
//                           created after the last commit does not exist;
//                           fsync commits at once;
//                 with data (a kernel filesystem without a journal, FAT32 and
//                           exFAT in the kernel): the directory entry is written
//                           back with the file's data, so the length is the end
//                           of the data on media; a file none of whose data
//                           reached media does not exist;
//                 at close  (a userspace driver, userspace = 1: exfat-fuse,
//                           ntfs-3g): the entry is written at create, the length
//                           only at close and fsync: an unclosed file survives
//                           with the length of its last close/fsync (0).
//   fsync/fdatasync of a file drains its data, commits (journal) and flushes.
//
// Contents: a surviving range holds what the application had written there
// when the device request that made it durable started (the page cache sends
// the page as it is then). resolve_contents() turns that into which write
// each byte comes from, for callers that keep the writes (simulate keeps
// header bytes, the mount keeps what overwrites replaced).
//
// Times are seconds on the device's clock. Not thread-safe (the model's lock).
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/device.h"
#include "models/params.h"

namespace sd {

enum class LengthRule : uint8_t { Journal, WithData, AtClose };
std::string_view length_rule_name(LengthRule r);  // "journal commit", ...

struct DurabilityParams {
  double cache_bytes = 0;   // device write_cache_bytes
  double destage_s = 1;     // write_cache_destage_ms / 1000
  bool flush_honest = true;
  LengthRule rule = LengthRule::WithData;
  static DurabilityParams of(const LayerParams& fs, const LayerParams& device);
};

// A byte range that survives, and when the device request that made it
// durable started (it holds what was written before then).
struct DurableRange {
  uint64_t offset = 0, bytes = 0;
  double sent = 0;
};

struct SurvivingFile {
  FileId file = 0;
  bool exists = false;
  uint64_t length = 0;           // the length the filesystem will report
  uint64_t size_at_loss = 0;     // the length the application saw at the power loss
  std::vector<DurableRange> ranges;  // in the order they became durable (later ones win)
  uint64_t data_bytes() const;   // bytes of [0, length) that hold data (not zeros)
};

struct PowerLossImage {
  double time = 0;
  std::vector<SurvivingFile> files;  // every file the log knows, by id
  const SurvivingFile* find(FileId f) const;
};

class DurabilityLog {
 public:
  explicit DurabilityLog(DurabilityParams p) : p_(p) {}
  const DurabilityParams& params() const { return p_; }

  // ---- what happened (ModelDevice and FsLayer call these) ----
  void created(FileId f, double t);
  void existing(FileId f, uint64_t size);  // on the storage before the run: durable as it is
  void resized(FileId f, uint64_t size, double t);  // truncate (down or up)
  void grew(FileId f, uint64_t size) { files_[f].size = size; }  // a write moved the length
  // A data request of `file` the device acknowledged at `end` (started at `start`).
  void device_write(FileId f, uint64_t offset, uint64_t bytes, double start, double end);
  // A journal commit: lengths as of `start` are durable once `done` is on media.
  void commit(double start, double done);
  // fsync/fdatasync of `f` returned at `done` (its data is on the device by then).
  void synced(FileId f, double done);
  void closed(FileId f, double t);
  void removed(FileId f, double t);

  // ---- the answer (sorts its logs first, hence not const) ----
  PowerLossImage at(double t);

 private:
  struct Write {
    uint64_t offset, bytes;
    double start, end;
  };
  struct File {
    bool existing = false;
    uint64_t existing_size = 0;
    double created = 0;
    double removed = std::numeric_limits<double>::infinity();
    uint64_t size = 0;  // the application's length now
    std::vector<Write> writes;
    std::vector<std::pair<double, uint64_t>> truncs;       // (time, new size)
    std::vector<std::pair<double, uint64_t>> size_points;  // close/fsync: (time, length then)
    std::vector<std::pair<double, uint64_t>> sync_points;  // fsync only
  };
  bool on_media(double accepted, double t) const;
  // Length on the device as of `s` (journal: the disksize a commit records).
  uint64_t disk_size(const File& f, double s, double t, bool need_media) const;
  SurvivingFile image_of(FileId id, const File& f, double t) const;

  DurabilityParams p_;
  std::map<FileId, File> files_;
  std::vector<std::pair<double, double>> accepted_;  // (end, bytes) of every data request
  std::vector<std::pair<double, double>> commits_;   // (start, done): commits and fsyncs
  std::vector<double> flushes_;                      // honest flushes' times
  bool sorted_ = true;
};

// Which application write each byte of a surviving file holds.
struct AppWrite {
  uint64_t offset = 0, bytes = 0;
  double t = 0;  // when it was issued
};
struct Piece {
  uint64_t offset = 0, bytes = 0;
  int64_t write = -1;  // index into the writes given, or -1: zeros
};
// `writes` are one file's writes in issue order; for a file that existed
// before the run, writes[0] is its old content ({0, size, -infinity}).
// Returns pieces covering [0, sf.length) in offset order.
std::vector<Piece> resolve_contents(const SurvivingFile& sf, const std::vector<AppWrite>& writes);

}  // namespace sd
