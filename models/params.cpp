#include "models/params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/input.h"
#include "models/units.h"

namespace sd {
namespace {

constexpr double kBig = 1e18;

// Stall keys appear in two layers (a userspace filesystem driver and a flash
// controller both pause); one process implementation serves both (stalls.h).
#define SD_STALL_ROWS(L, who)                                                                   \
  {L, "stall_interval_mb", Unit::MegaBytes, 0.0, 0, 1e9,                                        \
   "Mean MB written between byte-triggered " who " stalls (flash garbage collection, "           \
   "allocation; Poisson in bytes unless stall_interval_jitter says otherwise): a slow writer "   \
   "meets them less often per second. 0 = none."},                                               \
  {L, "stall_period_ms", Unit::Milliseconds, 0.0, 0, 1e9,                                       \
   "Mean time between time-triggered " who " stalls (a journal commit, a periodic flush): a "     \
   "writer busy at that moment waits whatever its rate. 0 = none."},                             \
  {L, "stall_period_jitter", Unit::Fraction, 0.0, 0, 1,                                         \
   "Irregularity of time-triggered " who " stalls, both populations: 0 = strictly periodic "      \
   "(random phase), 1 = Poisson in time."},                                                      \
  {L, "stall_interval_jitter", Unit::Fraction, 1.0, 0, 1,                                       \
   "Irregularity of byte-triggered " who " stalls, both populations: 0 = one every "             \
   "stall_interval_mb exactly (random phase), 1 = Poisson in bytes."},                           \
  {L, "stall_duration_ms", Unit::Milliseconds, 0.0, 0, 1e6,                                     \
   "Median length of one " who " stall (log-normal)."},                                         \
  {L, "stall_duration_sigma", Unit::Ratio, 0.0, 0, 3,                                           \
   "Spread of stall lengths: sigma of ln(duration). 0 = every stall lasts the median."},        \
  {L, "stall2_interval_mb", Unit::MegaBytes, 0.0, 0, 1e9,                                       \
   "Second population of " who " stalls (a two-population mixture): mean MB written between "    \
   "its byte-triggered stalls. 0 = none."},                                                      \
  {L, "stall2_period_ms", Unit::Milliseconds, 0.0, 0, 1e9,                                      \
   "Second population: mean time between its time-triggered stalls. 0 = none."},                \
  {L, "stall2_duration_ms", Unit::Milliseconds, 0.0, 0, 1e6,                                    \
   "Second population: median stall length (log-normal)."},                                     \
  {L, "stall2_duration_sigma", Unit::Ratio, 0.0, 0, 3,                                          \
   "Second population: sigma of ln(duration). 0 = a fixed length."}

const ParamSpec kTable[] = {
    // ---- host: the recording computer's OS ----
    {Layer::Host, "dirty_limit_bytes", Unit::Bytes, 0.0, 0, 1e15,
     "The OS's dirty limit (Linux: vm.dirty_bytes or _ratio). With dirty_background_bytes set, a writer "
     "runs free up to halfway between the two (Linux's freerun ceiling) and is then held to the device's pace; "
     "without it, this is the amount a writer accumulates before it is held (what a buffered write's fast phase "
     "measures). 0 = no page cache: every write waits for the device (RTOS controllers)."},
    {Layer::Host, "memory_mbps", Unit::MBps, 2000.0, 1, 1e6,
     "Rate at which a buffered write is copied into the page cache while there is room."},
    {Layer::Host, "syscall_us", Unit::Microseconds, 0.0, 0, 1e8,
     "CPU cost of one write or read call (OS plus the application's I/O library), per call."},
    {Layer::Host, "per_channel_us", Unit::Microseconds, 0.0, 0, 1e8,
     "CPU cost per channel array in one write call: an I/O library that handles each channel's data "
     "separately (LabVIEW's TDMS writer, one waveform per channel) pays it once per channel; interleaved "
     "frames are one array. Charged in simulate only: through mount the real application pays its own."},
    {Layer::Host, "writeback_chunk_bytes", Unit::Bytes, 1048576.0, 4096, 1e10,
     "Largest request the page-cache writeback sends down at once (contiguous dirty data merges)."},
    {Layer::Host, "dirty_background_bytes", Unit::Bytes, 0.0, 0, 1e15,
     "Dirty data the page cache holds before background writeback starts (Linux: vm.dirty_background_bytes "
     "or _ratio); below it data waits up to dirty_expire_ms, then goes down in writeback chunks. "
     "0 = writeback starts as soon as the device is free."},
    {Layer::Host, "dirty_pacing", Unit::Count, 1.0, 0, 1,
     "1 = a writer above the freerun ceiling (halfway between dirty_background_bytes and "
     "dirty_limit_bytes) is paced as Linux's balance_dirty_pages paces it: at writeback's own bandwidth "
     "times 1 + ((setpoint - dirty) / (limit - setpoint))^3, twice it at the ceiling, zero at the limit. "
     "0 = the ceiling is a wall: the writer waits there until writeback makes room. Needs "
     "dirty_background_bytes."},
    {Layer::Host, "dirty_expire_ms", Unit::Milliseconds, 30000.0, 0, 1e9,
     "Age at which dirty data is written back even below dirty_background_bytes (Linux: "
     "vm.dirty_expire_centisecs, 30 s by default). A file whose dirty data expired goes down whole, "
     "until it is clean (Linux writes back an expired inode, not only its expired pages)."},
    {Layer::Host, "writeback_interval_ms", Unit::Milliseconds, 5000.0, 0, 1e9,
     "How often the flusher wakes to write back expired data below dirty_background_bytes (Linux: "
     "vm.dirty_writeback_centisecs, 5 s by default). 0 = as soon as data expires."},
    {Layer::Host, "writeback_queue_bytes", Unit::Bytes, 0.0, 0, 1e12,
     "Writeback data the block layer holds submitted to the device at once (its request queue, as "
     "writeback throttling leaves it). A journal commit waits for all of it (filesystem "
     "journal_commit_ms). 0 = one writeback chunk. Ignored with wbt_queue_depth."},
    {Layer::Host, "wbt_queue_depth", Unit::Count, 0.0, 0, 100000,
     "The device's request queue depth as Linux's writeback throttling (wbt) sees it (/sys/block/DEV/"
     "device/queue_depth, else nr_requests). Background writeback then keeps at most wbt's background "
     "depth of requests in flight (its normal depth, twice that, if the filesystem does not mark its "
     "writeback as background: filesystem writeback_background): a quarter of 16 (at most of this "
     "depth) when writeback starts, growing every 100 ms while it runs to a quarter of 3/4 of this "
     "depth; one step back per 0.5 s idle. "
     "0 = no writeback throttling modelled: writeback_queue_bytes bounds the queue."},
    {Layer::Host, "writeback_request_bytes", Unit::Bytes, 0.0, 0, 1e10,
     "Largest request the block layer builds from writeback (Linux: /sys/block/DEV/queue/max_sectors_kb); "
     "with wbt_queue_depth, the unit of its depth. 0 = one writeback chunk."},

    // ---- filesystem ----
    {Layer::Filesystem, "cluster_bytes", Unit::Bytes, 4096.0, 512, 64.0 * 1048576,
     "Allocation unit; space is used in whole clusters."},
    {Layer::Filesystem, "userspace", Unit::Flag, 0.0, 0, 1,
     "1 = a userspace (FUSE) driver such as exfat-fuse or ntfs-3g: its CPU work and stalls happen "
     "inside the application's write() call, above the page cache, so the cache cannot hide them."},
    {Layer::Filesystem, "create_us", Unit::Microseconds, 0.0, 0, 1e8,
     "Cost of creating one file (directory entry, allocation tables)."},
    {Layer::Filesystem, "request_bytes", Unit::Bytes, 0.0, 0, 1e10,
     "Largest request the driver passes to the device; larger writes are split. 0 = no split."},
    {Layer::Filesystem, "request_us", Unit::Microseconds, 0.0, 0, 1e8,
     "Driver CPU cost per request (e.g. one FUSE round trip for a userspace driver)."},
    {Layer::Filesystem, "driver_mbps", Unit::MBps, 0.0, 0, 1e6,
     "Per-byte throughput of the driver's own CPU work (copies, checksums). 0 = not a limit."},
    {Layer::Filesystem, "meta_every_bytes", Unit::Bytes, 0.0, 0, 1e15,
     "A metadata write (allocation table, bitmap, size) goes to the device every this many "
     "appended bytes. It lands away from the data, so it costs the device's seek penalty. 0 = none."},
    {Layer::Filesystem, "meta_write_bytes", Unit::Bytes, 4096.0, 0, 1e9,
     "Size of each metadata write."},
    {Layer::Filesystem, "journal_commit_ms", Unit::Milliseconds, 0.0, 0, 1e7,
     "Interval of a kernel filesystem's journal commits (ext4/jbd2: 5000, mount option commit=). A "
     "commit waits for the writeback in flight (ordered data) before it writes the inode to the "
     "journal; a buffered write() that updates the file's time meanwhile waits with it, so the writer "
     "meets the device's backlog and pauses in its own call, page cache or not. 0 = no journal."},
    {Layer::Filesystem, "writeback_background", Unit::Count, 1.0, 0, 1,
     "1 = the driver marks its page-cache writeback as background I/O (Linux REQ_BACKGROUND: drivers "
     "that write through mpage, iomap or a block device's page cache, FUSE drivers' block devices "
     "included), so writeback throttling (host wbt_queue_depth) holds it to its background depth; "
     "0 = it does not (ext4 builds its own requests without the mark) and wbt allows its normal "
     "depth, twice as many requests, which a journal commit then waits behind."},
    {Layer::Filesystem, "max_file_bytes", Unit::Bytes, 0.0, 0, kBig,
     "Largest file the filesystem allows; a write past it fails with EFBIG. 0 = no limit."},
    // What the filesystem supports: `mount` answers as its Linux driver would
    // (fusefs/semantics.h; docs/mount.md lists the built-in filesystems).
    {Layer::Filesystem, "symlinks", Unit::Flag, 1.0, 0, 1,
     "1 = symbolic links. 0 = none: symlink() fails (EPERM from a kernel driver, ENOSYS from a userspace one)."},
    {Layer::Filesystem, "hard_links", Unit::Flag, 1.0, 0, 1,
     "1 = hard links. 0 = none: link() fails with EPERM."},
    {Layer::Filesystem, "xattrs", Unit::Flag, 1.0, 0, 1,
     "1 = extended attributes (user.*). 0 = none: setting or reading one fails with EOPNOTSUPP."},
    {Layer::Filesystem, "permissions", Unit::Count, 3.0, 0, 3,
     "3 = POSIX owners and modes. 2 = fixed at mount (mode 0777): chmod and chown succeed and change "
     "nothing (ntfs-3g). 1 = the same, but chown to another owner fails with EPERM (exfat-fuse). 0 = "
     "fixed at mount (mode 0755): chmod may only add or remove write permission (the read-only "
     "attribute), any other chmod, and chown, fail with EPERM (vfat, exFAT)."},
    {Layer::Filesystem, "case_insensitive", Unit::Flag, 0.0, 0, 1,
     "1 = names match whatever their case (\"A.WAV\" opens a.wav), and keep the case they were created with."},
    {Layer::Filesystem, "name_max", Unit::Count, 255.0, 1, 255,
     "Longest name (bytes, or UTF-16 units with name_utf16); a longer one fails with ENAMETOOLONG."},
    {Layer::Filesystem, "name_utf16", Unit::Flag, 0.0, 0, 1,
     "1 = names are stored in UTF-16: name_max counts UTF-16 units, not bytes."},
    {Layer::Filesystem, "name_dos_chars", Unit::Flag, 0.0, 0, 1,
     "1 = names may not hold control characters or any of \" * : < > ? \\ | (EINVAL from a kernel driver, "
     "ENOENT from a userspace one)."},
    {Layer::Filesystem, "time_resolution_us", Unit::Microseconds, 0.0, 0, 1e7,
     "Resolution of stored timestamps: times set or written are rounded down to it. 0 = the backing "
     "directory's."},
    {Layer::Filesystem, "fallocate", Unit::Count, 2.0, 0, 2,
     "2 = every fallocate mode. 1 = allocation only (mode 0 and KEEP_SIZE; punching holes fails with "
     "EOPNOTSUPP). 0 = none: EOPNOTSUPP (posix_fallocate then writes zeros)."},
    SD_STALL_ROWS(Layer::Filesystem, "driver"),

    // ---- device ----
    {Layer::Device, "capacity_bytes", Unit::Bytes, 0.0, 0, 1e17,
     "Usable capacity. Sets fill level and ENOSPC. 0 = unlimited (no fill effects)."},
    {Layer::Device, "sustained_mbps", Unit::MBps, std::nullopt, 1e-3, 1e6,
     "Write bandwidth once the burst cache is full (the rate a long recording gets)."},
    {Layer::Device, "burst_bytes", Unit::Bytes, 0.0, 0, 1e15,
     "Size of the fast write cache (SLC/TurboWrite, DRAM). 0 = none."},
    {Layer::Device, "burst_mbps", Unit::MBps, 0.0, 0, 1e6,
     "Write bandwidth into the burst cache. Required when burst_bytes > 0."},
    {Layer::Device, "recover_mbps", Unit::MBps, 0.0, 0, 1e6,
     "Rate at which the burst cache empties while the device is idle. 0 = it never recovers."},
    {Layer::Device, "recover_idle_ms", Unit::Milliseconds, 0.0, 0, 1e8,
     "Quiet time before the burst cache starts to empty (a drive folds its cache only after an "
     "idle spell): a write sooner than that after the last finds the cache as full as it was. "
     "0 = it empties from the first idle moment."},
    {Layer::Device, "catchup_ms", Unit::Milliseconds, 0.0, 0, 1e6,
     "How much of a pause (or of an idle spell) the device makes up afterwards: it passes up to "
     "catchup_ms x sustained_mbps of bytes at once when it resumes (a rate limiter's token bucket, "
     "or a controller buffer that keeps draining while requests are held). A pause of length L then "
     "costs the throughput max(0, L - catchup_ms), though each write it holds still waits all of L. "
     "0 = a pause is lost time."},
    {Layer::Device, "op_overhead_us", Unit::Microseconds, 0.0, 0, 1e8,
     "Fixed cost per write request, so rate(b) = b / (overhead + b / bandwidth)."},
    {Layer::Device, "seek_penalty_us", Unit::Microseconds, 0.0, 0, 1e8,
     "Extra cost of a write that does not continue the previous one (another file, a header "
     "rewrite, filesystem metadata)."},
    {Layer::Device, "fill_knee", Unit::Fraction, 1.0, 0, 1,
     "Fill level above which bandwidth falls. 1 = no fill effect."},
    {Layer::Device, "fill_floor", Unit::Fraction, 1.0, 0.001, 1,
     "Bandwidth multiplier reached at 100 % full (linear from the knee)."},
    SD_STALL_ROWS(Layer::Device, "device"),
    {Layer::Device, "read_mbps", Unit::MBps, 0.0, 0, 1e6,
     "Read bandwidth of one request stream. 0 = no read figure: reads go at sustained_mbps."},
    {Layer::Device, "read_latency_us", Unit::Microseconds, 0.0, 0, 1e8,
     "Fixed latency of one read request."},
    {Layer::Device, "read_max_mbps", Unit::MBps, 0.0, 0, 1e6,
     "Aggregate read ceiling of the interface (e.g. SATA ~530). 0 = none beyond the streams."},
    {Layer::Device, "read_queue_depth", Unit::Count, 1.0, 1, 1024,
     "Read requests the device serves in parallel."},
    // Durability (models/durability.h): what a power loss leaves. Estimates, docs/faults.md.
    {Layer::Device, "write_cache_bytes", Unit::Bytes, 0.0, 0, 1e13,
     "Volatile write cache: data the device has acknowledged but not yet put on media holds up to this "
     "many bytes (the newest), and is lost at a power loss. 0 = acknowledged data is on media."},
    {Layer::Device, "write_cache_destage_ms", Unit::Milliseconds, 1000.0, 0, 1e9,
     "Age at which acknowledged data is on media even without a flush (the device empties its cache "
     "on its own)."},
    {Layer::Device, "flush_honest", Unit::Flag, 1.0, 0, 1,
     "1 = a cache flush (fsync, a journal commit's barrier) waits until the write cache is on media; "
     "0 = the device acknowledges the flush early (many cheap sticks, some SSDs): it protects nothing."},
};
#undef SD_STALL_ROWS

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view layer_name(Layer l) {
  switch (l) {
    case Layer::Host: return "host";
    case Layer::Filesystem: return "filesystem";
    case Layer::Device: return "device";
  }
  return "?";
}

std::optional<Layer> layer_from_name(std::string_view s) {
  for (Layer l : kLayers)
    if (layer_name(l) == s) return l;
  return std::nullopt;
}

std::string_view unit_name(Unit u) {
  switch (u) {
    case Unit::Bytes: return "bytes";
    case Unit::MBps: return "MB/s";
    case Unit::Microseconds: return "us";
    case Unit::Milliseconds: return "ms";
    case Unit::MegaBytes: return "MB";
    case Unit::Fraction: return "fraction";
    case Unit::Count: return "count";
    case Unit::Ratio: return "ratio";
    case Unit::Flag: return "0/1";
  }
  return "?";
}

std::span<const ParamSpec> param_table() { return kTable; }

std::vector<const ParamSpec*> params_of(Layer l) {
  std::vector<const ParamSpec*> out;
  for (const auto& s : kTable)
    if (s.layer == l) out.push_back(&s);
  return out;
}

const ParamSpec* find_param(Layer l, std::string_view key) {
  for (const auto& s : kTable)
    if (s.layer == l && s.key == key) return &s;
  return nullptr;
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    // A key that contains the word (or the reverse) is a strong hint too.
    if (c.find(word) != std::string::npos || std::string_view(word).find(c) != std::string_view::npos)
      d = std::min(d, size_t{2});
    if (d < best_d) best_d = d, best = c;
  }
  size_t limit = std::max<size_t>(3, word.size() / 3);
  return best_d <= limit ? best : std::string();
}

namespace {
std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}
// A number with no unit: it is in the unit the key names.
bool is_bare_number(std::string_view text) {
  double v = 0;
  return parse_decimal(trimmed(text), v);
}
}  // namespace

Result<double> parse_param_value(const ParamSpec& spec, std::string_view text) {
  if (text.size() > 200)
    return Result<double>::error(fmt::format("the value for {} is {} characters long: give a number such as 12.5",
                                             spec.key, text.size()));
  switch (spec.unit) {
    case Unit::Bytes: return parse_size(text);
    case Unit::MegaBytes: {
      auto v = parse_size(text);
      if (!v) return v;
      // A bare number is already in MB; with a unit it is converted.
      bool bare = is_bare_number(text);
      return bare ? *v : *v / kMB;
    }
    case Unit::MBps: {
      bool bare = is_bare_number(text);
      if (bare) break;
      auto v = parse_rate(text);
      if (!v) return v;
      return *v / kMB;
    }
    case Unit::Fraction: return parse_fraction(text);
    case Unit::Microseconds:
    case Unit::Milliseconds: {
      bool bare = is_bare_number(text);
      if (bare) break;
      auto v = parse_duration(text);
      if (!v) return v;
      return *v * (spec.unit == Unit::Microseconds ? 1e6 : 1e3);
    }
    case Unit::Count:
    case Unit::Ratio:
    case Unit::Flag: break;
  }
  if (double v = 0; parse_decimal(trimmed(text), v)) return v;
  return Result<double>::error(
      fmt::format("'{}' is not a number in {} for {}", excerpt(text), unit_name(spec.unit), spec.key));
}

std::string range_text(const ParamSpec& s) {
  auto num = [](double v) { return v >= kBig ? std::string("unbounded") : fmt::format("{:.10g}", v); };
  return fmt::format("{}..{} {}", num(s.min), num(s.max), unit_name(s.unit));
}

LayerParams::LayerParams(Layer l) : layer_(l), specs_(params_of(l)) {
  values_.resize(specs_.size());
  present_.assign(specs_.size(), false);
}

static size_t index_of(const std::vector<const ParamSpec*>& specs, std::string_view key) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i]->key == key) return i;
  return specs.size();
}

double LayerParams::get(std::string_view key) const { return entry(key).value; }

const ParamValue& LayerParams::entry(std::string_view key) const {
  size_t i = index_of(specs_, key);
  if (i == specs_.size()) std::abort();  // internal invariant: code asked for a key not in the table
  return values_[i];
}

ParamValue& LayerParams::entry(std::string_view key) {
  size_t i = index_of(specs_, key);
  if (i == specs_.size()) std::abort();
  return values_[i];
}

bool LayerParams::has(std::string_view key) const {
  size_t i = index_of(specs_, key);
  return i < specs_.size() && present_[i];
}

Status LayerParams::set(std::string_view key, double v, Origin origin, std::string source, bool estimate) {
  size_t i = index_of(specs_, key);
  if (i == specs_.size()) {
    std::vector<std::string> keys;
    for (auto* s : specs_) keys.emplace_back(s->key);
    std::string hint = nearest(key, keys);
    return Status::error(fmt::format("unknown {} parameter '{}'{}; `streamdisk show --params` lists them",
                                     layer_name(layer_), key,
                                     hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
  }
  const ParamSpec& s = *specs_[i];
  if (!std::isfinite(v) || v < s.min || v > s.max)
    return Status::error(fmt::format("{}.{} = {:g} is out of range: allowed {}", layer_name(layer_), key, v,
                                     range_text(s)));
  if ((s.unit == Unit::Count || s.unit == Unit::Flag) && v != std::floor(v))
    return Status::error(fmt::format("{}.{} = {:g} must be a whole number{}", layer_name(layer_), key, v,
                                     s.unit == Unit::Flag ? " (0 or 1)" : ""));
  values_[i] = ParamValue{v, origin, std::move(source), estimate, std::nullopt};
  present_[i] = true;
  return {};
}

Status LayerParams::set_range(std::string_view key, double lo, double hi) {
  size_t i = index_of(specs_, key);
  if (i == specs_.size() || !present_[i]) std::abort();  // internal invariant: set() first
  const ParamSpec& s = *specs_[i];
  double v = values_[i].value;
  std::string name = fmt::format("{}.{}", layer_name(layer_), key);
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo < s.min || hi > s.max)
    return Status::error(fmt::format("{} range = [{:g}, {:g}] leaves the allowed {}: narrow it", name, lo, hi,
                                     range_text(s)));
  if (lo > hi)
    return Status::error(fmt::format("{} range = [{:g}, {:g}] is backwards: write the low end first", name, lo, hi));
  if (v < lo || v > hi)
    return Status::error(fmt::format("{} = {:g} lies outside its own range [{:g}, {:g}]: widen the range or move the "
                                     "value into it", name, v, lo, hi));
  if ((s.unit == Unit::Count || s.unit == Unit::Flag) && (lo != std::floor(lo) || hi != std::floor(hi)))
    return Status::error(fmt::format("{} range = [{:g}, {:g}] must hold whole numbers", name, lo, hi));
  values_[i].range = std::make_pair(lo, hi);
  return {};
}

Status LayerParams::finish(std::string_view where) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (present_[i]) continue;
    const ParamSpec& s = *specs_[i];
    if (!s.default_value)
      return Status::error(fmt::format("{}: required {} parameter '{}' is missing (allowed {}): add `{} = ...`",
                                       where, layer_name(layer_), s.key, range_text(s), s.key));
    values_[i] = ParamValue{*s.default_value, Origin::Default, {}, false, std::nullopt};
  }
  return {};
}

}  // namespace sd
