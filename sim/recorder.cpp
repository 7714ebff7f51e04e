#include "sim/recorder.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "models/model_device.h"
#include "models/units.h"

namespace sd {
namespace {

std::string errno_reason(int e) {
  if (e == EFBIG) return "file size limit (EFBIG)";
  if (e == ENOSPC) return "device full (ENOSPC)";
  return fmt::format("write error {}", errno_name(e));
}

// Frames per delivery: the option, else min(1024, ring frames / 8).
uint64_t period_frames_of(const RecorderConfig& cfg) {
  uint64_t cap = cfg.buffer_bytes / cfg.stream.frame_bytes();
  return cfg.period_frames ? cfg.period_frames : std::clamp<uint64_t>(cap / 8, 1, 1024);
}

// The stepped writes' times of the last recording this thread ran: their
// memory goes to the next one (a capacity search runs thousands of short
// recordings on each thread; growing the list anew in each took a sixth of
// an exfat-fuse stack's CPU, in copies).
#ifdef __wasi__
// WASI has no thread-exit destructors (__cxa_thread_atexit); its build (the
// lesson page's model) runs one thread.
std::vector<double> spare_steady_times;
#else
thread_local std::vector<double> spare_steady_times;
#endif

// One recording in progress. All times are clock times (seconds).
class Run {
 public:
  Run(Device& dev, Clock& clock, const RecorderConfig& cfg, const RecorderHooks& hooks, Layout& layout)
      : dev_(dev), clock_(clock), cfg_(cfg), hooks_(hooks), layout_(layout) {
    steady_times_.swap(spare_steady_times);  // empty, with the capacity the last one grew
    steady_times_.clear();
    // Stepping needs the model itself in virtual time, and nobody looking at
    // it or at each operation while a stretch is open.
    vclock_ = dynamic_cast<VirtualClock*>(&clock);
    if (cfg.step_steady && !hooks.trace && !hooks.payload && !hooks.sample && vclock_)
      model_ = dynamic_cast<ModelDevice*>(&dev);
    // steady_blocks() skips the progress and cancel checks (none in capacity searches).
    blocks_ = model_ && !hooks.progress && !hooks.cancel;
  }

  ~Run() {
    if (steady_times_.capacity() > spare_steady_times.capacity()) steady_times_.swap(spare_steady_times);
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  RecorderResult go();

 private:
  double time_of(uint64_t k) const { return t0_ + static_cast<double>(k) * period_s_; }
  void deliver_until(double t);
  Completion issue(const Op& op, uint32_t file);
  bool write_block(uint64_t frames);  // false: the recording stopped
  bool run_ops(const std::vector<FormatWrite>& ops);
  bool step(const std::vector<FormatWrite>& ops);  // true: the block's write was stepped over
  void steady_blocks();
  // One write of the open stretch, issued at `start`, stepped over (its times kept for the model).
  void stepped_write(double start, uint32_t file, uint64_t offset, uint64_t bytes);
  void apply_steps();
  bool create_new_files();
  void stop(std::string reason, int err);
  void report_progress();

  Device& dev_;
  Clock& clock_;
  const RecorderConfig& cfg_;
  const RecorderHooks& hooks_;
  Layout& layout_;
  RecorderResult r_;
  std::vector<FormatWrite> ops_;
  double t0_ = 0, period_s_ = 0, per_s_ = 0;  // period and its inverse
  uint64_t P_ = 0, K_ = 0;         // period frames, deliveries in the recording
  uint64_t cap_ = 0, block_ = 0;   // ring and block sizes, frames
  uint64_t k_done_ = 0, fill_ = 0;  // deliveries accounted for, frames in the ring
  double next_due_ = 0;             // time_of(k_done_ + 1), kept with k_done_
  bool in_overrun_ = false, stopped_ = false;
  double next_progress_ = 0.01;
  std::vector<uint64_t> sizes_;  // bytes actually in each file
  // The steady stretch under way (ModelDevice::steady_writes): its writes
  // stepped over so far, not yet applied to the model; the first one, the
  // last one's times. After a stretch could not start, wait `backoff_`
  // blocks (doubling) before asking again: asking costs more than a block.
  ModelDevice* model_ = nullptr;
  VirtualClock* vclock_ = nullptr;
  bool blocks_ = false;  // steady_blocks() may run
  // time_of(k) < time_of(k + 1) for every k of the recording (its rounding
  // is far below a period): deliver_until(time_of(k)) then finds k.
  bool strict_ = false;
  std::vector<FormatWrite> scratch_;  // the layout's writes for blocks steady_blocks() stepped
  SteadyWrites steady_;
  Op steady_first_;
  uint64_t steady_n_ = 0, backoff_ = 0, backoff_next_ = 1;
  std::vector<double> steady_times_;  // each stepped write's dirtied and done times
  double steady_done_ = 0;
};

// Accounts for deliveries 1..k with time_of(k) <= t. Between two calls the
// ring only fills, so the accepted periods come first and the rest drop.
void Run::deliver_until(double t) {
  if (stopped_ || k_done_ >= K_) return;
  // Nothing due yet (most looks after a block's writes): time_of is
  // nondecreasing in k, so no k > k_done_ has time_of(k) <= t.
  if (next_due_ > t) return;
  double x = (t - t0_) * per_s_;
  uint64_t k = x <= 0 ? 0 : std::min<uint64_t>(K_, static_cast<uint64_t>(x));
  while (k < K_ && time_of(k + 1) <= t) ++k;
  while (k > k_done_ && time_of(k) > t) --k;
  if (k <= k_done_) return;
  uint64_t n = k - k_done_;
  uint64_t room = (cap_ - fill_) / P_;
  uint64_t accepted = std::min(n, room), dropped = n - accepted;
  fill_ += accepted * P_;
  if (accepted > 0) in_overrun_ = false;
  if (dropped > 0) {
    if (!in_overrun_) {
      ++r_.overrun_events;
      if (!r_.first_overrun_s) r_.first_overrun_s = time_of(k_done_ + accepted + 1) - t0_;
    }
    in_overrun_ = true;
    r_.dropped_periods += dropped;
    r_.frames_lost += dropped * P_;
  }
  k_done_ = k;
  next_due_ = time_of(k + 1);
  if (dropped > 0 && cfg_.stop_at_first_overrun) {
    r_.aborted_at_overrun = true;
    stopped_ = true;
  }
}

Completion Run::issue(const Op& op, uint32_t file) {
  apply_steps();  // the model sees every operation in order
  double start = clock_.now();
  Completion c = dev_.submit(op, start);
  clock_.sleep_until(c.done);
  ++r_.ops;
  if (hooks_.trace) {
    TraceRecord rec;
    rec.start = start;
    rec.end = c.done;
    rec.op = op.kind;
    rec.file = layout_.file_names()[file];
    rec.offset = op.offset;
    rec.bytes = op.kind == OpKind::Write ? c.bytes : op.bytes;
    rec.thread = 0;
    rec.queue_depth = 1;
    rec.error = c.error;
    rec.direct = c.direct;
    hooks_.trace->write(rec);
  }
  return c;
}

void Run::apply_steps() {
  if (steady_n_ == 0) return;
  model_->skip_writes(steady_first_, steady_, steady_n_, steady_times_.data());
  steady_n_ = 0;
  steady_times_.clear();
}

// A block whose one write continues a steady stretch (or starts one) is
// stepped over: its times are those submit() would return (SteadyWrites),
// the model catches up when the stretch ends (apply_steps).
bool Run::step(const std::vector<FormatWrite>& ops) {
  if (!model_ || ops.size() != 1 || ops[0].what != FormatWrite::What::Payload) return false;
  const FormatWrite& w = ops[0];
  Op op{OpKind::Write, cfg_.first_file_id + w.file, w.offset, w.bytes, cfg_.direct};
  op.channel_arrays = w.channel == kAllChannels ? cfg_.stream.channels : 1;
  double start = clock_.now();
  if (steady_n_ > 0 &&
      (op.file != steady_first_.file || op.bytes != steady_first_.bytes ||
       op.offset != steady_first_.offset + steady_n_ * steady_first_.bytes ||
       op.channel_arrays != steady_first_.channel_arrays || steady_n_ >= steady_.max_writes ||
       !(start - steady_done_ >= steady_.min_gap)))
    apply_steps();
  if (steady_n_ == 0) {
    if (backoff_ > 0) {
      --backoff_;
      return false;
    }
    steady_ = model_->steady_writes(op, start);
    if (steady_.max_writes == 0) {
      backoff_ = backoff_next_;
      backoff_next_ = std::min<uint64_t>(backoff_next_ * 2, 64);
      return false;
    }
    backoff_next_ = 1;
    steady_first_ = op;
  }
  stepped_write(start, w.file, w.offset, w.bytes);
  return true;
}

// Inlined into the stretch's block loop: as a call it was a tenth of an
// exfat-fuse stack's capacity search (0.49-0.56 -> 0.44-0.48 s, outputs identical).
inline __attribute__((always_inline)) void Run::stepped_write(double start, uint32_t file, uint64_t offset,
                                                               uint64_t bytes) {
  double dirtied = steady_.dirtied(start);
  steady_done_ = steady_.done(dirtied);
  steady_times_.push_back(dirtied);
  steady_times_.push_back(steady_done_);
  ++steady_n_;
  vclock_->sleep_until(steady_done_);  // stepping runs in virtual time only
  ++r_.ops, ++r_.stepped_ops;
  r_.payload_bytes += bytes;
  sizes_[file] = std::max(sizes_[file], offset + bytes);
}

// The blocks that continue the open steady stretch, one after the other:
// the same steps go(), write_block() and step() take for each (the wait for
// its frames, the stepped write, the deliveries while it ran, the ring),
// without building the block's write list (the layout's appends are plain:
// Layout::plain_appends) or the checks that cannot apply (new files, hooks).
// Returns at the first block that is not one, after its wait for frames
// (which go() then finds done), or when the recording stops; the layout is
// told of the frames written.
void Run::steady_blocks() {
  Layout::PlainAppends plain;
  if (!layout_.plain_appends(plain) || steady_first_.channel_arrays != 1 ||
      steady_first_.file != cfg_.first_file_id + plain.file)
    return;
  const uint64_t fb = layout_.payload_frame_bytes(), frame_bytes = cfg_.stream.frame_bytes();
  VirtualClock& clock = *vclock_;
  uint64_t frames_done = 0;
  while (true) {
    while (!stopped_ && fill_ < block_ && k_done_ < K_ && fill_ + P_ <= cap_) {
      uint64_t need = (block_ - fill_ + P_ - 1) / P_;
      uint64_t k = std::min(K_, k_done_ + need);
      double due = time_of(k);
      clock.sleep_until(due);
      if (strict_ && clock.now() == due && (k - k_done_) * P_ <= cap_ - fill_) {
        // What deliver_until(due) does: time_of strictly increasing, the
        // last delivery due is k, and all fit (k > k_done_: need >= 1).
        fill_ += (k - k_done_) * P_;
        in_overrun_ = false;
        k_done_ = k;
        next_due_ = time_of(k + 1);
      } else {
        deliver_until(clock.now());
      }
    }
    if (stopped_) break;
    uint64_t frames = std::min(fill_, block_);
    if (frames == 0 || frames > plain.max_frames - frames_done) break;
    uint64_t bytes = frames * fb, offset = plain.offset + frames_done * fb;
    double start = clock.now();
    if (bytes != steady_first_.bytes || offset != steady_first_.offset + steady_n_ * steady_first_.bytes ||
        steady_n_ >= steady_.max_writes || !(start - steady_done_ >= steady_.min_gap))
      break;
    stepped_write(start, plain.file, offset, bytes);
    frames_done += frames;
    r_.max_block_s = std::max(r_.max_block_s, clock.now() - start);
    deliver_until(clock.now());
    r_.peak_buffer_bytes = std::max(r_.peak_buffer_bytes, fill_ * frame_bytes);
    fill_ -= frames;
    r_.frames_written += frames;
  }
  if (frames_done > 0) {
    scratch_.clear();
    layout_.append(frames_done, scratch_);  // one payload write: the layout's state after the blocks' appends
  }
}

void Run::stop(std::string reason, int err) {
  if (stopped_) return;
  stopped_ = true;
  r_.stopped_reason = std::move(reason);
  r_.stop_errno = err;
  r_.stopped_s = clock_.now() - t0_;
}

bool Run::run_ops(const std::vector<FormatWrite>& ops) {
  for (const FormatWrite& w : ops) {
    const void* data = w.what == FormatWrite::What::Payload ? (hooks_.payload ? hooks_.payload->fill(w) : nullptr)
                                                            : w.data.data();
    // Like write(2) callers, retry a short write for the rest: the retry
    // returns the error (EFBIG, ENOSPC) that cut it short.
    uint64_t done = 0;
    while (done < w.bytes) {
      Op op{OpKind::Write, cfg_.first_file_id + w.file, w.offset + done, w.bytes - done, cfg_.direct};
      if (data) op.data = static_cast<const uint8_t*>(data) + done;
      if (w.what == FormatWrite::What::Payload && done == 0)
        op.channel_arrays = w.channel == kAllChannels ? cfg_.stream.channels : 1;
      Completion c = issue(op, w.file);
      done += c.bytes;
      if (w.what == FormatWrite::What::Payload) r_.payload_bytes += c.bytes;
      else r_.other_bytes += c.bytes;
      sizes_[w.file] = std::max(sizes_[w.file], w.offset + done);
      if (c.error || c.bytes == 0) {
        int e = c.error ? c.error : EIO;
        stop(errno_reason(e), e);
        return false;
      }
    }
  }
  return true;
}

bool Run::write_block(uint64_t frames) {
  uint64_t left = layout_.frames_left();
  if (left == 0) {
    stop(layout_.limit_name(), EFBIG);
    return false;
  }
  frames = std::min(frames, left);
  ops_.clear();
  layout_.append(frames, ops_);
  double t = clock_.now();
  if (!create_new_files()) return false;
  bool ok = step(ops_) || run_ops(ops_);
  r_.max_block_s = std::max(r_.max_block_s, clock_.now() - t);
  if (!ok) return false;
  // The block's space is free once its last write has returned.
  deliver_until(clock_.now());
  r_.peak_buffer_bytes = std::max(r_.peak_buffer_bytes, fill_ * cfg_.stream.frame_bytes());
  uint64_t ring = fill_;
  fill_ -= frames;
  r_.frames_written += frames;
  if (hooks_.sample) hooks_.sample({clock_.now() - t0_, k_done_ * P_, r_.frames_written, ring, r_.dropped_periods});
  return true;
}

// A split layout names new files as it goes: create them before their writes.
bool Run::create_new_files() {
  const auto& names = layout_.file_names();
  for (uint32_t f = static_cast<uint32_t>(sizes_.size()); f < names.size(); ++f) {
    sizes_.push_back(0);
    if (hooks_.naming) hooks_.naming(cfg_.first_file_id + f, names[f]);
    Completion c = issue({OpKind::Create, cfg_.first_file_id + f, 0, 0, cfg_.direct}, f);
    if (c.error) {
      stop(fmt::format("cannot create {}: {}", names[f], errno_name(c.error)), c.error);
      return false;
    }
  }
  return true;
}

void Run::report_progress() {
  if (!hooks_.progress || K_ == 0) return;
  double f = static_cast<double>(k_done_) / static_cast<double>(K_);
  if (f >= next_progress_) {
    hooks_.progress(f);
    next_progress_ = f + 0.01;
  }
}

RecorderResult Run::go() {
  const StreamSpec& s = cfg_.stream;
  uint64_t fb = s.frame_bytes();
  cap_ = cfg_.buffer_bytes / fb;
  block_ = std::max<uint64_t>(1, (cfg_.block_bytes ? cfg_.block_bytes : cfg_.buffer_bytes / 2) / fb);
  P_ = period_frames_of(cfg_);
  period_s_ = static_cast<double>(P_) / s.sample_rate;
  per_s_ = 1 / period_s_;
  K_ = static_cast<uint64_t>(std::floor(cfg_.duration_s * s.sample_rate / static_cast<double>(P_) + 1e-9));
  r_.channels = s.channels;
  r_.data_rate = s.bytes_per_second();
  r_.buffer_bytes = cap_ * fb;
  r_.block_bytes = block_ * fb;
  r_.period_frames = P_;
  r_.frames_total = K_ * P_;

  // Open the files and write their headers before the acquisition starts.
  const auto& names = layout_.file_names();
  bool open_ok = create_new_files();
  ops_.clear();
  layout_.begin(ops_);
  if (open_ok) open_ok = run_ops(ops_);
  t0_ = clock_.now();
  next_due_ = time_of(1);
  // Each time_of(k) is within an ulp of the largest one of its exact value
  // (one product and one sum rounded, every magnitude below the last's).
  double top = time_of(K_ + 1);
  strict_ = t0_ >= 0 && std::isfinite(top) && period_s_ > 4 * (std::nextafter(top, INFINITY) - top);
  r_.start_s = t0_;

  while (!stopped_) {
    if (blocks_ && steady_n_ > 0) steady_blocks();
    // Wait for a block, or for the ring to be too full for the next period.
    while (!stopped_ && fill_ < block_ && k_done_ < K_ && fill_ + P_ <= cap_) {
      uint64_t need = (block_ - fill_ + P_ - 1) / P_;
      clock_.sleep_until(time_of(std::min(K_, k_done_ + need)));  // a real clock wakes early on Ctrl-C
      if (hooks_.cancel && hooks_.cancel->load()) stop("interrupted", ECANCELED);
      deliver_until(clock_.now());
    }
    report_progress();
    if (stopped_) break;
    uint64_t frames = std::min(fill_, block_);
    if (frames == 0) {
      if (k_done_ >= K_) break;  // everything written
      clock_.sleep_until(time_of(k_done_ + 1));  // unreachable with P <= cap
      deliver_until(clock_.now());
      continue;
    }
    if (!write_block(frames)) break;
  }
  if (r_.aborted_at_overrun) r_.stopped_s = clock_.now() - t0_;

  // Close: header patches even after a limit (the file stays readable),
  // describing only the blocks that were written whole.
  layout_.truncate_frames(r_.frames_written);
  ops_.clear();
  layout_.finish(ops_);
  run_ops(ops_);
  // Files this run opened (sizes_ grows as each is created; a failed create
  // stops the run before later names are opened).
  const auto opened = static_cast<uint32_t>(sizes_.size());
  for (uint32_t f = 0; f < opened; ++f) {
    if (cfg_.fsync_at_end) issue({OpKind::Fsync, cfg_.first_file_id + f, 0, 0, cfg_.direct}, f);
    issue({OpKind::Close, cfg_.first_file_id + f, 0, 0, cfg_.direct}, f);
  }
  r_.end_s = clock_.now();
  r_.frames_not_written = r_.frames_total - r_.frames_written - r_.frames_lost;
  for (uint32_t f = 0; f < opened; ++f) r_.files.push_back({names[f], sizes_[f]});
  if (hooks_.progress) hooks_.progress(1.0);
  return r_;
}

}  // namespace

Status check_recorder(const RecorderConfig& cfg) {
  if (auto st = check_stream(cfg.stream); !st.ok()) return st;
  uint64_t fb = cfg.stream.frame_bytes();
  if (!(cfg.duration_s > 0) || !std::isfinite(cfg.duration_s))
    return Status::error("--duration must be positive, such as 90s or 1.5h");
  if (cfg.buffer_bytes < fb)
    return Status::error(fmt::format("--buffer {} is smaller than one frame ({} B = channels x sample bytes): "
                                     "give at least {}",
                                     format_size(static_cast<double>(cfg.buffer_bytes)), fb, fb));
  if (cfg.block_bytes > cfg.buffer_bytes)
    return Status::error("--block is larger than --buffer: the writer drains the buffer in blocks, so use a block "
                         "no larger than the buffer");
  if (cfg.block_bytes != 0 && cfg.block_bytes < fb)
    return Status::error(fmt::format("--block is smaller than one frame ({} B): give at least {}", fb, fb));
  if (cfg.period_frames * fb > cfg.buffer_bytes)
    return Status::error("--period is larger than --buffer: one delivery must fit in the buffer");
  double frames = cfg.duration_s * cfg.stream.sample_rate;
  if (frames > 1e18) return Status::error("--duration x --sample-rate is too large to simulate");
  // A recording too short for one delivery writes nothing: saying "OK" about
  // it would be a verdict on no data.
  uint64_t period = period_frames_of(cfg);
  if (frames + 1e-9 < static_cast<double>(period))
    return Status::error(fmt::format(
        "this recording delivers no data: {:g} Hz for {} is {:g} frames, less than one {}-frame period; "
        "raise --sample-rate or --duration (or lower --period)",
        cfg.stream.sample_rate, format_duration(cfg.duration_s), frames, period));
  return {};
}

Result<RecorderResult> run_recorder(Device& dev, Clock& clock, const RecorderConfig& cfg, const RecorderHooks& hooks) {
  if (auto st = check_recorder(cfg); !st.ok()) return st;
  LayoutOptions lo;
  lo.kind = cfg.format;
  lo.stream = cfg.stream;
  lo.base_name = cfg.base_name;
  lo.header_every_frames = cfg.header_every_frames;
  lo.split_bytes = cfg.split_bytes;
  auto layout = make_layout(lo);
  if (!layout) return layout.status();
  Run run(dev, clock, cfg, hooks, **layout);
  return run.go();
}

}  // namespace sd
