// streamdisk measure vs fio on the same path, block sizes, size and mode
// (STYLE.md 12: a ratio measured in one run). For each point fio runs a
// sequential write (then read) job with psync, and `measure`'s blocksize
// sweep writes (then reads back) the same number of bytes in the same
// blocks; the ratio is measure's throughput / fio's. Runs alternate
// fio-first and measure-first, five times; the median of each is used.
//
//   measure_fio_bench [DIR]     (default: a temp dir under /var/tmp, local disk)
//   measure_fio_bench /dev/shm  (tmpfs: no device noise, the tools' own overhead)
//
// Buffered runs use no fsync on either side (fio: no end_fsync; measure:
// --fsync never) and drop the page cache before reads (fio invalidate=1,
// measure: fadvise DONTNEED) and fio does not preallocate (fallocate=none;
// a recorder does not either): both time the same system calls.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "measure/measure.h"
#include "models/units.h"

namespace {

struct Rates {
  double write = 0, read = 0;  // bytes/s
};

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

Rates fio(const std::string& dir, uint64_t block, uint64_t size, bool direct) {
  Rates r;
  for (const char* rw : {"write", "read"}) {
    // The read job reads the file the write job left (same name, same size).
    std::string cmd = fmt::format(
        "fio --name=sdbench --directory={} --filename=fio-bench.dat --rw={} --bs={} --size={} --direct={} "
        "--ioengine=psync --invalidate=1 --fallocate=none --output-format=json 2>/dev/null",
        dir, rw, block, size, direct ? 1 : 0);
    auto j = nlohmann::json::parse(run(cmd), nullptr, false);
    if (j.is_discarded() || !j.contains("jobs")) {
      fmt::print(stderr, "fio failed: {}\n", cmd);
      std::exit(1);
    }
    double bw = j["jobs"][0][rw]["bw_bytes"].get<double>();
    (std::string(rw) == "write" ? r.write : r.read) = bw;
  }
  std::filesystem::remove(dir + "/fio-bench.dat");
  return r;
}

Rates measure(const std::string& dir, uint64_t block, uint64_t size, bool direct) {
  sd::MeasureConfig c;
  c.sweep = sd::SweepKind::BlockSize;
  c.path = dir;
  c.blocks = {block};
  c.size = static_cast<double>(size);
  c.seconds = 1e6;  // the size ends each phase, as fio's --size does
  c.direct = direct;
  c.fsync = sd::FsyncMode::Never;
  auto r = sd::run_measure(c);
  if (!r || r->table.rows.empty()) {
    fmt::print(stderr, "measure failed: {}\n", r ? "no rows" : r.message());
    std::exit(1);
  }
  const auto& row = r->table.rows[0];  // block, write_mbps, ..., read_mbps at index 5
  return {row[1] * 1e6, row[5] * 1e6};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  bool own = argc < 2;
  if (own) {
    char tmpl[] = "/var/tmp/sd-fio-bench-XXXXXX";
    if (!::mkdtemp(tmpl)) return 1;
    dir = tmpl;
  } else {
    dir = argv[1];
  }
  if (run("fio --version").empty()) {
    fmt::print(stderr, "fio is not installed (apt install fio)\n");
    return 1;
  }
  struct Point {
    uint64_t block, size;
  };
  const std::vector<Point> points = {{4096, 64 << 20}, {65536, 256 << 20}, {1 << 20, 512 << 20}};
  fmt::print("measure vs fio on {} (psync, sequential; ratio = measure / fio, median of 5)\n", dir);
  fmt::print("{:>9} {:>9}  {:>10} {:>10} {:>6}   {:>10} {:>10} {:>6}\n", "mode", "block", "fio write", "measure",
             "ratio", "fio read", "measure", "ratio");
  for (bool direct : {true, false})
    for (const Point& p : points) {
      std::vector<double> fw, fr, mw, mr;
      for (int rep = 0; rep < 5; ++rep) {
        Rates a, b;
        if (rep % 2 == 0) {
          a = fio(dir, p.block, p.size, direct);
          b = measure(dir, p.block, p.size, direct);
        } else {
          b = measure(dir, p.block, p.size, direct);
          a = fio(dir, p.block, p.size, direct);
        }
        fw.push_back(a.write), fr.push_back(a.read), mw.push_back(b.write), mr.push_back(b.read);
      }
      double w = median(mw) / median(fw), r = median(mr) / median(fr);
      fmt::print("{:>9} {:>9}  {:>10} {:>10} {:>6.2f}   {:>10} {:>10} {:>6.2f}\n", direct ? "direct" : "buffered",
                 sd::format_size(static_cast<double>(p.block)), sd::format_rate(median(fw)),
                 sd::format_rate(median(mw)), w, sd::format_rate(median(fr)), sd::format_rate(median(mr)), r);
    }
  if (own) std::filesystem::remove_all(dir);
  return 0;
}
