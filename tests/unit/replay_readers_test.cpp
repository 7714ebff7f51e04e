// Trace readers: strace lines and fd bookkeeping, fio iologs, detection.
#include <sstream>

#include <catch2/catch.hpp>

#include "replay/readers.h"
#include "replay/strace_line.h"

using namespace sd;

namespace {
OpList strace(const std::string& text) {
  std::istringstream in(text);
  auto r = read_strace(in, "t.strace");
  REQUIRE(r.ok());
  return *r;
}
std::string strace_error(const std::string& text) {
  std::istringstream in(text);
  auto r = read_strace(in, "t.strace");
  REQUIRE(!r.ok());
  return r.message();
}
}  // namespace

TEST_CASE("strace line: pid, time, arguments with quotes and parentheses, result, duration") {
  StraceClock clk;
  auto l = parse_strace_line(R"(4242  10:00:01.500000 write(3, "a, b) = 1\"x"..., 4096) = 4096 <0.000250>)", clk);
  REQUIRE(l.error.empty());
  REQUIRE(l.kind == StraceLineKind::Call);
  CHECK(l.call.pid == 4242);
  CHECK(l.call.name == "write");
  REQUIRE(l.call.args.size() == 3);
  CHECK(l.call.arg_int(2) == 4096);
  CHECK(l.call.ret == 4096);
  CHECK(l.call.duration == Approx(0.00025));
  auto l2 = parse_strace_line("[pid  7] 10:00:02.000000 fsync(3) = 0 <0.1>", clk);
  CHECK(l2.call.pid == 7);
  CHECK(l2.call.start == Approx(0.5));
}

TEST_CASE("strace line: -tt times wrap past midnight") {
  StraceClock clk;
  parse_strace_line("23:59:59.900000 close(3) = 0 <0.000001>", clk);
  auto l = parse_strace_line("00:00:00.100000 close(4) = 0 <0.000001>", clk);
  CHECK(l.call.start == Approx(0.2));
}

TEST_CASE("strace: fd offsets follow write, lseek, pwrite64, O_APPEND, dup2 and close") {
  auto ops = strace(
      "1 10:00:00.000000 openat(AT_FDCWD, \"out.w64\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3 <0.0001>\n"
      "1 10:00:00.001000 write(3, \"hdr\"..., 100) = 100 <0.0001>\n"
      "1 10:00:00.002000 write(3, \"data\"..., 4096) = 4096 <0.0002>\n"
      "1 10:00:00.003000 lseek(3, 16, SEEK_SET) = 16 <0.00001>\n"
      "1 10:00:00.004000 write(3, \"size\", 8) = 8 <0.00001>\n"
      "1 10:00:00.005000 lseek(3, 0, SEEK_END) = 4196 <0.00001>\n"
      "1 10:00:00.006000 pwrite64(3, \"x\", 10, 9000) = 10 <0.00001>\n"
      "1 10:00:00.007000 write(3, \"y\", 5) = 5 <0.00001>\n"
      "1 10:00:00.008000 dup2(3, 1) = 1 <0.00001>\n"
      "1 10:00:00.009000 close(3) = 0 <0.00001>\n"
      "1 10:00:00.010000 write(1, \"z\", 7) = 7 <0.00001>\n"
      "1 10:00:00.011000 fdatasync(1) = 0 <0.02>\n"
      "1 10:00:00.012000 close(1) = 0 <0.00001>\n"
      "1 10:00:00.013000 openat(AT_FDCWD, \"log\", O_WRONLY|O_APPEND) = 4 <0.0001>\n"
      "1 10:00:00.014000 write(4, \"l\", 3) = 3 <0.00001>\n"
      "1 10:00:00.015000 write(2, \"msg\", 3) = 3 <0.00001>\n"
      "1 10:00:00.016000 openat(AT_FDCWD, \"/nope\", O_RDONLY) = -1 ENOENT (No such file or directory) <0.00001>\n"
      "1 10:00:00.017000 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f0000000000 <0.00001>\n"
      "1 10:00:00.018000 +++ exited with 0 +++\n");
  std::vector<std::tuple<OpKind, std::string, uint64_t, uint64_t>> want = {
      {OpKind::Create, "out.w64", 0, 0},  {OpKind::Write, "out.w64", 0, 100},   {OpKind::Write, "out.w64", 100, 4096},
      {OpKind::Write, "out.w64", 16, 8},  {OpKind::Write, "out.w64", 9000, 10}, {OpKind::Write, "out.w64", 4196, 5},
      {OpKind::Write, "out.w64", 4201, 7}, {OpKind::Fsync, "out.w64", 0, 0},    {OpKind::Close, "out.w64", 0, 0},
      {OpKind::Create, "log", 0, 0},       {OpKind::Write, "log", 0, 3}};
  REQUIRE(ops.ops.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("op " << i);
    CHECK(ops.ops[i].kind == std::get<0>(want[i]));
    CHECK(ops.ops[i].file == std::get<1>(want[i]));
    CHECK(ops.ops[i].offset == std::get<2>(want[i]));
    CHECK(ops.ops[i].bytes == std::get<3>(want[i]));
  }
  CHECK(ops.ops[7].duration == Approx(0.02));
  CHECK(ops.ops[1].start == Approx(0.001));
  CHECK(ops.unknown.at("mmap") == 1);
  CHECK(ops.ignored.at("writes to stdin/stdout/stderr not opened in the trace") == 1);
}

TEST_CASE("strace -f: an unfinished call takes its start from the first half and its result from the second") {
  auto ops = strace(
      "10 10:00:00.000000 openat(AT_FDCWD, \"a\", O_WRONLY|O_CREAT, 0644) = 3 <0.0001>\n"
      "11 10:00:00.000500 openat(AT_FDCWD, \"b\", O_RDWR|O_CREAT, 0644) = 3 <0.0001>\n"
      "10 10:00:00.001000 write(3, \"...\"..., 1048576 <unfinished ...>\n"
      "11 10:00:00.001500 write(3, \"bb\", 2) = 2 <0.00001>\n"
      "10 10:00:00.030000 <... write resumed>) = 1048576 <0.029000>\n"
      "11 10:00:00.031000 pwrite64(3, \"c\", 1, <unfinished ...>\n"
      "11 10:00:00.032000 <... pwrite64 resumed>512) = 1 <0.001>\n");
  REQUIRE(ops.ops.size() == 5);
  CHECK(ops.ops[2].file == "a");
  CHECK(ops.ops[2].start == Approx(0.001));
  CHECK(ops.ops[2].duration == Approx(0.029));
  CHECK(ops.ops[2].bytes == 1048576);
  CHECK(ops.ops[2].thread != ops.ops[3].thread);
  CHECK(ops.ops[3].file == "b");
  CHECK(ops.ops[4].offset == 512);
}

TEST_CASE("strace: bad lines are errors naming the line") {
  CHECK_THAT(strace_error("1 10:00:00.000000 close(3) = 0 <0.1>\n1 garbage here\n"),
             Catch::Contains("t.strace:2:") && Catch::Contains("timestamp"));
  CHECK_THAT(strace_error("10:00:00.000000 write(3, \"abc\n"), Catch::Contains("t.strace:1:"));
  CHECK_THAT(strace_error("10:00:00.000000 <... write resumed>) = 3 <0.1>\n"),
             Catch::Contains("t.strace:1:") && Catch::Contains("unfinished"));
  CHECK_THAT(strace_error("10:00:00.000000 close(3)\n"), Catch::Contains("result"));
}

TEST_CASE("fio iolog v2: waits accumulate into times, trim is counted, not replayed") {
  std::istringstream in(
      "fio version 2 iolog\n/d/f add\n/d/f open\n/d/f write 0 4096\n/d/f wait 1500 0\n"
      "/d/f write 4096 4096\n/d/f trim 0 4096\n/d/f sync 0 0\n/d/f close\n");
  auto r = read_fio_iolog(in, "j.log");
  REQUIRE(r.ok());
  CHECK(r->format == "fio-iolog-v2");
  REQUIRE(r->ops.size() == 5);
  CHECK(r->ops[1].start == 0);
  CHECK(r->ops[2].start == Approx(0.0015));
  CHECK(r->ops[2].offset == 4096);
  CHECK(r->ops[3].kind == OpKind::Fsync);
  CHECK(r->unknown.at("trim") == 1);
  CHECK_FALSE(r->has_durations());
}

TEST_CASE("fio iolog v3: microsecond times, malformed lines name the line") {
  std::istringstream in("fio version 3 iolog\n10 /d/f add\n20 /d/f open\n1020 /d/f write 0 8192\n3000 /d/f close\n");
  auto r = read_fio_iolog(in, "j.log");
  REQUIRE(r.ok());
  REQUIRE(r->ops.size() == 3);
  CHECK(r->ops[1].start == Approx(0.00102));
  std::istringstream bad("fio version 3 iolog\n20 /d/f open\n30 /d/f write zero 10\n");
  auto e = read_fio_iolog(bad, "j.log");
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(e.message(), Catch::Contains("j.log:3:"));
  std::istringstream nohdr("/d/f open\n");
  CHECK_FALSE(read_fio_iolog(nohdr, "j.log").ok());
}

TEST_CASE("format detection") {
  auto det = [](const std::string& s) {
    std::istringstream in(s);
    return detect_trace_format(in, "x");
  };
  CHECK(*det("# streamdisk-trace 1\n") == TraceFormat::Native);
  CHECK(*det("\nfio version 3 iolog\n") == TraceFormat::FioIolog);
  CHECK(*det("123  10:00:00.000001 close(3) = 0 <0.1>\n") == TraceFormat::Strace);
  CHECK(*det("10:00:00.000001 close(3) = 0\n") == TraceFormat::Strace);
  CHECK(*det("[pid 5] 10:00:00.000001 close(3) = 0\n") == TraceFormat::Strace);
  CHECK_FALSE(det("time,op\n1,2\n").ok());
}

TEST_CASE("strace: a read moves the offset (libsndfile reads a header back), writev writes at it") {
  auto ops = strace(
      "1 10:00:00.000000 openat(AT_FDCWD, \"a.w64\", O_RDWR|O_CREAT|O_TRUNC, 0666) = 3 <0.0001>\n"
      "1 10:00:00.001000 write(3, \"riff\"..., 104) = 104 <0.0001>\n"
      "1 10:00:00.002000 lseek(3, 0, SEEK_SET) = 0 <0.00001>\n"
      "1 10:00:00.003000 read(3, \"riff\"..., 104) = 104 <0.00001>\n"
      "1 10:00:00.004000 writev(3, [{iov_base=\"a\", iov_len=4096}, {iov_base=\"b\", iov_len=4096}], 2) = 8192 <0.0001>\n"
      "1 10:00:00.005000 pread64(3, \"x\", 8, 0) = 8 <0.00001>\n"
      "1 10:00:00.006000 write(3, \"c\", 10) = 10 <0.00001>\n");
  REQUIRE(ops.ops.size() == 6);
  CHECK(ops.ops[2].kind == OpKind::Read);
  CHECK(ops.ops[3].kind == OpKind::Write);
  CHECK(ops.ops[3].offset == 104);
  CHECK(ops.ops[3].bytes == 8192);
  CHECK(ops.ops[4].kind == OpKind::Read);
  CHECK(ops.ops[5].offset == 104 + 8192);
}
