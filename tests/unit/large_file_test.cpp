// Files past 4 GiB and sizes past 2^32: the reason to run these on armhf
// (tests/cross.sh; CI: tests/cross_unit.sh), where size_t and long are 32 bits
// and off_t is too unless the build asks for 64-bit file offsets. On real
// storage (RealDevice, the input reader) with sparse files, so nothing near
// 4 GiB is written; in the model (its file table, a recording, the native
// trace written, read back and replayed) in virtual time.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "measure/real_device.h"
#include "models/input.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "models/trace.h"
#include "replay/readers.h"
#include "replay/replayer.h"
#include "sim/recorder.h"
#include "temp_dir.h"

using namespace sd;

namespace {

constexpr uint64_t k4GiB = uint64_t{1} << 32;

std::string pattern(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed) % 251);
  return s;
}

// The file's bytes at `off`, read with the system's own pread (not RealDevice).
std::string pread_at(const std::string& path, uint64_t off, size_t n) {
  int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::string s(n, '\0');
  ssize_t got = ::pread(fd, s.data(), n, static_cast<off_t>(off));
  ::close(fd);
  REQUIRE(got >= 0);
  s.resize(static_cast<size_t>(got));
  return s;
}

// A long pipe, cheaply: `head`, then `rows` copies of `row`, made as they are
// read (nothing of the whole is held).
class RowsStreambuf : public std::streambuf {
 public:
  RowsStreambuf(std::string head, std::string row, uint64_t rows)
      : chunk_(std::move(head)), row_(std::move(row)), left_(rows) {
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (left_ == 0) return traits_type::eof();
    chunk_.clear();
    for (; left_ > 0 && chunk_.size() < (size_t{1} << 16); --left_) chunk_ += row_;
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string chunk_, row_;
  uint64_t left_;
};

uint64_t size_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

TEST_CASE("RealDevice writes and reads past 4 GiB in one file with sizes past 2^32", "[realdev][32bit]") {
  static_assert(sizeof(off_t) == 8, "64-bit file offsets (_FILE_OFFSET_BITS=64, top-level CMakeLists.txt)");
  TempDir tmp;
  RealClock clock;
  auto opened = RealDevice::open({tmp.path}, clock);
  REQUIRE(opened.ok());
  auto& dev = *opened;
  REQUIRE(dev->submit({OpKind::Create, 1}, clock.now()).error == 0);
  const std::string path = dev->path(1);

  // One write across the 4 GiB boundary, one wholly past it.
  const std::string across = pattern(8192, 1), past = pattern(65536, 2);
  const uint64_t across_at = k4GiB - 4096 + 17, past_at = k4GiB + 3 * 65536 + 5;
  Op w{OpKind::Write, 1, across_at, across.size()};
  w.data = across.data();
  Completion c = dev->submit(w, clock.now());
  REQUIRE(c.error == 0);
  CHECK(c.bytes == across.size());
  w.offset = past_at, w.bytes = past.size(), w.data = past.data();
  c = dev->submit(w, clock.now());
  REQUIRE(c.error == 0);
  CHECK(c.bytes == past.size());
  CHECK(size_of(path) == past_at + past.size());
  CHECK(pread_at(path, across_at, across.size()) == across);
  CHECK(pread_at(path, past_at, past.size()) == past);
  CHECK(pread_at(path, k4GiB, 1) == across.substr(4096 - 17, 1));  // byte 2^32 itself

  // RealDevice's own reads there: whole, and short at the end of the file.
  c = dev->submit({OpKind::Read, 1, past_at, past.size()}, clock.now());
  CHECK(c.error == 0);
  CHECK(c.bytes == past.size());
  c = dev->submit({OpKind::Read, 1, past_at + past.size() - 100, 4096}, clock.now());
  CHECK(c.error == 0);
  CHECK(c.bytes == 100);

  // Truncate (extend) to a size past 2^32 + 2^31, where a 32-bit off_t wraps negative.
  const uint64_t big = 5 * (uint64_t{1} << 30) + 1;
  REQUIRE(dev->submit({OpKind::Truncate, 1, 0, big}, clock.now()).error == 0);
  CHECK(size_of(path) == big);
  c = dev->submit({OpKind::Read, 1, big - 10, 4096}, clock.now());
  CHECK(c.error == 0);
  CHECK(c.bytes == 10);
  // Page-cache residency over the whole 5 GiB: mapped window by window on a
  // 32-bit address space, never truncated to a size_t.
  CHECK(dev->drop_cache(1).find("not checked") == std::string::npos);
  CHECK(dev->submit({OpKind::Remove, 1}, clock.now()).error == 0);
}

TEST_CASE("the model's file table holds one file past 4 GiB with sizes past 2^32", "[model][32bit]") {
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p.ok());
  ModelDevice dev(*p);
  REQUIRE(dev.submit({OpKind::Create, 1}, 0).error == 0);
  // A write across 2^32, then one single write of more than 4 GiB past it
  // (O_DIRECT: at the drive's rate, not the page cache's).
  Completion c = dev.submit({OpKind::Write, 1, k4GiB - 100, 1000, true}, 0);
  CHECK(c.error == 0);
  CHECK(c.bytes == 1000);
  CHECK(dev.files().size(1) == k4GiB + 900);
  const uint64_t huge = k4GiB + 12345;
  c = dev.submit({OpKind::Write, 1, 2 * k4GiB, huge, true}, c.done);
  CHECK(c.error == 0);
  CHECK(c.bytes == huge);
  CHECK(dev.files().size(1) == 2 * k4GiB + huge);
  // It took the time of 4 GiB at the drive's rate, not of a size cut to 32 bits
  // (12345 bytes): 960 EVO's 300 MB/s past its write cache, 1900 MB/s within it.
  CHECK(c.done > static_cast<double>(huge) / 2000e6);
  c = dev.submit({OpKind::Read, 1, 2 * k4GiB + huge - 10, 4096}, c.done);
  CHECK(c.error == 0);
  CHECK(c.bytes == 10);
  // Truncate to a size past 2^32 + 2^31 (negative as a 32-bit off_t), then below 2^32.
  const uint64_t big = 5 * (uint64_t{1} << 30) + 1;
  CHECK(dev.submit({OpKind::Truncate, 1, 0, big}, c.done).error == 0);
  CHECK(dev.files().size(1) == big);
  CHECK(dev.submit({OpKind::Truncate, 1, 0, 4096}, c.done).error == 0);
  CHECK(dev.files().size(1) == 4096);
}

TEST_CASE("a recording of one 6.9 GB file: its trace past 2^32 written, read back and replayed", "[recorder][trace][32bit]") {
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p.ok());
  RecorderConfig c;
  c.stream = {48, 48000, 24, false};
  c.format = FormatKind::Raw;
  c.duration_s = 1000;  // 6.9 GB in one file
  TempDir tmp;
  const std::string path = tmp.path + "/rec.csv";
  TraceWriter trace;
  REQUIRE(trace.open(path, {{"profile", "samsung-960evo-250g"}}).ok());
  ModelDevice dev(*p);
  VirtualClock clock;
  RecorderHooks hooks;
  hooks.trace = &trace;
  auto r = run_recorder(dev, clock, c, hooks);
  REQUIRE(r.ok());
  REQUIRE(trace.close().ok());
  CHECK(r->stopped_reason.empty());
  CHECK(r->frames_written == r->frames_total);
  REQUIRE(r->files.size() == 1);
  // Whole periods of 144-byte frames: 6.912 GB, a few periods short.
  const uint64_t payload = r->frames_total * 144;
  CHECK(payload == Approx(48 * 48000 * 3 * 1000.0).epsilon(1e-4));
  CHECK(r->payload_bytes == payload);
  CHECK(r->files[0].bytes == payload);
  CHECK(dev.files().size(1) == payload);

  // The native trace reader: every write's offset and length, and the writes
  // laid end to end up to the file's size past 2^32.
  auto t = read_trace_file(path);
  REQUIRE(t.ok());
  auto ops = read_ops_file(path);
  REQUIRE(ops.ok());
  REQUIRE(ops->ops.size() == t->records.size());
  uint64_t next = 0, written = 0, past = 0;
  for (size_t i = 0; i < ops->ops.size(); ++i) {
    const auto& o = ops->ops[i];
    if (o.kind != OpKind::Write) continue;
    CHECK(o.offset == t->records[i].offset);
    CHECK(o.bytes == t->records[i].bytes);
    if (o.offset != next) FAIL_CHECK("write " << i << " at " << o.offset << ", expected " << next);
    next = o.offset + o.bytes, written += o.bytes;
    past += o.offset > k4GiB;
  }
  CHECK(next == payload);
  CHECK(written == payload);
  CHECK(past > ops->ops.size() / 3);
  // Replayed on the same model: the same bytes reach one file of the same size.
  auto run = replay_on_model(*ops, *p, {});
  CHECK(run.stats.failed_ops == 0);
  CHECK(run.stats.bytes_written == Approx(static_cast<double>(payload)).epsilon(1e-12));
}

TEST_CASE("an input file past 4 GiB is refused by its size, a trace row past 2^32 is read whole", "[input][32bit]") {
  TempDir tmp;
  // Sparse: 5 GiB + 1 of zeros that take no space.
  const std::string big = tmp.path + "/big.csv";
  int fd = ::open(big.c_str(), O_CREAT | O_WRONLY, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(5 * (uint64_t{1} << 30) + 1)) == 0);
  ::close(fd);
  auto in = read_input(big, "trace");
  REQUIRE_FALSE(in.ok());
  CHECK(in.message().find("more than 4 GiB of input") != std::string::npos);
  auto ops = read_ops_file(big);
  CHECK_FALSE(ops.ok());

  // Offsets and sizes that do not fit 32 bits, in a row written and read back.
  TraceRecord w;
  w.op = OpKind::Write, w.file = "1", w.offset = (uint64_t{1} << 40) + 7, w.bytes = k4GiB + 3, w.end = 1;
  TraceRecord tr = w;
  tr.op = OpKind::Truncate, tr.offset = 0, tr.bytes = 3 * k4GiB + 1, tr.start = 2, tr.end = 2;
  const std::string path = tmp.path + "/t.csv";
  TraceWriter out;
  REQUIRE(out.open(path, {}).ok());
  out.write(w);
  out.write(tr);
  REQUIRE(out.close().ok());
  auto t = read_trace_file(path);
  REQUIRE(t.ok());
  REQUIRE(t->records.size() == 2);
  CHECK(t->records[0].offset == w.offset);
  CHECK(t->records[0].bytes == w.bytes);
  CHECK(t->records[1].bytes == tr.bytes);
  CHECK(format_trace_row(t->records[0]) == format_trace_row(w));
}

TEST_CASE("a trace longer than a 32-bit build holds in memory is refused by its line count, not out of memory",
          "[input][32bit]") {
  std::string l;
  {  // The limit itself: a limit of 3 lines takes 3 and refuses the 4th.
    std::istringstream three("a\nb\nc\n"), four("a\nb\nc\nd\n");
    LineReader ok(three, "three", InputLimits{1 << 20, 64, 3});
    while (ok.next(l)) {}
    CHECK(ok.ok());
    CHECK(ok.lineno() == 3);
    LineReader over(four, "four", InputLimits{1 << 20, 64, 3});
    while (over.next(l)) {}
    CHECK(over.lineno() == 3);
    CHECK_THAT(over.status().message(), Catch::StartsWith("four: more than 3 lines"));
  }
  // A trace's header and one row, then empty lines (cheap to read under an
  // emulator: no record each) up to one line past the 32-bit limit.
  const std::string head = std::string("# streamdisk-trace 2\n") +
                           "start_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error,direct\n" +
                           "0,0,write,1,0,4096,,,,,0\n";
  RowsStreambuf rows(head, "\n", kMaxLines32 - 2);
  std::istream in(&rows);
  auto ops = read_native_ops(in, "pipe");
  if (sizeof(void*) >= 8) {
    // 64-bit: no line limit (memory, not address space, is the bound).
    CHECK(kTextLimits.max_lines == 0);
    REQUIRE(ops.ok());
    CHECK(ops->ops.size() == 1);
    return;
  }
  // 32-bit: refused at the line past the limit, with the count and the fix.
  REQUIRE(kTextLimits.max_lines == kMaxLines32);
  REQUIRE_FALSE(ops.ok());
  CHECK_THAT(ops.message(), Catch::StartsWith("pipe: more than 4000000 lines") && Catch::Contains("split -l"));
  // The limit leaves room: the records of that many rows, twice over (a
  // vector's growth holds the old and the new block), and their replay ops
  // fit in the address space at once.
  std::vector<TraceRecord> records, grown;
  std::vector<ReplayOp> replay_ops;
  records.reserve(kMaxLines32);
  grown.reserve(kMaxLines32);
  replay_ops.reserve(kMaxLines32);
  CHECK(records.capacity() + grown.capacity() + replay_ops.capacity() == 3 * kMaxLines32);
}
