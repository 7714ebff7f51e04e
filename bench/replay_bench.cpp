// Replay speed, as ratios measured in one run (STYLE.md 12):
//   - virtual seconds replayed per wall-clock second (a 1-hour, 100 MB/s recorder
//     in 1 MiB writes against the USRP-2974 profile);
//   - the cost of reading the same ops from strace text relative to the native CSV.
#include <chrono>
#include <sstream>

#include <fmt/format.h>

#include "models/profile.h"
#include "models/trace.h"
#include "replay/readers.h"
#include "replay/replayer.h"

using namespace sd;

namespace {
double wall() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main() {
  const int n = 343'000;  // 1 MiB every 10.49 ms for one hour
  const double period = 1048576 / 100e6;
  std::string native = "# streamdisk-trace 1\nstart_s,end_s,op,file,offset,bytes,thread,queue_depth,modelled_end_s,error\n";
  std::string strace = "1 00:00:00.000000 openat(AT_FDCWD, \"rec.dat\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000050>\n";
  native += "0.000000000,0.000050000,create,rec.dat,0,0,0,,,0\n";
  for (int i = 0; i < n; ++i) {
    double t = 0.001 + i * period;
    TraceRecord r;
    r.start = t, r.end = t + 0.0005, r.file = "rec.dat", r.offset = uint64_t(i) << 20, r.bytes = 1 << 20, r.thread = 0;
    native += format_trace_row(r) + "\n";
    int h = static_cast<int>(t / 3600), m = static_cast<int>(t / 60) % 60;
    strace += fmt::format("1 {:02}:{:02}:{:09.6f} write(3, \"\\0\\0\\0\\0\"..., 1048576) = 1048576 <0.000500>\n", h, m,
                          t - h * 3600 - m * 60);
  }
  std::istringstream a(native), b(strace);
  double t0 = wall();
  auto ops = read_native_ops(a, "native");
  double t1 = wall();
  auto ops2 = read_strace(b, "strace");
  double t2 = wall();
  if (!ops.ok() || !ops2.ok() || ops->ops.size() != ops2->ops.size()) {
    fmt::print(stderr, "replay_bench: readers disagree\n");
    return 1;
  }
  auto p = load_profile("usrp-2974");
  if (!p.ok()) return fmt::print(stderr, "{}\n", p.message()), 1;
  ReplayOptions opt;
  double t3 = wall();
  ReplayRun run = replay_on_model(*ops, *p, opt);
  double t4 = wall();
  fmt::print("replay_bench: {} writes, {:.0f} s of recording\n", n, run.stats.completion_s);
  fmt::print("  virtual seconds replayed per wall second: {:.0f} ({:.2f} s wall)\n", run.stats.completion_s / (t4 - t3),
             t4 - t3);
  fmt::print("  ops replayed per wall second: {:.2f} M\n", n / (t4 - t3) / 1e6);
  fmt::print("  reading strace text / reading the native CSV (same ops): {:.2f}x ({:.2f} s vs {:.2f} s)\n",
             (t2 - t1) / (t1 - t0), t2 - t1, t1 - t0);
  return 0;
}
