// The fault schedule (models/fault.h): the spec parser and TOML files, and
// when each fault fires, on a device whose timing is known exactly.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cmath>

#include "models/fault.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "sim/recorder.h"

using namespace sd;

namespace {

// 1 MB/s, no per-op cost, nothing else: a write of b bytes takes b / 1e6 s.
class LinearDevice final : public Device {
 public:
  Completion submit(const Op& op, double now) override {
    ++ops;
    if (op.kind == OpKind::Write || op.kind == OpKind::Read) return {now + op.bytes / 1e6, 0, op.bytes};
    return {now, 0, 0};
  }
  int ops = 0;
};

FaultSpec spec(const std::string& text) {
  auto f = parse_fault(text);
  INFO(text << ": " << (f ? "" : f.message()));
  REQUIRE(f.ok());
  return *f;
}

std::string error_of(const std::string& text) {
  auto f = parse_fault(text);
  REQUIRE_FALSE(f.ok());
  return f.message();
}

Op write_op(uint64_t off, uint64_t bytes, FileId file = 1) { return Op{OpKind::Write, file, off, bytes}; }

}  // namespace

TEST_CASE("fault spec: what, operations, trigger and options are read", "[fault]") {
  FaultSpec a = spec("eio:write@2GB");
  CHECK(a.kind == FaultKind::Errno);
  CHECK(a.error == EIO);
  CHECK(a.targets(OpKind::Write));
  CHECK_FALSE(a.targets(OpKind::Read));
  CHECK(a.trigger == TriggerKind::Byte);
  CHECK(a.at == 2e9);
  CHECK(std::isinf(a.for_s));

  FaultSpec b = spec("ENOSPC:write+fsync@1.5min,for=10s,file=*.wav,p=25%");
  CHECK(b.error == ENOSPC);
  CHECK(b.targets(OpKind::Fsync));
  CHECK(b.trigger == TriggerKind::Time);
  CHECK(b.at == 90);
  CHECK(b.for_s == 10);
  CHECK(b.file_glob == "*.wav");
  CHECK(b.probability == 0.25);

  FaultSpec c = spec("delay=500ms@op3");
  CHECK(c.kind == FaultKind::Delay);
  CHECK(c.delay_s == 0.5);
  CHECK(c.trigger == TriggerKind::OpCount);
  CHECK(c.at == 3);
  CHECK(c.for_ops == 1);  // a spike: one operation unless for= says otherwise
  CHECK(c.targets(OpKind::Read));

  CHECK(spec("rate=0.25@10s,for=5s").rate_factor == 0.25);
  CHECK(spec("short=25%:read").fraction == 0.25);
  CHECK(spec("errno=EROFS").error == EROFS);
  CHECK(spec("gone@512MiB").at == 512.0 * 1024 * 1024);
  CHECK(spec("eio,for=3ops").for_ops == 3);
  CHECK(spec("powerloss@90s").kind == FaultKind::PowerLoss);
}

TEST_CASE("fault spec: bad specs get one line naming the part and a valid form", "[fault]") {
  CHECK_THAT(error_of("eoops@2GB"), Catch::Contains("unknown fault 'eoops'"));
  CHECK_THAT(error_of("eio:wrte"), Catch::Contains("unknown operation 'wrte'"));
  CHECK_THAT(error_of("eio@2"), Catch::Contains("needs a unit"));
  CHECK_THAT(error_of("eio@2m"), Catch::Contains("minutes or MiB"));
  CHECK_THAT(error_of("eio@2parsecs"), Catch::Contains("unknown size unit"));
  CHECK_THAT(error_of("eio@op0"), Catch::Contains("from op1 on"));
  CHECK_THAT(error_of("delay"), Catch::Contains("needs a value"));
  CHECK_THAT(error_of("delay=-1s"), Catch::Contains("must be a duration"));
  CHECK_THAT(error_of("rate=0"), Catch::Contains("factor above 0"));
  CHECK_THAT(error_of("eio,p=2"), Catch::Contains("probability"));
  CHECK_THAT(error_of("eio,p=0.1,p=0.2"), Catch::Contains("given twice"));
  CHECK_THAT(error_of("eio,bogus=1"), Catch::Contains("not an option"));
  CHECK_THAT(error_of("gone,for=10s"), Catch::Contains("stays gone"));
  CHECK_THAT(error_of("gone:write"), Catch::Contains("drop :write"));
  CHECK_THAT(error_of("short:fsync"), Catch::Contains(":write or :read"));
  CHECK_THAT(error_of("eio @2GB"), Catch::Contains("without spaces"));
  CHECK_THAT(error_of(""), Catch::Contains("without spaces"));
  for (const char* bad : {"eio", "gone", "short"}) {
    auto f = parse_fault(std::string(bad) + "@1GB,for=");
    CHECK_FALSE(f.ok());
    if (!f.ok()) CHECK(f.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("fault file: [[fault]] tables become the same specs", "[fault]") {
  auto v = parse_fault_toml(
      "[[fault]]\nfault = \"eio\"\nops = \"write\"\nat = \"2GB\"\n"
      "[[fault]]\nfault = \"delay=2s\"\nat = \"90s\"\nfor = \"10s\"\nfile = \"*.wav\"\np = 0.5\n",
      "f.toml");
  REQUIRE(v.ok());
  REQUIRE(v->size() == 2);
  CHECK((*v)[0].text == "eio:write@2GB");
  CHECK((*v)[1].delay_s == 2);
  CHECK((*v)[1].probability == 0.5);
  CHECK((*v)[1].file_glob == "*.wav");
  auto bad = parse_fault_toml("[[fault]]\nfault = \"eio\"\nwhen = \"2GB\"\n", "f.toml");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.message(), Catch::Contains("f.toml: fault 1: unknown key 'when'"));
  auto bad2 = parse_fault_toml("[[fault]]\nfault = \"eio\"\nat = \"2\"\n", "f.toml");
  REQUIRE_FALSE(bad2.ok());
  CHECK_THAT(bad2.message(), Catch::Contains("needs a unit"));
  CHECK_FALSE(parse_fault_toml("[[fault]\n", "f.toml").ok());
  CHECK_FALSE(parse_fault_toml("x = 1\n", "f.toml").ok());
}

TEST_CASE("fault at a byte: the write reaching it is cut there and the next one fails", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("eio:write@2500B"));
  FaultDevice dev(inner, s);
  double t = 0;
  uint64_t off = 0;
  Completion c = dev.submit(write_op(off, 1000), t);
  CHECK(c.bytes == 1000);
  off += c.bytes, t = c.done;
  c = dev.submit(write_op(off, 1000), t);
  CHECK(c.bytes == 1000);
  off += c.bytes, t = c.done;
  c = dev.submit(write_op(off, 1000), t);  // bytes 2000..2999 hold byte 2500
  CHECK(c.error == 0);
  CHECK(c.bytes == 500);
  off += c.bytes, t = c.done;
  c = dev.submit(write_op(off, 500), t);
  CHECK(c.error == EIO);
  CHECK(c.bytes == 0);
  CHECK(off == 2500);
  // Reads are not targeted.
  CHECK(dev.submit(Op{OpKind::Read, 1, 0, 100}, t).error == 0);
  REQUIRE(s.events().size() == 2);
  CHECK_THAT(s.events()[1].text, Catch::Contains("EIO on write"));
}

TEST_CASE("fault at a time: nothing before it, errors in its window, none after", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("enospc@10s,for=5s"));
  FaultDevice dev(inner, s);
  CHECK(dev.submit(write_op(0, 10), 9.99).error == 0);
  CHECK(dev.submit(write_op(0, 10), 10.0).error == ENOSPC);
  CHECK(dev.submit(write_op(0, 10), 14.9).error == ENOSPC);
  CHECK(dev.submit(write_op(0, 10), 15.0).error == 0);
  CHECK(s.hits(0) == 2);
}

TEST_CASE("fault at the Nth operation counts only targeted operations", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("eio:fsync@op2"));
  FaultDevice dev(inner, s);
  Op fsync{OpKind::Fsync, 1};
  CHECK(dev.submit(write_op(0, 10), 0).error == 0);
  CHECK(dev.submit(fsync, 1).error == 0);
  CHECK(dev.submit(write_op(10, 10), 2).error == 0);
  CHECK(dev.submit(fsync, 3).error == EIO);
  CHECK(dev.submit(write_op(20, 10), 4).error == 0);
}

TEST_CASE("fault with a probability hits about that share of operations, repeatably", "[fault]") {
  auto run = [](uint64_t seed) {
    LinearDevice inner;
    FaultSchedule s(seed);
    s.add(spec("eio:read,p=0.1"));
    FaultDevice dev(inner, s);
    int errors = 0;
    for (int i = 0; i < 10000; ++i) errors += dev.submit(Op{OpKind::Read, 1, 0, 10}, i) .error == EIO;
    return errors;
  };
  int a = run(1);
  CHECK(a > 850);
  CHECK(a < 1150);
  CHECK(run(1) == a);
  CHECK(run(2) != a);
}

TEST_CASE("fault file pattern: only named files that match are hit", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("eio,file=*.wav"));
  s.name_file(1, "take1.wav");
  s.name_file(2, "take1.txt");
  FaultDevice dev(inner, s);
  CHECK(dev.submit(write_op(0, 10, 1), 0).error == EIO);
  CHECK(dev.submit(write_op(0, 10, 2), 0).error == 0);
  CHECK(dev.submit(write_op(0, 10, 3), 0).error == 0);  // never named
}

TEST_CASE("fault delay, rate and short change times and sizes in their window only", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("delay=2s@op2"));
  s.add(spec("rate=0.5@100s,for=10s"));
  s.add(spec("short:write@200s"));
  FaultDevice dev(inner, s);
  CHECK(dev.submit(write_op(0, 1000), 0).done == Approx(0.001));
  CHECK(dev.submit(write_op(0, 1000), 1).done == Approx(3.001));  // the 2nd operation
  CHECK(dev.submit(write_op(0, 1000), 2).done == Approx(2.001));  // a spike is one operation
  CHECK(dev.submit(write_op(0, 1000), 100).done == Approx(100.002));
  CHECK(dev.submit(write_op(0, 1000), 110).done == Approx(110.001));
  Completion c = dev.submit(write_op(0, 1000), 200);
  CHECK(c.bytes == 500);
  CHECK(c.done == Approx(200.0005));
  CHECK(dev.submit(write_op(0, 1000), 201).bytes == 1000);
}

TEST_CASE("fault gone: every later operation of every kind fails", "[fault]") {
  LinearDevice inner;
  FaultSchedule s;
  s.add(spec("gone@5s"));
  FaultDevice dev(inner, s);
  CHECK(dev.submit(write_op(0, 10), 4).error == 0);
  CHECK(s.gone_error() == 0);
  CHECK(dev.submit(Op{OpKind::Fsync, 1}, 5).error == EIO);
  CHECK(s.gone_error() == EIO);
  int before = inner.ops;
  for (OpKind k : {OpKind::Create, OpKind::Write, OpKind::Read, OpKind::Close})
    CHECK(dev.submit(Op{k, 2, 0, 10}, 6).error == EIO);
  CHECK(inner.ops == before);  // nothing reached the device
}

TEST_CASE("fault schedule in a recording: EIO at a byte stops the recorder there", "[fault]") {
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p.ok());
  ModelDevice model(*p);
  FaultSchedule s;
  s.add(spec("eio:write@10MB,file=rec.raw"));
  FaultDevice dev(model, s);
  VirtualClock clock;
  RecorderConfig cfg;
  cfg.stream.channels = 2;
  cfg.stream.sample_rate = 48000;
  cfg.duration_s = 600;
  RecorderHooks hooks;
  hooks.naming = [&s](FileId f, const std::string& name) { s.name_file(f, name); };
  auto r = run_recorder(dev, clock, cfg, hooks);
  REQUIRE(r.ok());
  CHECK(r->stop_errno == EIO);
  REQUIRE(r->files.size() == 1);
  CHECK(r->files[0].name == "rec.raw");
  CHECK(r->files[0].bytes == 10'000'000);
  // 10 MB of 192 kB/s were acquired by 52 s; the writer reaches them up to
  // one block (131072 frames, 2.7 s) later.
  REQUIRE(r->stopped_s);
  CHECK(*r->stopped_s > 10e6 / 192e3);
  CHECK(*r->stopped_s < 10e6 / 192e3 + 2.8);
}
