// calibrate's input readers: fio 3.33 latency logs, fio JSON, the rate table,
// and their bad-input messages; plus the filesystem-difference fit.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

#include "calibrate/calibrate.h"
#include "calibrate/synthetic.h"
#include "models/profile.h"
#include "models/trace.h"

using namespace sd;
using namespace sd::cal;

TEST_CASE("fio 3.33 latency logs parse with and without the offset column", "[calibrate][inputs]") {
  // time_ms, value_ns, ddir, bs, offset, prio (log_offset=1), as fio 3.33 writes them.
  std::istringstream with("0, 215488, 1, 65536, 0, 0\n1, 31319, 1, 65536, 65536, 0\n40, 15810, 1, 65536, 131072, 0\n");
  auto s = parse_fio_lat_log(with, "w_lat.1.log");
  REQUIRE(s.ok());
  REQUIRE(s->ops.size() == 3);
  CHECK(s->ops[0].bytes == 65536);
  CHECK_FALSE(s->ops[0].read);
  CHECK(s->ops[1].end - s->ops[1].start == Approx(31319e-9));
  // Back-to-back I/Os chain; the 40 ms stamp shows an idle gap before the third.
  CHECK(s->ops[1].start == Approx(s->ops[0].end));
  CHECK(s->ops[2].start > 0.039);
  std::istringstream without("3, 1000, 0, 4096, 0\n");  // no log_offset: time, value, ddir, bs, prio
  auto r = parse_fio_lat_log(without, "r_lat.1.log");
  REQUIRE(r.ok());
  CHECK(r->ops[0].read);
}

TEST_CASE("fio logs that cannot be fitted are refused with the fix", "[calibrate][inputs]") {
  std::istringstream avg("100, 5000, 1, 0, 0, 0\n");
  auto a = parse_fio_lat_log(avg, "avg.log");
  REQUIRE_FALSE(a.ok());
  CHECK_THAT(a.message(), Catch::Contains("log_avg_msec"));
  std::istringstream junk("hello world\n");
  CHECK_FALSE(parse_fio_lat_log(junk, "junk.log").ok());
  auto slat = load_fio_lat_log("/nonexistent/w_slat.1.log");
  CHECK_FALSE(slat.ok());
}

TEST_CASE("fio JSON: one rate point per job and direction, block size in fio units", "[calibrate][inputs]") {
  std::string text = R"(note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version":"fio-3.33","global options":{"bs":"4k"},"jobs":[
 {"jobname":"r1","job options":{"rw":"read","bs":"128k","numjobs":"2"},
  "read":{"io_bytes":1048576,"bw_bytes":200000000,"iops":1525.9,"lat_ns":{"mean":650000}},
  "write":{"io_bytes":0,"bw_bytes":0}},
 {"jobname":"w1","job options":{"rw":"write"},
  "read":{"io_bytes":0},"write":{"io_bytes":4096000,"bw_bytes":50000000,"lat_ns":{"mean":80000}}}]})";
  auto p = parse_fio_json(text, "out.json");
  REQUIRE(p.ok());
  REQUIRE(p->size() == 2);
  CHECK((*p)[0].read);
  CHECK((*p)[0].block_bytes == 131072);
  CHECK((*p)[0].threads == 2);
  CHECK((*p)[0].mbps == Approx(200));
  CHECK_FALSE((*p)[1].read);
  CHECK((*p)[1].block_bytes == 4096);  // from the global options
  CHECK_FALSE(parse_fio_json("not json", "x.json").ok());
  CHECK_FALSE(parse_fio_json(R"({"jobs":[{"jobname":"m","job options":{"bs":"4k-16k"},"write":{"io_bytes":1,"bw_bytes":1}}]})",
                             "m.json").ok());
}

TEST_CASE("fio JSON with fields of the wrong type is an error and not a crash", "[calibrate][inputs][fuzz]") {
  // Issue 11: each aborted `calibrate --fio-json` with an uncaught type error.
  for (const char* text : {R"({"jobs":[5]})",
                           R"({"jobs":[{"jobname":"w","job options":{"bs":4096},"write":{"io_bytes":1,"bw_bytes":1}}]})",
                           R"({"jobs":[{"jobname":"w","write":{"io_bytes":1,"bw_bytes":null}}]})",
                           R"({"jobs":[{"jobname":7,"write":{"io_bytes":1,"bw_bytes":1}}]})"}) {
    INFO(text);
    auto r = parse_fio_json(text, "bad.json");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.message(), Catch::Contains("bad.json"));  // one message naming the file (a null bw_bytes reads as no I/O)
  }
}

TEST_CASE("the rate table: header, version, units and bad rows", "[calibrate][inputs]") {
  std::istringstream ok("# streamdisk-table 1\nblock_bytes,threads,mbps\n512,1,94.68\n2k,2,105.7\n");
  auto t = parse_rate_table(ok, "t.csv");
  REQUIRE(t.ok());
  CHECK((*t)[1].block_bytes == 2048);
  CHECK((*t)[1].threads == 2);
  CHECK((*t)[0].read);
  std::istringstream ver("# streamdisk-table 2\nblock_bytes,threads,mbps\n");
  CHECK_THAT(parse_rate_table(ver, "v.csv").message(), Catch::Contains("version"));
  std::istringstream hdr("size,threads,rate\n");
  CHECK_THAT(parse_rate_table(hdr, "h.csv").message(), Catch::Contains("header"));
  std::istringstream neg("block_bytes,threads,mbps\n512,0,3\n");
  CHECK_THAT(parse_rate_table(neg, "n.csv").message(), Catch::Contains("n.csv:2"));
  std::istringstream op("block_bytes,threads,mbps,op\n1m,1,30,write\n");
  auto w = parse_rate_table(op, "o.csv");
  REQUIRE(w.ok());
  CHECK_FALSE((*w)[0].read);
}

TEST_CASE("filesystem overhead from the same sweep under two filesystems", "[calibrate][truth]") {
  // The device alone, and the device under a driver with a per-request cost
  // and a per-byte CPU limit: the difference of the two sweeps is the driver.
  // (No cache recovery: the device idles while the driver works, and a
  // recovering cache would turn the sweep into a mix of burst and sustained.)
  auto dev = load_profile("samsung-960evo-250g", {"device.recover_mbps=0"});
  REQUIRE(dev.ok());
  auto fs = load_profile("samsung-960evo-250g",
                         {"device.recover_mbps=0", "filesystem.request_us=150", "filesystem.driver_mbps=900"});
  REQUIRE(fs.ok());
  std::vector<uint64_t> sizes;
  for (uint64_t b = 4096; b <= (8u << 20); b *= 4) sizes.push_back(b);
  double burst = dev->params(Layer::Device).get("burst_bytes") * 1.05;
  Series base = *series_from_trace(synth_block_sweep(*dev, sizes, 60, {0.02, 1}, burst), "ext4.csv");
  Series target = *series_from_trace(synth_block_sweep(*fs, sizes, 60, {0.02, 2}, burst), "exfat.csv");
  base.baseline = true;
  Options opt;
  opt.layer = Layer::Filesystem;
  auto c = calibrate_loaded({base, target}, {}, {"ext4.csv", "exfat.csv"}, opt);
  REQUIRE(c.ok());
  std::map<std::string, double> got;
  for (const auto& e : c->params) got[e.key] = e.value;
  for (const auto& n : c->notes) UNSCOPED_INFO(n);
  REQUIRE(got.count("filesystem.request_us"));
  REQUIRE(got.count("filesystem.driver_mbps"));
  CHECK(std::fabs(got["filesystem.request_us"] / 150 - 1) <= 0.05);
  CHECK(std::fabs(got["filesystem.driver_mbps"] / 900 - 1) <= 0.05);
  auto toml = profile_toml(*c, "calibrate");
  REQUIRE(toml.ok());
  CHECK(parse_profile_text(*toml, "fs.toml").ok());
}

TEST_CASE("measure's buffered block-size sweep is a sweep, a buffered sustained write feeds the page-cache fit",
          "[calibrate][inputs]") {
  Trace t;
  t.records.push_back({0, 0.001, OpKind::Write, "1", 0, 4096, 0, 1, std::nullopt, 0});
  t.meta = {{"sweep", "blocksize"}, {"direct", "0"}};
  CHECK_FALSE(series_from_trace(t, "sweep.csv")->buffered);
  t.meta = {{"sweep", "sustained"}, {"direct", "0"}};
  CHECK(series_from_trace(t, "sustained.csv")->buffered);
  t.meta = {{"direct", "1"}};
  t.records[0].direct = true;  // what the op did (the column) agrees with the header
  CHECK_FALSE(series_from_trace(t, "direct.csv")->buffered);
}

// The `direct` column says what each write did; the `# direct=` header what
// the tool asked for (characterize asks for O_DIRECT where a filesystem may
// refuse it). Format 1 traces have no column: there the header decides.
TEST_CASE("calibrate takes direct from the trace's column and from the header only in format 1",
          "[calibrate][inputs]") {
  auto trace = [](int version, const char* header, std::vector<bool> column) {
    Trace t;
    t.version = version;
    t.meta = {{"sweep", "sustained"}, {"direct", header}};
    double at = 0;
    for (bool d : column) {
      TraceRecord r;
      r.start = at, r.end = at + 0.001, r.file = "1", r.bytes = 4096, r.direct = d;
      t.records.push_back(r);
      at += 0.001;
    }
    return *series_from_trace(t, "t.csv");
  };
  // Format 2, header and column disagree: the column wins.
  Series asked_direct = trace(2, "1", {false, false});
  CHECK(asked_direct.direct == false);
  CHECK(asked_direct.buffered);  // the page cache was in the writes' times: the page-cache fit
  Series asked_buffered = trace(2, "0", {true, true});
  CHECK(asked_buffered.direct == true);
  CHECK_FALSE(asked_buffered.buffered);
  // A mix says neither: not the page-cache fit.
  Series mixed = trace(2, "0", {true, false});
  CHECK_FALSE(mixed.direct.has_value());
  CHECK_FALSE(mixed.buffered);
  // Format 1: every record reads as direct = 0, so the header decides.
  CHECK(trace(1, "1", {false}).direct == true);
  CHECK_FALSE(trace(1, "1", {false}).buffered);
  CHECK(trace(1, "0", {false}).buffered);
}

TEST_CASE("a format 1 trace read from text keeps its version and takes direct from its header",
          "[calibrate][inputs]") {
  std::istringstream v1(
      "# streamdisk-trace 1\n# sweep=sustained\n# direct=1\n"
      "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n"
      "0,0.001,write,1,0,4096,0,1,,0\n");
  auto t = read_trace(v1, "v1.csv");
  REQUIRE(t);
  CHECK(t->version == 1);
  CHECK(series_from_trace(*t, "v1.csv")->direct == true);
  std::istringstream v2(
      "# streamdisk-trace 2\n# sweep=sustained\n# direct=1\n"
      "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct\n"
      "0,0.001,write,1,0,4096,0,1,,0,0\n");
  t = read_trace(v2, "v2.csv");
  REQUIRE(t);
  CHECK(t->version == 2);
  Series s = *series_from_trace(*t, "v2.csv");
  CHECK(s.direct == false);
  CHECK(s.buffered);
}
