// The host layer: the OS page cache. A buffered write is copied at memory
// speed while the dirty data stays under the throttle point (Linux's freerun
// ceiling, halfway between dirty_background_bytes and dirty_limit_bytes; the
// limit itself without a background level); writeback sends
// dirty data down in chunks as soon as the device is free; a writer that
// finds the cache full waits until enough of it has reached the device.
// fsync waits until everything dirty is on the device and, with a journal,
// until the transaction it forces at once has committed. With
// dirty_limit_bytes = 0 (or O_DIRECT) writes go straight down.
//
// Writeback works per file, like Linux's per-inode writeback
// (write_cache_pages): it takes the file whose dirty data is oldest and
// sends that file's dirty data in offset order from where its last
// writeback stopped (wrapping around, like the kernel's writeback_index),
// contiguous ranges merged into one request of up to writeback_chunk_bytes,
// then moves on. A
// one-file-per-channel recorder's interleaved writes therefore reach the
// device as long runs per file, not in the order they were issued. Up to
// writeback_queue_bytes (at least one chunk) are submitted at once; the
// device serves them in order.
//
// With wbt_queue_depth (Linux's writeback throttling, block/blk-wbt.c, read
// off the device by characterize) the queue is what wbt allows writeback
// instead: its background depth of requests of up to writeback_request_bytes
// when the filesystem marks its writeback as background (REQ_BACKGROUND:
// mpage, iomap, a block device's page cache), its normal depth, twice that,
// when it does not (ext4's own bios; filesystem writeback_background = 0).
// That depth starts at a quarter (half) of 16 requests (of at most the queue
// depth) when writeback starts after an idle spell and, with writes only,
// doubles every 100 ms window towards a quarter (half) of 3/4 of the queue
// depth (on a loop device of depth 128: 4, 8, 16, 24 requests, 5 to 30 MiB
// of 1.25 MiB requests; unmarked 8, 16, 31, 48, up to 60 MiB); without
// writeback it steps back one step per 0.5 s idle. Writeback then submits as much of its chunk as
// the queue has room for (at least one request), so on a USB stick of depth 1
// a commit waits for about one request, on a loop device for tens of MiB.
//
// A kernel filesystem with a journal (FsLayer::journal_commit_s > 0, ext4)
// commits every interval after the first write of a transaction. The commit
// waits for every writeback request submitted before it (data=ordered); a
// buffered write arriving meanwhile waits too (its mtime update needs the
// inode's journal buffer, which the commit holds), before it is copied. So a
// device pause or a writeback backlog reaches the writer's own call whatever
// room the page cache has. The commit's own journal blocks are not charged.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <unordered_map>

#include "models/file_table.h"
#include "models/fs_layer.h"
#include "models/params.h"
#include "models/ring.h"

namespace sd {

class HostCache {
 public:
  // `seed` draws the phases of the kernel's timers (the flusher's periodic
  // wake-up, the journal's first commit) relative to the recording's start:
  // Linux's timers run whatever the recorder does, so their phase is random.
  // Without `random_phases` both start at 0 (analytic helpers, tests).
  HostCache(const LayerParams& p, FsLayer& fs, const FileTable& files, uint64_t seed = 1, bool random_phases = false);
  // True if the host layer has timers whose phase the seed draws (so seeds
  // matter even without random stalls).
  static bool has_random_phases(const LayerParams& host, const LayerParams& fs);

  bool enabled() const { return limit_ > 0; }
  // The background level Linux uses: half the dirty limit when it is set at or
  // above it (domain_dirty_limits), else as set.
  static double effective_background(double background, double limit) {
    return limit > 0 && background >= limit ? limit / 2 : background;
  }
  // Where a writer starts being held (Linux's freerun ceiling): halfway
  // between the background level (as effective_background gives it) and the
  // limit; the limit itself without a background level.
  static double freerun_ceiling(double background, double limit) {
    return background > 0 ? (background + limit) / 2 : limit;
  }
  // wbt's depth (requests) on a queue of depth `queue_depth` after `windows`
  // 100 ms windows of writeback (its scale step -windows), for writeback
  // marked as background (REQ_BACKGROUND) or, `background` false, unmarked.
  static int wbt_depth(double queue_depth, int windows, bool background);
  // A buffered write of `bytes` issued at `now` (after the syscall cost);
  // returns when the call returns to the application.
  double write(FileId file, uint64_t offset, uint64_t bytes, double now);
  // Returns when every dirty byte issued before `now` is on the device.
  double drain(double now);
  // Dirty bytes not yet on the device at time `now`.
  double dirty_at(double now);
  // The same without starting any writeback (no side effects): bytes whose
  // writeback the model has not finished by `now`, as far as it has
  // scheduled. For plots sampled during a run (web/), which must not change it.
  double dirty_scheduled(double now) const;
  double memory_rate() const { return memory_; }
  double chunk_bytes() const { return chunk_; }

  // Steady stretches (ModelDevice::steady_writes). The one extent a write
  // left dirty, waiting for writeback.
  struct Pending {
    FileId file = 0;
    uint64_t offset = 0, bytes = 0;
    double ready = 0;
  };
  // True if the cache holds nothing but that extent, every earlier writeback
  // request ends by its ready time, and writeback is the simple kind a
  // stretch steps over: from the first dirty byte (no background level), no
  // journal, no wbt, no fsync under way, no chunk under way, whole-byte chunks.
  bool steady_pending(Pending& p) const;
  // The most bytes one writeback call sends down (a chunk).
  uint64_t call_limit() const { return static_cast<uint64_t>(std::max(1.0, std::floor(chunk_))); }
  // The state after `n` more buffered writes of `bytes` each appended to
  // p.file from p.offset + p.bytes on, each issued after the writeback of
  // the one before it had ended (so each write's pump wrote that one back
  // whole, in chunks, and nothing waited); the last write's dirtied time
  // (the `now` write() got) and ready time. The filesystem and device
  // layers' part is theirs (FsLayer::skip_appends). last_end_ keeps an
  // earlier end: the next writeback, of the last extent, moves it past both.
  void skip_writes(const Pending& p, uint64_t bytes, uint64_t n, double last_now, double last_ready);
  // Writes that neither wait for the journal nor meet the throttle point:
  // write() would pump, copy and return at now + bytes / memory_rate(). True
  // (and the bytes buffered writes may add before the throttle point, with
  // the dirty amount as it stands, which pumping only lowers) if there is
  // no journal; write_unthrottled is then write() given its return time.
  bool unthrottled_room(double& bytes) const;
  void write_unthrottled(FileId file, uint64_t offset, uint64_t bytes, double now, double ready);
  // The same for the writes of a stretch appending to `file` from `offset`
  // on, the first one ready at `first_ready`, when appends(...) is true:
  // writeback is the simple kind (no background level, wbt, journal or
  // pacing, whole-byte chunks) and the dirty extents are that file's alone,
  // contiguous up to `offset`, in offset order, each ready no later than the
  // next. Writeback then takes the oldest extents ready by its start, up to
  // a chunk, every time (what pump()'s searches find there, traced through
  // them), and append_run takes them so, without the searches: n writes of
  // `bytes` from `offset` on, each committed to `files` (the table this
  // cache reads) and then as write_unthrottled(..., times[2 i], times[2 i + 1]).
  bool appends(FileId file, uint64_t offset, double first_ready) const;
  void append_run(FileTable& files, FileId file, uint64_t offset, uint64_t bytes, uint64_t n, const double* times);

 private:
  struct Extent {
    FileId file;
    uint64_t offset, bytes;
    double ready;  // when it became dirty
    bool live;     // false once written back (it leaves the queue lazily)
  };
  struct InFlight {
    double end;
    uint64_t bytes;
    double busy;  // the device's time writing it, ending at `end` (from its start or the previous request's end; pauses it met come first)
  };
  // Starts writeback chunks whose start time is <= until, and the journal
  // commits due by then, in time order.
  void pump(double until);
  void pump_appends(FileId file, double until);  // pump() where appends() holds
  struct FileQueue;
  // Sends [offset, offset + bytes) of `file` down at `start` (a chunk pump() took from `fq`).
  void send(FileQueue& fq, FileId file, uint64_t offset, uint64_t bytes, double start);
  // The earliest time at or after t0 that `bytes` more can be submitted (queue room).
  double slot_time(double bytes, double t0) const;
  // Bytes writeback may have in flight at t (writeback_queue_bytes, or wbt's depth).
  double queue_at(double t) const;
  double inflight_at(double t) const;  // submitted bytes not finished by t
  double wbt_window(double t) const;   // wbt's 100 ms windows since burst_start_ (may be < 0)
  int wbt_step_at(double t) const;     // the same, within 0..wbt_windows_: how far wbt has scaled up
  // Commits due at or before `t` (and before any chunk issued after them).
  void commit_until(double t);
  // When a buffered write arriving at `now` may proceed past the journal.
  double journal_wait(double now);
  void retire(double until);
  double next_event() const;  // earliest time the dirty amount can change
  void drop_dead();            // pops written-back extents off the queue's front
  // The bytes a write copied into the cache from `now` until `ready` become dirty.
  void add_dirty(FileId file, uint64_t offset, uint64_t bytes, double now, double ready);
  Extent& extent(uint64_t id) { return queued_[id - base_]; }
  // Linux's dirty pacing above the freerun ceiling (dirty_pacing = 1): when
  // a write of `b` bytes arriving at `t` may be copied.
  double paced(double b, double t);
  // Bytes of the requests in flight the device has written by t, counted in
  // whole units of `unit` bytes (0: byte by byte; a unit as large as a piece,
  // infinity included: the piece only once it has ended), and when (at or
  // after t) it will have written `bytes` of them so counted.
  double served(double t, double unit = 0) const;
  double served_by(double bytes, double t, double unit = 0) const;
  double max_pause() const;  // balance_dirty_pages' longest pause for a writer held at the limit
  double bandwidth() const;                   // writeback's completed bytes/s, averaged
  void count_done(double busy, double bytes);  // a writeback request ended
  static constexpr double kBandwidthS = 3.0;   // Linux averages write bandwidth over ~3 s
  static constexpr double kMaxPauseS = 0.2;    // balance_dirty_pages' longest single pause
  static constexpr double kInitBandwidth = 100e6;  // its starting estimate (INIT_BW, 100 MB/s)
  bool pacing_ = false;
  double paced_from_ = 0;       // the writer's pacing clock (Linux's dirty_paused_when)
  double bw_bytes_ = 0, bw_time_ = 0;  // bandwidth estimate: decayed bytes over decayed busy time
  // count_done's last decays (busy time -> factor): a device kept busy by
  // pieces of one size ends them a few distinct busy times apart, and exp()
  // was a sixth of a long recording's CPU. Exact: the same argument gives
  // the same factor.
  double keep_busy_[2] = {-1, -1}, keep_[2] = {1, 1};
  double release_unit_ = 0;     // pages leave the dirty count a request at a time (writeback_request_bytes; else whole pieces)

  FsLayer& fs_;
  const FileTable& files_;
  double limit_, throttle_ = 0, memory_, chunk_, queue_, background_, expire_, interval_;
  double wb_phase_ = 0;         // the flusher wakes at wb_phase_ + k * interval_
  double first_commit_ = -1;    // delay of the first transaction's commit (< 0: journal_s_)
  bool draining_ = false;  // fsync: everything goes down now (from drain_from_ on)
  double drain_from_ = 0;
  // When the dirty data last reached the background level (the flusher is
  // woken then, not when the oldest of it was dirtied).
  double over_bg_since_ = 0;
  // When writeback may start its next chunk and from which file (false if
  // nothing is dirty). Over the background level (or without one) and when
  // draining: the file with the oldest dirty data, as soon as it is dirty and
  // the queue has room. Below it: a file whose dirty data has aged past
  // dirty_expire_ms goes down whole, at the flusher's next periodic wake-up,
  // until it is clean (Linux's kupdate writeback, per inode).
  bool next_chunk(double& start, FileId& file) const;
  double tick(double t) const;  // the flusher's next wake-up at or after t
  // Journal commits: the next one's time (when a transaction is open), and
  // the windows [start, done) during which writers wait.
  double journal_s_;
  bool txn_open_ = false;
  double next_commit_ = 0;
  struct Commit {
    double start, done;
  };
  std::deque<Commit> commits_;
  Ring<Extent> queued_;  // in the order they became dirty; ids count from base_
  uint64_t base_ = 0;
  // Each file's queued extents (ids, in the order they became dirty, with
  // written-back ones skipped lazily) and where its last writeback ended.
  struct FileQueue {
    Ring<uint64_t> ids;
    uint64_t next = 0;
    double bytes = 0;  // dirty, not yet sent down
    double since = 0;  // when it last went from clean to dirty (the inode's dirtied_when)
  };
  std::unordered_map<FileId, FileQueue> by_file_;  // entries stay (references remain valid)
  FileQueue& queue_of(FileId f);
  FileId last_file_ = 0;
  FileQueue* last_queue_ = nullptr;
  // The ready time of `fq`'s oldest live extent (infinity if none).
  double oldest_ready(const FileQueue& fq) const;
  // The extent of `fq` that writeback takes first at `start`; ids.size() if none.
  size_t first_extent(FileQueue& fq, double start);
  // An extent of `fq` that continues at `offset` and is dirty by `start`, after position `after`.
  size_t continuation(const FileQueue& fq, size_t after, uint64_t offset, double start);
  // Writeback throttling (wbt_queue_depth > 0): the request size, the
  // scale-up clock of the current writeback activity (its windows count from
  // burst_start_, up to wbt_windows_ where the depth stops growing) and the end
  // of the latest writeback request.
  double wbt_qd_ = 0, request_ = 0, burst_start_ = 0, wb_last_end_ = -1e300;
  int wbt_windows_ = 0;
  bool wbt_background_ = true;  // the filesystem marks its writeback as background
  // The kernel writes up to a chunk of one file before it moves on; with wbt
  // that chunk goes down in pieces as the queue has room.
  FileId pass_file_ = 0;
  double pass_left_ = 0;
  Ring<InFlight> inflight_;
  double queued_bytes_ = 0, inflight_bytes_ = 0;
  double last_end_ = 0;  // end of the latest writeback chunk issued
};

}  // namespace sd
