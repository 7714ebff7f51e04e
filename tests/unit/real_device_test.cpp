// RealDevice (measure/) on a temporary directory: operations really happen,
// files are named and removed as promised, and the same sweeps that run on
// the model run here too. Sizes are tiny: these check behaviour, not speed.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "measure/real_device.h"
#include "skip.h"
#include "temp_dir.h"
#include "sim/sweeps.h"

using namespace sd;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<RealDevice> open_dev(const std::string& dir, Clock& clock) {
  auto d = RealDevice::open({dir}, clock);
  REQUIRE(d.ok());
  return std::move(*d);
}

}  // namespace

TEST_CASE("RealDevice refuses a missing directory with a message naming it", "[realdev]") {
  RealClock clock;
  auto d = RealDevice::open({"/nonexistent/sd-dir"}, clock);
  REQUIRE_FALSE(d.ok());
  CHECK(d.message().find("/nonexistent/sd-dir is not a directory") != std::string::npos);
}

TEST_CASE("RealDevice performs writes and reads on real files and times them", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  auto dev = open_dev(tmp.path, clock);
  double t0 = clock.now();
  CHECK(dev->submit({OpKind::Create, 7}, t0).error == 0);
  Completion w = dev->submit({OpKind::Write, 7, 0, 100000}, clock.now());
  CHECK(w.error == 0);
  CHECK(w.bytes == 100000);
  CHECK(w.done >= t0);
  CHECK(dev->submit({OpKind::Fsync, 7}, clock.now()).error == 0);
  CHECK(fs::file_size(dev->path(7)) == 100000);
  Completion r = dev->submit({OpKind::Read, 7, 90000, 65536}, clock.now());
  CHECK(r.error == 0);
  CHECK(r.bytes == 10000);  // short read at EOF
  CHECK(dev->submit({OpKind::Truncate, 7, 0, 4096}, clock.now()).error == 0);
  CHECK(fs::file_size(dev->path(7)) == 4096);
  CHECK(dev->submit({OpKind::Remove, 7}, clock.now()).error == 0);
  CHECK_FALSE(fs::exists(dev->path(7)));
  CHECK(dev->submit({OpKind::Read, 7, 0, 10}, clock.now()).error == ENOENT);
}

TEST_CASE("RealDevice removes the files it created when destroyed, siblings do not", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  {
    auto dev = open_dev(tmp.path, clock);
    dev->submit({OpKind::Create, 1}, 0);
    dev->submit({OpKind::Write, 1, 0, 8192}, 0);
    {
      auto sib = dev->sibling();
      CHECK(sib->submit({OpKind::Read, 1, 0, 8192}, 0).bytes == 8192);
    }
    CHECK(fs::exists(dev->path(1)));
    CHECK(tmp.entries() == 1);  // the O_DIRECT probe file is gone too
  }
  CHECK(tmp.entries() == 0);
}

TEST_CASE("RealDevice with O_DIRECT writes aligned blocks, or says why it cannot", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  auto dev = open_dev(tmp.path, clock);
  if (!dev->direct_works()) {
    REQUIRE(dev->direct_note().find("O_DIRECT refused by the filesystem at " + tmp.path) != std::string::npos);
    sd_test::skip("O_DIRECT refused by the filesystem of " + tmp.path + ": nothing written with O_DIRECT");
    return;
  }
  CHECK(dev->direct_note().empty());
  dev->submit({OpKind::Create, 2, 0, 0, true}, 0);
  Completion w = dev->submit({OpKind::Write, 2, 0, 1 << 20, true}, 0);
  CHECK(w.error == 0);
  CHECK(w.bytes == (1u << 20));
  CHECK(w.direct);
  CHECK(dev->drop_cache(2) == "bypassed (O_DIRECT)");
  CHECK(dev->submit({OpKind::Read, 2, 0, 1 << 20, true}, 0).bytes == (1u << 20));
  // One buffered write and the file is no longer "bypassed": it is dropped like any other.
  Completion b = dev->submit({OpKind::Write, 2, 0, 4096, false}, 0);
  CHECK_FALSE(b.direct);
  CHECK(dev->drop_cache(2).find("bypassed") == std::string::npos);
}

TEST_CASE("RealDevice reports what was done: O_DIRECT asked for but not used is not called bypassed", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  RealDeviceOptions opt{tmp.path};
  opt.probe_direct = false;  // as where the filesystem refuses O_DIRECT: direct ops fall back to buffered
  auto d = RealDevice::open(opt, clock);
  REQUIRE(d.ok());
  auto& dev = *d;
  CHECK_FALSE(dev->submit({OpKind::Create, 3, 0, 0, true}, 0).direct);
  Completion w = dev->submit({OpKind::Write, 3, 0, 1 << 20, true}, 0);
  CHECK(w.error == 0);
  CHECK_FALSE(w.direct);
  std::string cache = dev->drop_cache(3);
  CHECK(cache.find("bypassed") == std::string::npos);
  CHECK((cache.starts_with("dropped") || cache.starts_with("not dropped") || cache.starts_with("fadvise")));
}

TEST_CASE("the blocksize sweep runs unchanged against real storage", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  auto dev = open_dev(tmp.path, clock);
  std::vector<TraceRecord> trace;
  SweepEnv env;
  env.dev = dev.get();
  env.clock = &clock;
  env.trace = [&](const TraceRecord& r) { trace.push_back(r); };
  env.drop_cache = [&](FileId f) { return dev->drop_cache(f); };
  BlockSizeSweep s;
  s.blocks = {4096, 1 << 20};
  s.seconds = 0.2;
  s.max_bytes = 4 << 20;
  auto r = run_blocksize_sweep(env, s);
  REQUIRE(r.points.size() == 2);
  for (const auto& p : r.points) {
    CHECK(p.error == 0);
    CHECK(p.write_bytes > 0);
    CHECK(p.write_rate > 0);
    CHECK(p.read_bytes == p.write_bytes);
    CHECK_FALSE(p.cache.empty());
  }
  CHECK(tmp.entries() == 0);  // each point's file removed
  // The trace holds every operation, times non-decreasing per row.
  REQUIRE(trace.size() > 4);
  for (const auto& t : trace) CHECK(t.end >= t.start);
}

TEST_CASE("the threads sweep runs on real threads, one device each, reading the whole file", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  auto dev = open_dev(tmp.path, clock);
  auto sib = dev->sibling();
  SweepEnv env;
  env.dev = dev.get();
  env.clock = &clock;
  env.thread_devices = {dev.get(), sib.get()};
  size_t rows = 0;
  env.trace = [&](const TraceRecord&) { ++rows; };
  ThreadsSweep s;
  s.blocks = {65536};
  s.threads = {1, 2};
  s.file_bytes = 4 << 20;
  s.seconds = 30;  // ends at EOF long before
  auto r = run_threads_sweep(env, s);
  REQUIRE(r.points.size() == 2);
  for (const auto& p : r.points) {
    CHECK(p.bytes == Approx(4 << 20));
    CHECK(p.reads == 64);
    CHECK(p.error == 0);
  }
  CHECK(rows == 1 + 4 + 1 + 64 + 64 + 2);  // create, 4 writes, fsync, reads, close, remove
  CHECK(tmp.entries() == 0);
}

TEST_CASE("RealDevice never opens, overwrites or removes a file it did not create", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  auto dev = open_dev(tmp.path, clock);
  // The user's file has exactly the name the device would generate for id 1.
  std::string theirs = dev->path(1);
  std::ofstream(theirs) << "user data";
  REQUIRE(dev->submit({OpKind::Create, 1}, 0).error == 0);
  CHECK(dev->path(1) != theirs);  // another name was chosen
  CHECK(dev->submit({OpKind::Write, 1, 0, 4096}, clock.now()).error == 0);
  CHECK(fs::file_size(dev->path(1)) == 4096);
  // Ops on a file the device never created fail and change nothing.
  std::string other = dev->path(2);
  std::ofstream(other) << "more user data";
  CHECK(dev->submit({OpKind::Write, 2, 0, 4096}, clock.now()).error == ENOENT);
  CHECK(dev->submit({OpKind::Truncate, 2, 0, 0}, clock.now()).error == ENOENT);
  CHECK(dev->submit({OpKind::Remove, 2}, clock.now()).error == ENOENT);
  // A name given with name_file() that is taken fails with EEXIST.
  std::ofstream(tmp.path + "/rec.wav") << "an old recording";
  dev->name_file(3, "rec.wav");
  CHECK(dev->submit({OpKind::Create, 3}, clock.now()).error == EEXIST);
  std::string ours = dev->path(1);
  dev.reset();
  CHECK_FALSE(fs::exists(ours));
  CHECK(file_text(theirs) == "user data");
  CHECK(file_text(other) == "more user data");
  CHECK(file_text(tmp.path + "/rec.wav") == "an old recording");
  CHECK(tmp.entries() == 3);
}

TEST_CASE("RealDevice removes thousands of files it created, and only those", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  std::ofstream(tmp.path + "/keep.txt") << "x";
  {
    auto dev = open_dev(tmp.path, clock);
    for (FileId f = 1; f <= 3000; ++f) {
      REQUIRE(dev->submit({OpKind::Create, f}, 0).error == 0);
      REQUIRE(dev->submit({OpKind::Close, f}, 0).error == 0);
    }
    CHECK(tmp.entries() == 3001);
    CHECK(dev->submit({OpKind::Remove, 17}, 0).error == 0);
    CHECK(tmp.entries() == 3000);
  }
  CHECK(tmp.entries() == 1);
}

// In a shared directory another program may rename a file of its own over a
// name this device made. The device knows its files by device and inode:
// it neither empties, reads nor removes what has the name now, and says so.
TEST_CASE("RealDevice leaves a file put in place of its own alone, and says so once", "[realdev]") {
  TempDir tmp;
  RealClock clock;
  std::vector<std::string> warnings;
  RealDeviceOptions opt{tmp.path};
  opt.warn = [&](const std::string& w) { warnings.push_back(w); };
  auto d = RealDevice::open(opt, clock);
  REQUIRE(d.ok());
  auto& dev = *d;
  auto swap_in = [&](FileId f, const std::string& text) {
    std::string theirs = tmp.path + "/theirs.tmp";
    std::ofstream(theirs) << text;
    fs::rename(theirs, dev->path(f));  // atomically, as another program would
  };
  for (FileId f : {1, 2, 3, 4}) {
    REQUIRE(dev->submit({OpKind::Create, f}, 0).error == 0);
    REQUIRE(dev->submit({OpKind::Write, f, 0, 8192}, 0).error == 0);
    REQUIRE(dev->submit({OpKind::Close, f}, 0).error == 0);
  }
  // A second Create of its own file empties it (ftruncate on that file).
  REQUIRE(dev->submit({OpKind::Create, 1}, 0).error == 0);
  CHECK(fs::file_size(dev->path(1)) == 0);
  // ... and never the file that has the name now (O_TRUNC by name emptied it).
  swap_in(2, "theirs 2");
  CHECK(dev->submit({OpKind::Create, 2}, 0).error == ESTALE);
  CHECK(file_text(dev->path(2)) == "theirs 2");
  CHECK(dev->submit({OpKind::Write, 2, 0, 4096}, 0).error == ENOENT);  // forgotten: no longer ours
  // Reading reopens by name: not theirs either.
  swap_in(3, "theirs 3");
  CHECK(dev->submit({OpKind::Read, 3, 0, 4096}, 0).error == ESTALE);
  CHECK(file_text(dev->path(3)) == "theirs 3");
  // Remove leaves the file in its place.
  swap_in(4, "theirs 4");
  CHECK(dev->submit({OpKind::Remove, 4}, 0).error == ESTALE);
  CHECK(file_text(dev->path(4)) == "theirs 4");
  // A file someone removed is simply gone: nothing to leave alone, no warning.
  REQUIRE(dev->submit({OpKind::Create, 6}, 0).error == 0);
  REQUIRE(dev->submit({OpKind::Close, 6}, 0).error == 0);
  fs::remove(dev->path(6));
  CHECK(dev->submit({OpKind::Read, 6, 0, 4096}, 0).error == ENOENT);
  CHECK(dev->submit({OpKind::Remove, 6}, 0).error == 0);
  REQUIRE(warnings.size() == 3);  // one line per file
  CHECK(warnings[0].find(dev->path(2) + " was left in place") != std::string::npos);
  CHECK(warnings[1].find(dev->path(3)) != std::string::npos);
  CHECK(warnings[2].find(dev->path(4)) != std::string::npos);
  // On destruction: its own files go, one put in place of its own stays.
  REQUIRE(dev->submit({OpKind::Create, 5}, 0).error == 0);
  REQUIRE(dev->submit({OpKind::Close, 5}, 0).error == 0);
  swap_in(5, "theirs 5");
  std::string own = dev->path(1), theirs5 = dev->path(5);
  d = RealDevice::open(opt, clock);  // the first one destroyed (the names are kept above)
  CHECK_FALSE(fs::exists(own));
  CHECK(file_text(theirs5) == "theirs 5");
  REQUIRE(warnings.size() == 4);
  CHECK(warnings[3].find(theirs5 + " was left in place") != std::string::npos);
  CHECK(tmp.entries() == 4);  // theirs 2, 3, 4 and 5
}
