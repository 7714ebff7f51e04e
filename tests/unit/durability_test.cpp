// The durability model (models/durability.h): what a power loss leaves, per
// length rule, device write cache and flush, and which write each surviving
// byte holds; then through ModelDevice and simulate's power-loss report.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/durability.h"
#include "models/fault.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "sim/powerloss.h"
#include "sim/recorder.h"

using namespace sd;

namespace {

DurabilityParams rule(LengthRule r) {
  DurabilityParams p;
  p.rule = r;
  return p;
}

}  // namespace

TEST_CASE("durability: journal rule: a file exists and has a length once a commit after its writeback is durable",
          "[durability]") {
  DurabilityLog log(rule(LengthRule::Journal));
  log.created(1, 0.0);
  log.grew(1, 2000);
  log.device_write(1, 0, 1000, 1.0, 1.5);
  // No commit yet: the file does not survive.
  CHECK_FALSE(log.at(2.0).find(1)->exists);
  log.commit(5.0, 5.01);       // records the length the writeback reached by 5 s
  log.device_write(1, 1000, 1000, 6.0, 6.5);
  CHECK_FALSE(log.at(5.005).find(1)->exists);  // the commit block is not down yet
  auto at7 = log.at(7.0);
  const SurvivingFile* f = at7.find(1);
  REQUIRE(f->exists);
  CHECK(f->length == 1000);      // the second writeback came after the commit started
  CHECK(f->data_bytes() == 1000);
  log.commit(10.0, 10.01);
  CHECK(log.at(11.0).find(1)->length == 2000);
  // fsync commits at once.
  log.grew(1, 3000);
  log.device_write(1, 2000, 1000, 12.0, 12.2);
  log.synced(1, 12.3);
  CHECK(log.at(12.4).find(1)->length == 3000);
  CHECK(log.at(12.25).find(1)->length == 2000);
}

TEST_CASE("durability: with-data rule: the length follows the data on media and a file without any is gone",
          "[durability]") {
  DurabilityLog log(rule(LengthRule::WithData));
  log.created(1, 0.0);
  log.created(2, 0.0);
  log.device_write(1, 0, 4096, 0.5, 1.0);
  log.device_write(1, 4096, 4096, 1.0, 2.0);
  auto img = log.at(1.5);
  CHECK(img.find(1)->exists);
  CHECK(img.find(1)->length == 4096);
  CHECK_FALSE(img.find(2)->exists);
  CHECK(log.at(3).find(1)->length == 8192);
  // Closing writes nothing by itself (sox's file on FAT32 kept its full
  // length after a cut before this was right); fsync does.
  log.created(3, 0.0);
  log.grew(3, 8192);
  log.closed(3, 0.5);
  CHECK_FALSE(log.at(1.0).find(3)->exists);
  log.synced(3, 1.5);
  CHECK(log.at(2.0).find(3)->length == 8192);
  CHECK(log.at(2.0).find(3)->data_bytes() == 0);  // its data never reached the device: zeros
}

TEST_CASE("durability: at-close rule: an unclosed file keeps the length of its last close or fsync",
          "[durability]") {
  DurabilityLog log(rule(LengthRule::AtClose));
  log.created(1, 0.0);
  log.grew(1, 8192);
  log.device_write(1, 0, 8192, 0.5, 1.0);
  auto img = log.at(2.0);
  REQUIRE(img.find(1)->exists);
  CHECK(img.find(1)->length == 0);  // exfat-fuse writes the size at close
  log.closed(1, 3.0);
  CHECK(log.at(3.5).find(1)->length == 8192);
  CHECK(log.at(3.5).find(1)->data_bytes() == 8192);
}

TEST_CASE("durability: a volatile device cache loses the newest bytes unless an honest flush came after them",
          "[durability]") {
  DurabilityParams p = rule(LengthRule::WithData);
  p.cache_bytes = 1000;
  p.destage_s = 10;
  for (bool honest : {true, false}) {
    p.flush_honest = honest;
    DurabilityLog log(p);
    log.created(1, 0);
    log.device_write(1, 0, 600, 0.0, 1.0);
    log.device_write(1, 600, 600, 1.0, 2.0);  // pushes the first 600 out (1200 > 1000 newer... only 600 newer)
    log.device_write(1, 1200, 600, 2.0, 3.0);
    auto before = log.at(3.5);
    // Newer bytes after the first write: 1200 >= 1000, so it is on media; the
    // second has 600 newer: still in the cache; the third too.
    CHECK(before.find(1)->length == 600);
    log.synced(1, 4.0);
    auto after = log.at(4.5);
    CHECK(after.find(1)->data_bytes() == (honest ? 1800u : 600u));
    CHECK(log.at(20).find(1)->data_bytes() == 1800);  // destaged on its own after 10 s
  }
}

TEST_CASE("durability: each surviving byte holds the write issued before its request was sent", "[durability]") {
  SurvivingFile sf;
  sf.exists = true;
  sf.length = 100;
  // Header v1 at 0 (t 0), payload 44..100 (t 1), header v2 at close (t 5).
  std::vector<AppWrite> w = {{0, 44, 0.0}, {44, 56, 1.0}, {0, 44, 5.0}};
  sf.ranges = {{0, 100, 2.0}};  // one writeback sent at 2 s: v1 and the payload
  auto pieces = resolve_contents(sf, w);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].write == 0);
  CHECK(pieces[1].write == 1);
  sf.ranges.push_back({0, 44, 6.0});  // the header went down again after close
  pieces = resolve_contents(sf, w);
  CHECK(pieces[0].write == 2);
  // Bytes of the length that no durable request covered read as zeros.
  sf.ranges = {{0, 44, 6.0}};
  pieces = resolve_contents(sf, w);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[1].write == -1);
  CHECK(pieces[1].offset == 44);
  CHECK(pieces[1].bytes == 56);
}

TEST_CASE("durability: simulate's power loss: what a strict reader gets of a WAV by filesystem and header strategy",
          "[durability]") {
  ModelOptions mo;
  mo.durability = true;
  for (const char* fs : {"ext4", "fat32"}) {
    auto p = load_profile(std::string("laptop-i7-7700+") + fs + "+samsung-sata-ssd-laptop");
    REQUIRE(p.ok());
    for (uint64_t every : {uint64_t{0}, uint64_t{48000}}) {
      INFO(fs << ", header every " << every << " frames");
      ModelDevice model(*p, mo);
      FaultSchedule faults(1);
      faults.add(*parse_fault("powerloss@20s"));
      FaultDevice dev(model, faults);
      WriteKeeper keeper(dev);
      VirtualClock clock;
      RecorderConfig c;
      c.stream = {2, 48000, 16, false};
      c.format = FormatKind::Wav;
      c.duration_s = 30;
      c.header_every_frames = every;
      std::vector<std::pair<FileId, std::string>> names;
      RecorderHooks h;
      h.naming = [&](FileId f, const std::string& n) { names.emplace_back(f, n); };
      auto r = run_recorder(keeper, clock, c, h);
      REQUIRE(r.ok());
      CHECK(r->stop_errno == EIO);
      REQUIRE(faults.power_lost_at() == Approx(20.0));
      auto s = survivors(model.power_loss_image(20.0), keeper, names, c.format, c.stream);
      REQUIRE(s.size() == 1);
      REQUIRE(s[0].exists);
      CHECK(s[0].length > 0);
      REQUIRE(s[0].inspected);
      const Inspection& i = s[0].inspection;
      double lenient = i.lenient_seconds();
      if (std::string(fs) == "ext4") {
        // Commits every 5 s: the length is what writeback reached by the last
        // one, less than the recorder wrote.
        CHECK(s[0].length < s[0].size_at_loss);
        CHECK(lenient > 5);
        CHECK(lenient < 20);
        // A header rewritten in place is durable at once, the length only at
        // the next commit: the header runs ahead, a strict reader gets nothing.
        CHECK(i.strict_seconds() == 0);
        if (every) CHECK(i.declared_bytes > i.present_bytes);
      } else {
        // FAT32: the length follows the data written back (at once here).
        CHECK(lenient > 18);
        if (every == 0) CHECK(i.strict_seconds() == 0);
        else CHECK(i.strict_seconds() > lenient - 1.5);
      }
      if (every == 0) CHECK(i.repair_needed);  // the placeholder header
    }
  }
}
