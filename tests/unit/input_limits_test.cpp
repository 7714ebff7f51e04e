// Issue 11: readers that hold. Limits, line endings, strict numbers and
// range checks at the reader level (the CLI cases are tests/cli/hostile_input.sh).
#include <sstream>

#include <catch2/catch.hpp>

#include "calibrate/inputs.h"
#include "calibrate/read_fit.h"
#include "models/input.h"
#include "models/profile.h"
#include "models/trace.h"
#include "models/units.h"
#include "replay/readers.h"
#include "replay/replayer.h"

using namespace sd;

namespace {
std::string native(const std::string& rows, const std::string& meta = "") {
  return "# streamdisk-trace 1\n" + meta + "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n" +
         rows;
}
std::string trace_error(const std::string& text) {
  std::istringstream in(text);
  auto r = read_trace(in, "t.csv");
  REQUIRE(!r.ok());
  return r.message();
}
}  // namespace

TEST_CASE("LineReader: CRLF and LF lines, a last line without a newline", "[input]") {
  std::istringstream in("a\r\nbb\nccc");
  LineReader r(in, "x");
  std::string l;
  REQUIRE(r.next(l));
  CHECK(l == "a");
  REQUIRE(r.next(l));
  CHECK(l == "bb");
  REQUIRE(r.next(l));
  CHECK(l == "ccc");
  CHECK(r.lineno() == 3);
  CHECK(!r.next(l));
  CHECK(r.ok());
}

TEST_CASE("LineReader stops at a NUL byte, an overlong line, CR-only endings and too much input", "[input]") {
  std::string l;
  {
    std::istringstream in(std::string("ok\nab\0cd\n", 9));
    LineReader r(in, "bin");
    CHECK(r.next(l));
    CHECK(!r.next(l));
    CHECK(r.status().message() == "bin:2: holds a NUL byte: this is binary data, not a text file");
  }
  {
    std::istringstream in(std::string(100, 'x') + "\n");
    LineReader r(in, "long", InputLimits{1 << 20, 64});
    CHECK(!r.next(l));
    CHECK_THAT(r.status().message(), Catch::Contains("long:1: a line longer than 64 B"));
  }
  {
    std::istringstream in("one\rtwo\rthree\r");
    LineReader r(in, "mac");
    CHECK(!r.next(l));
    CHECK_THAT(r.status().message(), Catch::StartsWith("mac:1: CR-only line endings"));
  }
  {
    std::istringstream in("1\n2\n3\n4\n5\n");
    LineReader r(in, "big", InputLimits{5, 0});
    int n = 0;
    while (r.next(l)) ++n;
    CHECK(n == 2);
    CHECK_THAT(r.status().message(), Catch::Contains("more than 5 B of input"));
  }
}

TEST_CASE("check_text and excerpt keep messages short", "[input]") {
  CHECK(check_text("a\nb\n", "t").ok());
  CHECK(!check_text(std::string("a\0", 2), "t").ok());
  CHECK(!check_text("a\rb", "t").ok());
  CHECK(excerpt(std::string(500, 'y')).size() == 83);
  CHECK(excerpt("a\tb") == "a?b");
}

TEST_CASE("ChainedStreambuf replays the lines format detection read, then the rest", "[input]") {
  std::istringstream tail("line 3\nline 4\n");
  ChainedStreambuf buf("line 1\nline 2\n", tail.rdbuf());
  std::istream in(&buf);
  std::string all, l;
  while (std::getline(in, l)) all += l + "|";
  CHECK(all == "line 1|line 2|line 3|line 4|");
}

TEST_CASE("numbers: one decimal syntax, no hex, inf or nan", "[input][units]") {
  double v = 0;
  CHECK(parse_decimal("12.5", v));
  CHECK(v == 12.5);
  CHECK(parse_decimal("-2e-3", v));
  CHECK(!parse_decimal("0x10", v));
  CHECK(!parse_decimal("inf", v));
  CHECK(!parse_decimal("nan", v));
  CHECK(!parse_decimal("1e999", v));
  CHECK(!parse_decimal("", v));
  uint64_t w = 0;
  CHECK(parse_whole("42", w));
  CHECK(!parse_whole("-1", w));
  CHECK(!parse_whole("99999999999999999999999", w));
  CHECK(!parse_size("0x10").ok());
  CHECK(!parse_count("0x10").ok());
  CHECK(!parse_rate("5GB").ok());
  CHECK(parse_rate("5GB/s").ok());
  CHECK(!parse_size("1e300GB").ok());
}

TEST_CASE("profile values: whole numbers for counts and flags, decimal everywhere", "[input][profile]") {
  CHECK_THAT(load_profile("samsung-960evo-250g", {"device.read_queue_depth=2.5"}).message(),
             Catch::Contains("must be a whole number"));
  CHECK(load_profile("samsung-960evo-250g", {"device.read_queue_depth=4"}).ok());
  CHECK(!load_profile("samsung-960evo-250g", {"device.sustained_mbps=0x10"}).ok());
  CHECK_THAT(load_profile("samsung-960evo-250g", {"device.sustained_mbps=5GB"}).message(),
             Catch::Contains("is a size, not a rate"));
  auto hex = parse_profile_text("format_version = 1\nlayer = \"device\"\n[params]\nsustained_mbps = 0x10\n", "h.toml");
  CHECK_THAT(hex.message(), Catch::Contains("hexadecimal"));
  auto flag = parse_profile_text("format_version = 1\nlayer = \"filesystem\"\n[params]\nuserspace = 0.5\n", "f.toml");
  CHECK_THAT(flag.message(), Catch::Contains("0 or 1"));
  auto layer = parse_profile_text("format_version = 1\nlayer = 3\n", "l.toml");
  CHECK_THAT(layer.message(), Catch::Contains("layer = 3 is not a layer"));
}

TEST_CASE("native trace: negative, huge and non-finite values are refused where they are read", "[input][trace]") {
  CHECK_THAT(trace_error(native("0,0.1,write,f,0,-1,0,1,,0\n")), Catch::Contains("t.csv:3: bytes '-1'"));
  CHECK_THAT(trace_error(native("0,0.1,write,f,-5,1,0,1,,0\n")), Catch::Contains("offset '-5'"));
  CHECK_THAT(trace_error(native("-1e300,0.1,write,f,0,1,0,1,,0\n")), Catch::Contains("start_s and end_s"));
  CHECK_THAT(trace_error(native("nan,0.1,write,f,0,1,0,1,,0\n")), Catch::Contains("start_s and end_s"));
  CHECK_THAT(trace_error(native("0,0.1,write,f,0,1,-1,1,,0\n")), Catch::Contains("thread '-1'"));
  CHECK_THAT(trace_error(native("0,0.1,write,f,0,1,0,-1,,0\n")), Catch::Contains("queue_depth '-1'"));
  CHECK_THAT(trace_error(native("0,0.1,write,f,0,1,0,1,,-5\n")), Catch::Contains("unknown error '-5'"));
  CHECK_THAT(trace_error(native("0,0.1,write,f,99999999999999999999,1,0,1,,0\n")), Catch::Contains("offset"));
  std::istringstream in(native("0,0.1,write,f,0,1,0,1,,0\n", "# capacity_bytes=nan\n"));
  auto t = read_trace(in, "t.csv");
  REQUIRE(t.ok());
  CHECK_THAT(meta_number(t->meta, "capacity_bytes", "t.csv", 1e17).message(),
             Catch::Contains("'# capacity_bytes=nan' must be a number"));
  CHECK_THAT(cal::series_from_trace(*t, "t.csv").message(), Catch::Contains("capacity_bytes=nan"));
}

TEST_CASE("strace: impossible times, results larger than asked, -ttt detection", "[input][strace]") {
  auto err = [](const std::string& text) {
    std::istringstream in(text);
    auto r = read_strace(in, "s");
    REQUIRE(!r.ok());
    return r.message();
  };
  CHECK_THAT(err("1 25:61:99.000000 close(3) = 0 <0.1>\n"), Catch::Contains("impossible timestamp"));
  CHECK_THAT(err("1 10:00:00.000000 openat(AT_FDCWD, \"/f\", O_WRONLY|O_CREAT) = 3 <0.1>\n"
                 "1 10:00:00.100000 write(3, \"x\"..., 10) = 20 <0.1>\n"),
             Catch::Contains("write returned 20, more than the 10 bytes"));
  // Found by the strace fuzz target: an offset near 2^63 plus a length overflowed.
  const std::string open = "1 10:00:00.000000 openat(AT_FDCWD, \"/f\", O_WRONLY|O_CREAT) = 3 <0.1>\n";
  CHECK_THAT(err(open + "1 10:00:00.100000 fallocate(3, 0, 9223372036854775807, 4096) = 0 <0.1>\n"),
             Catch::Contains("past 1e17 bytes"));
  CHECK_THAT(err(open + "1 10:00:00.100000 ftruncate(3, 9223372036854775807) = 0 <0.1>\n"),
             Catch::Contains("past 1e17 bytes"));
  CHECK_THAT(err(open + "1 10:00:00.100000 pwrite64(3, \"x\", 1, 9223372036854775807) = 1 <0.1>\n"),
             Catch::Contains("past 1e17 bytes"));
  CHECK_THAT(err(open + "1 10:00:00.100000 lseek(3, 0, SEEK_END) = 99999999999999999 <0.1>\n"
                 "1 10:00:00.200000 write(3, \"x\", 10) = 10 <0.1>\n"),
             Catch::Contains("past 1e17 bytes"));
  std::istringstream ttt("1700000000.000000 openat(AT_FDCWD, \"/f\", O_WRONLY|O_CREAT) = 3 <0.1>\n");
  auto f = detect_trace_format(ttt, "s");
  REQUIRE(f.ok());
  CHECK(*f == TraceFormat::Strace);
}

TEST_CASE("fio JSON: fields of the wrong type are one message, not an exception", "[input][calibrate]") {
  for (const char* text : {R"({"jobs":[5]})", R"({"jobs":[{"job options":{"bs":4096},"write":{"io_bytes":1}}]})",
                           R"({"jobs":[{"jobname":7}]})", R"({"jobs":[{"write":{"io_bytes":"1"}}]})",
                           R"({"jobs":[{"write":{"io_bytes":1,"bw_bytes":1,"lat_ns":[1]}}]})",
                           R"({"global options":5,"jobs":[]})", R"({"jobs":[{"job options":{"numjobs":"-3"},"write":{"io_bytes":1,"bw_bytes":1}}]})",
                           "[1,2]", "{"}) {
    INFO(text);
    auto r = cal::parse_fio_json(text, "f.json");
    CHECK(!r.ok());
  }
}

TEST_CASE("the read fit's cost guard refuses a huge table and passes a normal one", "[input][calibrate]") {
  std::vector<cal::RatePoint> small, big;
  for (int t : {1, 2, 4})
    for (double b : {4096.0, 65536.0, 1048576.0}) small.push_back({b, t, 100, true, 0, "x"});
  CHECK(cal::check_read_fit_cost(small).ok());
  for (int i = 0; i < 500; ++i) big.push_back({4096.0 * (i + 1), 1 + i % 64, 100, true, 0, "x"});
  CHECK_THAT(cal::check_read_fit_cost(big).message(), Catch::Contains("500 read cells"));
}

TEST_CASE("replay: writes that fail are not written and the run does not keep up", "[input][replay]") {
  OpList ops;
  for (int i = 0; i < 8; ++i) {
    ReplayOp o;
    o.start = i * 0.5;
    o.file = "f";
    o.offset = static_cast<uint64_t>(i) * 1048576;
    o.bytes = 1048576;
    ops.ops.push_back(o);
  }
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p.ok());
  ModelOptions mo;
  mo.capacity_bytes = 2.5 * 1048576;
  ReplayOptions opt;
  ReplayRun run = replay_on_model(ops, *p, opt, mo);
  CHECK(run.stats.bytes_written <= mo.capacity_bytes);
  CHECK(run.stats.failed_ops >= 5);
  CHECK(run.stats.failed_write_bytes >= 5 * 1048576.0);
  REQUIRE(run.stats.first_error);
  CHECK(run.stats.first_error->kind == "write");
  REQUIRE(run.stats.kept_up);
  CHECK(!*run.stats.kept_up);
  // Without the capacity limit the same trace keeps up, so the errors decided it.
  ReplayRun ok = replay_on_model(ops, *p, opt, ModelOptions{});
  CHECK(ok.stats.failed_ops == 0);
  CHECK(ok.stats.kept_up.value_or(false));
}

TEST_CASE("native trace versions: 2 carries the direct column, 1 is read as buffered, others are refused",
          "[input][trace]") {
  const std::string v2 =
      "# streamdisk-trace 2\nstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct\n";
  {
    std::istringstream in(v2 + "0,0.001,write,f,0,4096,0,1,,0,1\n0.001,0.002,write,f,4096,4096,0,1,,0,0\n");
    auto t = read_trace(in, "v2.csv");
    REQUIRE(t.ok());
    REQUIRE(t->records.size() == 2);
    CHECK(t->records[0].direct);
    CHECK_FALSE(t->records[1].direct);
    CHECK(format_trace_row(t->records[0]) == "0.000000000,0.001000000,write,f,0,4096,0,1,,0,1");
  }
  {
    std::istringstream in(native("0,0.001,write,f,0,4096,0,1,,0\n"));
    auto t = read_trace(in, "v1.csv");
    REQUIRE(t.ok());
    REQUIRE(t->records.size() == 1);
    CHECK_FALSE(t->records[0].direct);
  }
  CHECK_THAT(trace_error(v2 + "0,0.001,write,f,0,4096,0,1,,0,yes\n"), Catch::Contains("direct 'yes' must be 0 or 1"));
  CHECK_THAT(trace_error(v2 + "0,0.001,write,f,0,4096,0,1,,0\n"), Catch::Contains("expected 11 fields, found 10"));
  CHECK_THAT(trace_error(native("0,0.001,write,f,0,4096,0,1,,0,1\n")), Catch::Contains("expected 10 fields, found 11"));
  CHECK_THAT(trace_error("# streamdisk-trace 1\nstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,"
                         "error,direct\n"),
             Catch::Contains("unexpected column header for format version 1"));
  CHECK_THAT(trace_error("# streamdisk-trace 3\n"), Catch::Contains("versions 1 to 2"));
}
