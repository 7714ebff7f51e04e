// Files past 4 GiB on real storage: the reason to run these on armhf
// (tests/cross.sh), where size_t is 32 bits and off_t is too unless the build
// asks for 64-bit file offsets. Sparse files, so nothing near 4 GiB is written.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "measure/real_device.h"
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
