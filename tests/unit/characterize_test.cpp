// streamdisk characterize in virtual time: a ModelDevice with known
// parameters is measured by the same phases that run on real storage, and the
// profile that comes out must give back those parameters (within tolerances
// that reflect what each phase can see) and the same headline capacity as the
// true profile. Also: cliff detection inside a block-size sweep, the seek
// penalty fit and the mountinfo parser behind the userspace-driver check.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "calibrate/groups.h"
#include "calibrate/regimes.h"
#include "measure/characterize.h"
#include "measure/fs_info.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "models/trace.h"
#include "sim/capacity.h"
#include "sim/sweeps.h"
#include "temp_dir.h"

using namespace sd;

namespace {

// A stick with a 150 MB write cache at 60 MB/s over 15.6 MB/s sustained,
// recovering at 20 MB/s, 7.2 ms per out-of-place write, behind ext4 on a Pi.
const char* kStack = "rpi4-buster+ext4+sandisk-ultrafit-16g";
const std::vector<std::string> kSets = {"device.burst_bytes=150MB", "device.burst_mbps=60", "device.recover_mbps=20"};

const FoundParam* found(const CharacterizeReport& r, const std::string& key) {
  for (const auto& f : r.found)
    if (f.key == key) return &f;
  return nullptr;
}

RecorderConfig headline_recorder() {
  RecorderConfig rc;
  rc.stream.channels = 1;
  rc.stream.sample_bits = 16;
  rc.buffer_bytes = 1 << 20;
  rc.duration_s = 60;
  return rc;
}


}  // namespace

TEST_CASE("characterize measures the quiet time a cache waits before it recovers", "[characterize]") {
  // The same stick, whose cache starts to empty only after 0.5 s without a
  // write: the idle gaps of 1, 2 and 4 s give back 10, 30 and 70 MB, not 20,
  // 40 and 80; their line meets zero at the quiet time.
  std::vector<std::string> sets = kSets;
  sets.push_back("device.recover_idle_ms=500");
  CharacterizeConfig cfg;
  cfg.profile = kStack;
  cfg.sets = sets;
  cfg.budget_s = 120;
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE(r.ok());
  const FoundParam* rate = found(*r, "device.recover_mbps");
  const FoundParam* idle = found(*r, "device.recover_idle_ms");
  REQUIRE(rate != nullptr);
  REQUIRE(idle != nullptr);
  INFO("recover_mbps " << rate->value << ", recover_idle_ms " << idle->value);
  CHECK(std::fabs(rate->value / 20 - 1) <= 0.15);
  CHECK(std::fabs(idle->value / 500 - 1) <= 0.30);
}

TEST_CASE("characterize measures what a device makes up of its pauses (catchup_ms), and nothing where it makes up none",
          "[characterize][catchup]") {
  // The stick without its cache, a 400 ms pause every ~24 MB. With a 250 ms
  // catch-up each pause costs the line of bytes 150 ms; the write that meets
  // it has its own transfer made up inside it, so the pause fit sees a
  // shorter pause and the catch-up after it is shorter by as much: what must
  // come back is the net cost, fitted duration - catchup_ms.
  std::vector<std::string> base = {"device.stall_interval_mb=24", "device.stall_duration_ms=400",
                                   "device.stall_duration_sigma=0", "device.stall_period_ms=0",
                                   "device.stall2_interval_mb=0", "device.stall2_period_ms=0"};
  auto run = [&](double catchup, double budget_s = 240) {
    CharacterizeConfig cfg;
    cfg.profile = kStack;
    cfg.sets = base;
    cfg.sets.push_back(fmt::format("device.catchup_ms={}", catchup));
    cfg.budget_s = budget_s;  // 240 is the default
    cfg.recorder = headline_recorder();
    auto r = run_characterize(cfg);
    REQUIRE(r.ok());
    return *r;
  };
  CharacterizeReport with = run(250);
  const FoundParam* c = found(with, "device.catchup_ms");
  // The pauses' population (the fit may add a second one of short ones): the longer.
  const FoundParam* len = found(with, "device.stall_duration_ms");
  const FoundParam* len2 = found(with, "device.stall2_duration_ms");
  REQUIRE(c != nullptr);
  REQUIRE(len != nullptr);
  double pause = std::max(len->value, len2 ? len2->value : 0.0);
  INFO("catchup_ms " << c->value << ", pause length fitted " << pause);
  CHECK(c->value > 50);
  CHECK(std::fabs(pause - c->value - 150) <= 40);
  // The writes right after each pause carry what the device made up: counted
  // as speed, they put the sustained rate up (here by 11 % before session 35:
  // 17.21 MB/s for 15.55, with 250 ms made up after a pause every ~24 MB),
  // and the model then makes the same time up again after each of its own
  // pauses. The rate between pauses is the device's.
  const FoundParam* rate = found(with, "device.sustained_mbps");
  double truth = load_profile(kStack, base)->params(Layer::Device).get("sustained_mbps");
  REQUIRE(rate != nullptr);
  INFO("sustained_mbps " << rate->value << " for " << truth);
  CHECK(std::fabs(rate->value / truth - 1) <= 0.01);
  CharacterizeReport without = run(0);
  const FoundParam* none = found(without, "device.catchup_ms");
  INFO("catchup_ms found without one: " << (none ? none->value : 0.0));
  CHECK((none == nullptr || none->value == 0));
  // A 2 min plan meets 6 usable pauses: a sign test alone needs 7 of 7 (p <
  // 1 %); the amounts made up (a trimmed t test) tell it from 6.
  CharacterizeReport short_with = run(250, 120);
  const FoundParam* c_short = found(short_with, "device.catchup_ms");
  bool said = false;
  for (const auto& n : short_with.calibration.notes) said |= n.find("catch-up: 6 pauses") != std::string::npos;
  CHECK(said);
  REQUIRE(c_short != nullptr);
  CHECK(c_short->value > 50);
  CharacterizeReport short_without = run(0, 120);
  const FoundParam* none_short = found(short_without, "device.catchup_ms");
  INFO("catchup_ms found without one, 2 min plan: " << (none_short ? none_short->value : 0.0));
  CHECK((none_short == nullptr || none_short->value == 0));
}

TEST_CASE("characterize on a model recovers its parameters and its capacity", "[characterize]") {
  TempDir dir;
  CharacterizeConfig cfg;
  cfg.profile = kStack;
  cfg.sets = kSets;
  cfg.budget_s = 120;
  cfg.keep_traces = dir.path;
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE(r.ok());
  auto truth = load_profile(kStack, kSets);
  REQUIRE(truth.ok());
  const LayerParams& dev = truth->params(Layer::Device);

  auto within = [&](const std::string& key, double want, double tol) {
    const FoundParam* f = found(*r, key);
    INFO(key << " want " << want);
    REQUIRE(f != nullptr);
    CHECK(std::fabs(f->value / want - 1) <= tol);
  };
  within("device.sustained_mbps", dev.get("sustained_mbps"), 0.05);
  within("device.burst_bytes", 150e6, 0.10);
  within("device.burst_mbps", 60, 0.10);
  within("device.recover_mbps", 20, 0.30);
  // The seek penalty and per-op cost are measured through ext4, whose own
  // per-write costs are part of what a recorder meets there.
  within("device.seek_penalty_us", dev.get("seek_penalty_us"), 0.15);
  within("host.dirty_limit_bytes", truth->params(Layer::Host).get("dirty_limit_bytes"), 0.25);
  REQUIRE(found(*r, "filesystem.userspace") != nullptr);
  CHECK(found(*r, "filesystem.userspace")->value == 0);
  CHECK(found(*r, "device.capacity_bytes")->value == Approx(dev.get("capacity_bytes")));
  // The cache was full at the start (a fresh model), and the verdict says so.
  CHECK(r->burst_verdict.find("looks like a full cache") != std::string::npos);

  // Paced traces at three fractions of the sustained rate, as native traces.
  int paced = 0;
  for (const auto& path : r->traces) {
    auto t = read_trace_file(path);
    REQUIRE(t.ok());
    if (t->meta["sweep"] != "paced") continue;
    ++paced;
    double frac = std::stod(t->meta["pace_fraction"]);
    double rate = std::stod(t->meta["pace_bytes_per_s"]);
    CHECK(rate == Approx(frac * dev.get("sustained_mbps") * 1e6).epsilon(0.05));
    size_t writes = std::count_if(t->records.begin(), t->records.end(), [](const TraceRecord& x) { return x.op == OpKind::Write; });
    CHECK(writes >= 10);
  }
  CHECK(paced == 3);

  // The profile says characterize wrote it (it said calibrate), and loads as
  // a whole stack giving the true profile's headline.
  CHECK(r->profile_toml.starts_with("# Written by `streamdisk characterize`."));
  CHECK(r->profile_toml.find("streamdisk calibrate") == std::string::npos);
  auto mine = parse_profile_text(r->profile_toml, "characterized.toml");
  REQUIRE(mine.ok());
  REQUIRE(mine->finish().ok());
  CHECK(mine->has(Layer::Host));
  CHECK(mine->has(Layer::Filesystem));
  CHECK(mine->has(Layer::Device));
  CapacityQuery q;
  q.base = headline_recorder();
  q.target = CapacityTarget::SampleRate;
  auto want = find_capacity(*truth, q);
  REQUIRE(want.ok());
  REQUIRE(want->found);
  REQUIRE(r->capacity.found);
  INFO("characterized " << r->capacity.best << " frames/s, true profile " << want->best);
  CHECK(std::fabs(r->capacity.best / want->best - 1) <= 0.10);
  CHECK(r->headline_bytes_per_s == Approx(r->capacity.best * 2));
  CHECK(!r->criterion.empty());
}

TEST_CASE("characterize says a userspace driver is one and puts its pauses in the writer's call", "[characterize]") {
  CharacterizeConfig cfg;
  cfg.profile = "rpi4-buster+exfat-fuse+sandisk-ultrafit-16g";
  cfg.budget_s = 60;
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE(r.ok());
  REQUIRE(found(*r, "filesystem.userspace") != nullptr);
  CHECK(found(*r, "filesystem.userspace")->value == 1);
  for (const auto& f : r->found) CHECK_FALSE(f.key.starts_with("device.stall_"));
}

TEST_CASE("characterize refuses a model too full to measure, naming the safe level", "[characterize]") {
  CharacterizeConfig cfg;
  cfg.profile = kStack;
  cfg.sets = {"device.capacity_bytes=60MB"};
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE_FALSE(r.ok());
  CHECK(r.message().find("90 %") != std::string::npos);
}

TEST_CASE("a cliff inside a block-size sweep is found and the points split into regimes", "[characterize][cliff]") {
  // 24 MB of cache at 60 MB/s, then 15.6 MB/s; 2 s per point: the cache runs
  // out inside the sweep, and the per-op fit must use one side only.
  auto p = load_profile("sandisk-ultrafit-16g", {"device.burst_bytes=24MB", "device.burst_mbps=60", "device.recover_mbps=0"});
  REQUIRE(p.ok());
  ModelDevice dev(*p);
  VirtualClock clock;
  std::vector<cal::IoOp> writes;
  SweepEnv env;
  env.dev = &dev;
  env.clock = &clock;
  env.trace = [&](const TraceRecord& r) {
    if (r.op == OpKind::Write) writes.push_back({r.start, r.end, r.bytes, false, 0, r.error});
  };
  BlockSizeSweep s;
  s.blocks = {4096, 16384, 65536, 262144, 1 << 20, 4 << 20};
  s.seconds = 0.5;
  s.direct = true;
  s.read = false;
  run_blocksize_sweep(env, s);
  auto reg = cal::sweep_regimes(writes);
  REQUIRE(reg.cliff);
  CHECK(reg.cliff_bytes == Approx(24e6).epsilon(0.1));
  // Everything before the cliff is Before, everything after After, one point across it.
  int crosses = 0;
  bool after = false;
  for (const auto& pt : reg.points) {
    if (pt.regime == cal::Regime::Crosses) ++crosses, after = true;
    else if (pt.regime == cal::Regime::After) after = true;
    else CHECK_FALSE(after);
  }
  CHECK(crosses <= 1);
  CHECK(cal::regimes_text(reg).find("past it") != std::string::npos);
  // The kept ops are all on one side of the cliff...
  REQUIRE(!reg.keep.empty());
  bool past = reg.kept == "past the cliff";
  CHECK((past || reg.kept == "before the cliff"));
  for (size_t i : reg.keep) CHECK((past ? i >= reg.cliff_op : i < reg.cliff_op));
  // ...and the per-op cost fitted on them is the profile's, while a fit over
  // both regimes is not.
  auto fit_on = [&](const std::vector<size_t>& idx) {
    std::vector<double> x, y;
    for (size_t i : idx) x.push_back(static_cast<double>(writes[i].bytes)), y.push_back(writes[i].end - writes[i].start);
    return cal::fit_block_sweep(x, y);
  };
  std::vector<size_t> all(writes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  double t0 = p->params(Layer::Device).get("op_overhead_us") * 1e-6;
  auto one = fit_on(reg.keep), both = fit_on(all);
  REQUIRE(one.ok);
  CHECK(one.overhead_s == Approx(t0).epsilon(0.05));
  CHECK((!both.ok || std::fabs(both.overhead_s / t0 - 1) > 0.05));

  // The same sweep without a cache: no cliff, every op kept.
  auto flat = load_profile("sandisk-ultrafit-16g");
  ModelDevice dev2(*flat);
  VirtualClock clock2;
  writes.clear();
  env.dev = &dev2;
  env.clock = &clock2;
  run_blocksize_sweep(env, s);
  auto none = cal::sweep_regimes(writes);
  CHECK_FALSE(none.cliff);
  CHECK(none.keep.size() == writes.size());
}

TEST_CASE("a cliff at a point boundary shows as a per-byte time rising with the block size", "[characterize][cliff]") {
  // Synthetic ops: 20 writes of 64 KiB at 60 MB/s, then 20 of 256 KiB at 15 MB/s.
  std::vector<cal::IoOp> w;
  double t = 0;
  for (int i = 0; i < 40; ++i) {
    double b = i < 20 ? 65536 : 262144, rate = i < 20 ? 60e6 : 15e6;
    w.push_back({t, t + 1e-4 + b / rate, static_cast<uint64_t>(b), false, 0, 0});
    t = w.back().end;
  }
  auto reg = cal::sweep_regimes(w);
  REQUIRE(reg.cliff);
  CHECK(reg.cliff_op == 20);
}

TEST_CASE("mountinfo lines: fstype and mount point, FUSE types recognised", "[characterize][fsinfo]") {
  std::string mp, type, src;
  REQUIRE(parse_mountinfo_line("36 35 98:0 / /mnt/my\\040stick rw,noatime master:1 - fuseblk /dev/sdb1 rw,user_id=0",
                               mp, type, src));
  CHECK(mp == "/mnt/my stick");
  CHECK(type == "fuseblk");
  CHECK(src == "/dev/sdb1");
  CHECK(is_fuse_fstype(type));
  CHECK(is_fuse_fstype("fuse.exfat"));
  CHECK(is_fuse_fstype("fuse"));
  CHECK_FALSE(is_fuse_fstype("ext4"));
  CHECK_FALSE(is_fuse_fstype("fusectl"));
  // ext4's writeback is not marked as background (wbt's normal depth); the others' is.
  CHECK_FALSE(marks_background_writeback("ext4"));
  CHECK_FALSE(marks_background_writeback("ext3"));
  for (const char* t : {"vfat", "exfat", "xfs", "fuseblk", "fuse.exfat", "ntfs3", ""}) CHECK(marks_background_writeback(t));
  REQUIRE(parse_mountinfo_line("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw", mp, type, src));
  CHECK(type == "ext4");
  CHECK_FALSE(parse_mountinfo_line("garbage", mp, type, src));
  FsInfo root = fs_info("/");
  CHECK_FALSE(root.fstype.empty());
  CHECK_FALSE(root.userspace);
}


TEST_CASE("a userspace driver's device I/O from its open flags: page cache, O_DIRECT, O_SYNC", "[characterize][fsinfo]") {
  unsigned long flags = 0;
  REQUIRE(fdinfo_flags("pos:\t0\nflags:\t0100002\nmnt_id:\t26\n", flags));
  CHECK(flags == 0100002);
  CHECK_FALSE(fdinfo_flags("pos:\t0\nmnt_id:\t26\n", flags));
  CHECK_FALSE(fdinfo_flags("flags:\t01x2\n", flags));
  CHECK_FALSE(fdinfo_flags("flags:\t\n", flags));
  CHECK(driver_io_of_flags(O_RDWR | O_LARGEFILE) == DriverIo::PageCache);  // exfat-fuse, ntfs-3g
  CHECK(driver_io_of_flags(O_RDWR | O_DIRECT) == DriverIo::Direct);
  CHECK(driver_io_of_flags(O_RDWR | O_DSYNC) == DriverIo::Sync);
  CHECK(driver_io_of_flags(O_RDWR | O_SYNC) == DriverIo::Sync);
  for (DriverIo d : {DriverIo::PageCache, DriverIo::Direct, DriverIo::Sync})
    CHECK(driver_io_from_name(driver_io_name(d)) == d);
  CHECK(driver_io_from_name("bogus") == DriverIo::Unknown);

  // A /proc of two processes holding an image file open: the driver found
  // through its fd, by the file's identity, not its name.
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / fmt::format("sd-driverio-{}", ::getpid());
  fs::remove_all(root);
  fs::create_directories(root / "proc/4242/fd");
  fs::create_directories(root / "proc/4242/fdinfo");
  fs::create_directories(root / "proc/77/fd");
  fs::create_directories(root / "proc/77/fdinfo");
  fs::create_directories(root / "proc/self");  // not a pid: skipped
  { std::ofstream(root / "stick.img") << "x"; }
  { std::ofstream(root / "other") << "y"; }
  fs::create_symlink(root / "stick.img", root / "proc/4242/fd/3");
  { std::ofstream(root / "proc/4242/fdinfo/3") << "pos:\t0\nflags:\t0100002\n"; }
  { std::ofstream(root / "proc/4242/comm") << "mount.exfat-fus\n"; }
  fs::create_symlink(root / "other", root / "proc/77/fd/5");
  { std::ofstream(root / "proc/77/fdinfo/5") << "flags:\t040002\n"; }
  FsInfo info;
  info.userspace = true;
  info.source = (root / "stick.img").string();
  find_driver_io(info, (root / "proc").string());
  CHECK(info.driver_io == DriverIo::PageCache);
  CHECK_THAT(info.driver_how, Catch::Contains("mount.exfat-fus (pid 4242") && Catch::Contains("page cache"));
  // The same process with O_DIRECT, then nobody holding it.
  { std::ofstream(root / "proc/4242/fdinfo/3") << fmt::format("flags:\t0{:o}\n", O_RDWR | O_DIRECT); }
  find_driver_io(info, (root / "proc").string());
  CHECK(info.driver_io == DriverIo::Direct);
  fs::remove(root / "proc/4242/fd/3");
  find_driver_io(info, (root / "proc").string());
  CHECK(info.driver_io == DriverIo::Unknown);
  CHECK_THAT(info.driver_how, Catch::Contains("no process"));
  // A source that is no file (sshfs, streamdisk mount): not known, said why.
  info.source = "streamdisk";
  find_driver_io(info, (root / "proc").string());
  CHECK(info.driver_io == DriverIo::Unknown);
  CHECK_THAT(info.driver_how, Catch::Contains("not a device or a file"));
  // A kernel filesystem: nothing to find.
  info.userspace = false;
  info.driver_how.clear();
  find_driver_io(info, (root / "proc").string());
  CHECK(info.driver_how.empty());
  fs::remove_all(root);
}

TEST_CASE("journal commit interval from the mount options: ext4's commit= or its default 5 s", "[characterize]") {
  CHECK(journal_commit_seconds("ext4", "rw,data=ordered") == 5);
  CHECK(journal_commit_seconds("ext4", "rw,commit=30,data=ordered") == 30);
  CHECK(journal_commit_seconds("ext3", "rw,commit=1") == 1);
  CHECK(journal_commit_seconds("ext4", "rw,commit=x") == 5);  // unreadable: the default
  CHECK(journal_commit_seconds("fuseblk", "rw,commit=30") == 0);
  CHECK(journal_commit_seconds("xfs", "rw") == 0);
  std::string mp, type, src, opts;
  REQUIRE(parse_mountinfo_line("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,commit=15", mp, type, src, &opts));
  CHECK(opts == "rw,commit=15");
}

TEST_CASE("characterize keeps to its default budget on a 16 GB stick and on a cached stack", "[characterize][budget]") {
  // The plan, in virtual time (the phases are the ones real storage runs):
  // the default budget, whatever the device. The wall-clock run through a
  // mount is tests/integration/characterize_stick.sh.
  for (const char* spec : {"sandisk-ultrafit-16g", "rpi4-buster+exfat-fuse+sandisk-ultrafit-16g", kStack}) {
    INFO(spec);
    CharacterizeConfig cfg;
    cfg.profile = spec;
    if (std::string(spec) == kStack) cfg.sets = kSets;
    cfg.recorder = headline_recorder();
    REQUIRE(cfg.budget_s == 240);  // the default
    std::vector<std::string> phases;
    cfg.progress = [&](const CharacterizeProgress& p) {
      std::string ph = p.phase.substr(0, p.phase.find(':'));
      if (phases.empty() || phases.back() != ph) phases.push_back(ph);
      CHECK(p.eta >= 0);
    };
    auto r = run_characterize(cfg);
    REQUIRE(r.ok());
    INFO("took " << r->seconds << " s of a " << cfg.budget_s << " s budget");
    CHECK(r->seconds <= cfg.budget_s);
    CHECK(r->seconds >= 0.5 * cfg.budget_s);  // it used the time it was given
    CHECK(phases.size() >= 8);                // progress named every phase
  }
}

TEST_CASE("the block queue writeback goes through is read from sysfs: disk, partition, SCSI depth, wbt off",
          "[characterize][sysfs]") {
  TempDir root;
  namespace fs = std::filesystem;
  auto put = [](const fs::path& p, const char* text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  };
  // A loop device as this machine shows it (depth 128, 1280 KiB requests, wbt on).
  fs::path loop = fs::path(root.path) / "loop0";
  put(loop / "queue/nr_requests", "128");
  put(loop / "queue/max_sectors_kb", "1280");
  put(loop / "queue/wbt_lat_usec", "2000");
  BlockQueue q = block_queue(loop.string());
  CHECK(q.depth == 128);
  CHECK(q.request_bytes == 1280 * 1024);
  CHECK(q.wbt);
  CHECK(q.how.find("nr_requests 128") != std::string::npos);
  // A USB stick's partition: the disk's queue, its SCSI queue_depth (1) over nr_requests.
  fs::path sdb = fs::path(root.path) / "sdb";
  put(sdb / "queue/nr_requests", "2");
  put(sdb / "queue/max_sectors_kb", "120");
  put(sdb / "queue/wbt_lat_usec", "75000");
  put(sdb / "device/queue_depth", "1");
  fs::create_directories(sdb / "sdb1");
  q = block_queue((sdb / "sdb1").string());
  CHECK(q.depth == 1);
  CHECK(q.request_bytes == 120 * 1024);
  CHECK(q.wbt);
  CHECK(q.how.find("device/queue_depth 1") != std::string::npos);
  // BFQ (or wbt_lat_usec = 0): no throttling.
  put(sdb / "queue/wbt_lat_usec", "0");
  CHECK_FALSE(block_queue((sdb / "sdb1").string()).wbt);
  // Nothing there: depth 0, and the caller falls back to one chunk.
  CHECK(block_queue((fs::path(root.path) / "none").string()).depth == 0);
}

TEST_CASE("a device's share of the dirty limit is read from debugfs: disk, partition, nothing there",
          "[characterize][sysfs]") {
  TempDir root;
  namespace fs = std::filesystem;
  auto put = [](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  fs::path sys = fs::path(root.path) / "sys", debug = fs::path(root.path) / "debug";
  // The stats file as Linux 6.x writes it (kB, aligned columns, more keys around).
  auto stats = [](int device_kb, int total_kb) {
    return "BdiWriteback:                0 kB\nBdiReclaimable:              0 kB\nBdiDirtyThresh:         " +
           std::to_string(device_kb) + " kB\nDirtyThresh:           " + std::to_string(total_kb) +
           " kB\nBackgroundThresh:      2428248 kB\nBdiWriteBandwidth:           0 kBps\nb_dirty:  0\n";
  };
  put(sys / "loop0/dev", "7:0\n");
  put(sys / "loop0/queue/nr_requests", "128\n");  // a disk has a queue, a partition not
  put(debug / "bdi/7:0/stats", stats(16380, 16384));
  DirtyShare d = dirty_share((sys / "loop0").string(), debug.string());
  CHECK(d.share == Approx(16380.0 / 16384));
  CHECK(d.device_kb == 16380);
  CHECK(d.path == (debug / "bdi/7:0/stats").string());
  // A partition's share is its disk's bdi (8:16 for sdb, not 8:17).
  put(sys / "sdb/dev", "8:16\n");
  put(sys / "sdb/queue/nr_requests", "2\n");
  put(sys / "sdb/sdb1/dev", "8:17\n");
  put(sys / "sdb/sdb1/partition", "1\n");
  put(debug / "bdi/8:16/stats", stats(607788, 4862436));
  CHECK(dirty_share((sys / "sdb/sdb1").string(), debug.string()).share == Approx(0.125).epsilon(0.001));
  // No debugfs (not mounted, not root) or no device: unknown, not 0.
  CHECK(dirty_share((sys / "loop0").string(), (fs::path(root.path) / "nodebug").string()).share < 0);
  CHECK(dirty_share((sys / "none").string(), debug.string()).share < 0);
}

TEST_CASE("characterize on a model reads its kernel settings and keeps a device's write cache out of the dirty limit",
          "[characterize]") {
  // bench/self_consistency's kernel-cliff stack: ext4, a 32 MiB dirty limit
  // (16 MiB background level) over a device with a 250 MB write cache at
  // 50 MB/s. The buffered phase's fast writes run on into that cache, so a
  // fitted "dirty limit" would be the device's cache (about 120 MB): the
  // kernel's setting (here the model's host layer) bounds it.
  CharacterizeConfig cfg;
  cfg.profile = std::string(SD_SOURCE_DIR) + "/bench/self_consistency/kernel-cliff.toml";
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE(r.ok());
  auto truth = load_profile(cfg.profile, {});
  REQUIRE(truth.ok());
  const LayerParams& host = truth->params(Layer::Host);
  for (const char* k : {"dirty_limit_bytes", "dirty_background_bytes", "writeback_chunk_bytes"}) {
    const FoundParam* f = found(*r, std::string("host.") + k);
    INFO(k);
    REQUIRE(f != nullptr);
    CHECK(f->value == Approx(host.get(k)));
    CHECK(f->phase == "kernel");
  }
  bool said = false;
  for (const auto& n : r->notes) said |= n.find("the profile uses the kernel's settings") != std::string::npos;
  CHECK(said);
  // (What the fitted profile predicts against the true stack's answer, for
  // this stack and five others: bench/self_consistency.sh.)
}

TEST_CASE("characterize on a model: a driver slower than memory does not inflate the dirty limit", "[characterize]") {
  // A userspace driver that takes data at 20 MB/s (ntfs-3g's order: its CPU
  // work is in the call) into a 16 MiB limit / 8 MiB background cache over a
  // 12 MB/s device. The buffered writes slow down gradually while writeback
  // drains them, so their knee (about 9.4 MB here; on the ntfs rig 20 MB and
  // then 15 MB, where the profile's 32 MB limit predicted +50 %) is not the
  // kernel's 12.6 MB freerun ceiling: the profile's limits are the kernel's.
  TempDir dir;
  std::string path = (std::filesystem::path(dir.path) / "slow-driver.toml").string();
  {
    std::ofstream f(path);
    f << "format_version = 1\nname = \"slow-driver\"\n"
         "[host]\nname = \"h\"\n[host.params]\ndirty_limit_bytes = 16777216\ndirty_background_bytes = 8388608\n"
         "writeback_chunk_bytes = 4194304\n"
         "[filesystem]\nname = \"fs\"\n[filesystem.params]\nuserspace = 1\ndriver_mbps = 20\n"
         "[device]\nname = \"d\"\n[device.params]\nsustained_mbps = 12\ncapacity_bytes = 8e9\n";
  }
  CharacterizeConfig cfg;
  cfg.profile = path;
  cfg.recorder = headline_recorder();
  auto r = run_characterize(cfg);
  REQUIRE(r.ok());
  const FoundParam* limit = found(*r, "host.dirty_limit_bytes");
  const FoundParam* bg = found(*r, "host.dirty_background_bytes");
  REQUIRE(limit != nullptr);
  REQUIRE(bg != nullptr);
  std::string notes;
  for (const auto& n : r->notes) notes += "\n  " + n;
  INFO("limit " << limit->value << " (" << limit->phase << ", " << limit->sure << "), background " << bg->value
                << "; notes:" << notes);
  CHECK(limit->value == Approx(16777216).epsilon(0.1));
  CHECK(limit->value <= 16777216);
  CHECK(bg->value == Approx(8388608).epsilon(0.1));
}
