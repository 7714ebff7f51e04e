// Fs: the shared model, the issue/answer path and the trace.
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "fusefs/fs.h"
#include "models/percentile.h"

namespace sd::fusefs {
namespace {
constexpr size_t kMaxSamples = 4'000'000;  // completion-error samples kept for the summary

bool keeps_durability(const MountOptions& opt) {
  return opt.durability || std::any_of(opt.faults.begin(), opt.faults.end(),
                                       [](const FaultSpec& f) { return f.kind == FaultKind::PowerLoss; });
}

ModelOptions model_options(const MountOptions& opt) {
  ModelOptions m = opt.model;
  m.durability = keeps_durability(opt);
  return m;
}
}  // namespace

Fs::Fs(const MountOptions& opt, int root_fd)
    : opt_(opt),
      channel_(opt.direct_io_mmap),
      sem_(opt.profile),
      inodes_(root_fd),
      model_(opt.profile, model_options(opt)),
      faults_(opt.model.seed),
      device_(model_, faults_),
      sched_(clock_) {
  for (const auto& f : opt.faults) faults_.add(f);
  gone_at_ = faults_.gone_time();
  keep_ = keeps_durability(opt);
}

Fs::~Fs() { sched_.stop(); }

Status Fs::open_trace() {
  if (opt_.trace_path.empty()) return {};
  std::map<std::string, std::string> meta;
  TraceModel tm = TraceModel::of(opt_.profile.name, opt_.profile_sets, opt_.model);
  tm.overhead_credit_s = opt_.overhead_credit_s;
  tm.write(meta);
  meta["source"] = "streamdisk mount";
  for (size_t i = 0; i < opt_.faults.size(); ++i) meta[fmt::format("fault{}", i + 1)] = opt_.faults[i].text;
  return trace_.open(opt_.trace_path, meta, {"--trace", "trace.csv", true, opt_.trace_inputs});
}

Status Fs::shutdown() {
  sched_.stop();
  gone();  // a power loss due by now rewrites the backing files before the unmount ends
  std::lock_guard lk(trace_mu_);
  if (!trace_.is_open()) return {};
  for (auto& [seq, r] : trace_pending_) trace_.write(r);  // only if an answer was lost: keep the rows
  trace_pending_.clear();
  return trace_.close();
}

std::string Fs::proc_path(int fd) const { return fmt::format("/proc/self/fd/{}", fd); }

Issued Fs::submit(const Op& op, int thread) {
  Issued is;
  is.op = op;
  is.thread = thread;
  is.depth = static_cast<int>(sched_.waiting()) + 1;
  std::lock_guard lk(model_mu_);
  double now = clock_.now();
  is.start = now;
  // The FUSE round trip (the kernel handing us the request, our reply
  // going out and waking the caller) is real time a real device would not
  // add. Time since this thread's previous request completed in the model,
  // up to overhead_credit_s, counts as that round trip: the model is told
  // the request came that much earlier. A thread writing flat out then sees
  // the model's rate, as long as the round trip is shorter than a request.
  if (auto it = last_reply_.find(thread); thread != 0 && it != last_reply_.end())
    is.start = std::max(it->second, now - opt_.overhead_credit_s);
  is.start = std::min(now, std::max(is.start, last_issue_));  // issue order = trace order
  last_issue_ = is.start;
  is.seq = next_seq_++;
  is.c = device_.submit(op, is.start);
  gone_.store(faults_.gone_error(), std::memory_order_relaxed);
  return is;
}

void Fs::note_reply(int thread, double t) {
  if (thread == 0) return;
  std::lock_guard lk(model_mu_);
  if (last_reply_.size() > 4096) last_reply_.clear();  // threads come and go
  last_reply_[thread] = t;
}

void Fs::ensure_in_model(Inode* in, uint64_t size, int thread) {
  if (!in->regular()) return;
  {
    std::lock_guard lk(model_mu_);
    if (model_.files().exists(in->model_id())) return;
  }
  // Another thread may register it between the check and here; the second
  // Create then fails with EEXIST in the model and changes nothing.
  Issued c = submit(Op{OpKind::Create, in->model_id(), 0, 0, false}, thread);
  record(c, clock_.now(), c.c.error, 0);
  if (c.c.error == 0 && size > 0) {
    Issued t = submit(Op{OpKind::Truncate, in->model_id(), 0, size, false}, thread);
    record(t, clock_.now(), t.c.error, 0);
  }
  if (c.c.error == 0 && keep_) {
    // What was there before the mount is durable as it is.
    {
      std::lock_guard lk(model_mu_);
      model_.mark_existing(in->model_id(), size);
    }
    keep_existing(in->model_id(), size);
  }
}

void Fs::record(const Issued& is, double end, int error, uint64_t bytes) {
  if (error == ENOSPC) ++enospc_;
  else if (error == EFBIG) ++efbig_;
  else if (error != 0) ++errors_;
  bool data = is.op.kind == OpKind::Write || is.op.kind == OpKind::Read;
  if (is.op.kind == OpKind::Write) ++writes_, written_ += bytes;
  else if (is.op.kind == OpKind::Read) ++reads_, read_bytes_ += bytes;
  else ++other_;
  std::lock_guard lk(trace_mu_);
  if (data) {
    double late = end - is.c.done;
    if (late_.size() < kMaxSamples) late_.push_back(static_cast<float>(late));
    late_max_ = std::max(late_max_, late);
    ++late_count_;
  }
  if (!trace_.is_open()) return;
  TraceRecord& r = trace_pending_[is.seq];
  r.start = is.start;
  r.end = std::max(end, is.start);
  r.op = is.op.kind;
  r.file = fmt::format("{}", is.op.file);
  r.offset = is.op.offset;
  r.bytes = data ? bytes : is.op.bytes;
  r.thread = is.thread;
  r.queue_depth = is.depth;
  r.modelled_end = is.c.done;
  r.error = error;
  r.direct = is.c.direct;
  // Rows go out in issue order (docs/formats.md): a row waits until every
  // operation issued before it has been answered.
  while (!trace_pending_.empty() && trace_pending_.begin()->first == trace_next_) {
    trace_.write(trace_pending_.begin()->second);
    trace_pending_.erase(trace_pending_.begin());
    ++trace_next_;
  }
}

void Fs::answer(const Issued& is, double due, int error, uint64_t bytes, std::function<void()> send) {
  sched_.schedule(due, [this, is, error, bytes, send = std::move(send)] {
    send();
    double end = clock_.now();
    note_reply(is.thread, is.c.done);
    record(is, end, error, bytes);
  });
}

Fs::Snapshot Fs::snapshot() {
  Snapshot s;
  s.waiting = sched_.waiting();
  s.bytes_written = static_cast<double>(written_.load());
  std::lock_guard lk(model_mu_);
  s.now = clock_.now();
  s.model = model_.state(s.now);
  return s;
}

MountSummary Fs::summary() {
  MountSummary m;
  Snapshot s = snapshot();
  m.seconds = s.now;
  m.writes = writes_;
  m.reads = reads_;
  m.other_ops = other_;
  m.bytes_written = written_;
  m.bytes_read = read_bytes_;
  m.enospc = enospc_;
  m.efbig = efbig_;
  m.other_errors = errors_;
  {
    std::lock_guard lk(model_mu_);
    m.fault_events = faults_.events().size();
  }
  m.stalls = s.model.stalls;
  m.stall_seconds = s.model.stall_seconds;
  m.fill = s.model.fill;
  m.used_bytes = s.model.used_bytes;
  {
    std::lock_guard lk(model_mu_);
    m.capacity_bytes = model_.files().capacity();
  }
  std::lock_guard lk(trace_mu_);
  m.late_samples = late_count_;
  {
    std::shared_lock pl(power_mu_);
    m.power_lost_at = power_lost_at_;
    m.power_loss = power_files_;
  }
  {
    std::lock_guard lk(keep_mu_);
    m.power_loss_inexact = kept_full_ && m.power_lost_at >= 0;
  }
  m.late_max = late_max_;
  if (!late_.empty()) {
    std::vector<float> v = late_;
    m.late_p50 = percentile_in_place(v, 0.5);
    m.late_p99 = percentile_in_place(v, 0.99);
  }
  return m;
}

}  // namespace sd::fusefs

namespace sd::fusefs {

std::vector<FaultEvent> Fs::fault_events(size_t from) {
  std::lock_guard lk(model_mu_);
  const auto& ev = faults_.events();
  if (from >= ev.size()) return {};
  return {ev.begin() + static_cast<long>(from), ev.end()};
}

int Fs::add_fault(const std::string& spec) {
  auto f = parse_fault(spec);
  if (!f) return EINVAL;
  if (f->kind == FaultKind::PowerLoss && !keep_) return kNoDurabilityErrno;
  std::lock_guard lk(model_mu_);
  faults_.add(std::move(*f), clock_.now());
  gone_at_ = faults_.gone_time();
  return 0;
}

int Fs::gone() {
  if (int e = gone_.load(std::memory_order_relaxed)) {
    if (keep_ && !power_applied_.load(std::memory_order_relaxed)) apply_power_loss();
    return e;
  }
  double now = clock_.now();
  if (now < gone_at_.load(std::memory_order_relaxed)) return 0;
  int e = 0;
  {
    std::lock_guard lk(model_mu_);
    faults_.tick(now);
    e = faults_.gone_error();
    gone_.store(e, std::memory_order_relaxed);
  }
  if (e && keep_) apply_power_loss();
  return e;
}

}  // namespace sd::fusefs
