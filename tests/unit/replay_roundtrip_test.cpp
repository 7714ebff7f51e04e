// Round trips: a trace written by ModelDevice-driven code in virtual time,
// replayed against the same profile, reproduces every completion time
// exactly; a rate-driven recorder on a slow device needs the buffer the
// steady-rate model predicts.
#include <filesystem>

#include <catch2/catch.hpp>

#include "models/analytic.h"
#include "models/model_device.h"
#include "models/trace.h"
#include "replay/readers.h"
#include "replay/replayer.h"
#include "sequential_write.h"

using namespace sd;

namespace {

// Records every op that passes through it as a native trace row.
class TracingDevice final : public Device {
 public:
  TracingDevice(Device& inner, TraceWriter& w) : inner_(inner), w_(w) {}
  Completion submit(const Op& op, double now) override {
    Completion c = inner_.submit(op, now);
    TraceRecord r;
    r.start = now;
    r.end = c.done;
    r.op = op.kind;
    r.file = std::to_string(op.file);
    r.offset = op.offset;
    r.bytes = op.kind == OpKind::Write ? c.bytes : op.bytes;
    r.thread = 0;
    r.error = c.error;
    w_.write(r);
    return c;
  }

 private:
  Device& inner_;
  TraceWriter& w_;
};

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("sd_replay_" + std::to_string(::getpid()) + "_" + name)).string();
}

Profile profile(const std::vector<std::string>& sets) {
  auto p = load_profile("samsung-960evo-250g", sets);
  REQUIRE(p.ok());
  return *p;
}

}  // namespace

TEST_CASE("round trip: a sequential run through the burst->sustained knee with stalls replays bit-exactly") {
  // A 64 MB burst region so the knee falls inside 200 writes; stalls on.
  Profile p = profile({"device.burst_bytes=64MB", "device.stall_interval_mb=20", "device.stall_duration_ms=40",
                       "device.stall_duration_sigma=0.5"});
  std::string path = temp_path("seq.csv");
  SequentialResult sim;
  {
    ModelOptions mo;
    mo.seed = 7;
    ModelDevice dev(p, mo);
    VirtualClock clock;
    TraceWriter w;
    REQUIRE(w.open(path, {{"profile", p.name}, {"seed", "7"}}).ok());
    TracingDevice td(dev, w);
    SequentialWrite job;
    job.count = 200;
    job.fsync_at_end = true;
    sim = run_sequential_write(td, clock, job);
    REQUIRE(w.close().ok());
    REQUIRE(dev.state(clock.now()).stalls > 0);  // the test means something only if stalls happened
  }
  auto ops = read_ops_file(path);
  std::filesystem::remove(path);
  REQUIRE(ops.ok());
  CHECK(ops->format == "native");
  ReplayRun run = replay_on_model(*ops, p, {}, 7);
  std::vector<double> writes_done;
  for (size_t i = 0; i < ops->ops.size(); ++i)
    if (ops->ops[i].kind == OpKind::Write) writes_done.push_back(run.outcomes[i].done);
  REQUIRE(writes_done.size() == sim.done_times.size());
  for (size_t i = 0; i < writes_done.size(); ++i) {
    INFO("write " << i);
    REQUIRE(writes_done[i] == sim.done_times[i]);  // exact, not approximate
  }
  CHECK(run.stats.completion_s == sim.end);
  CHECK(run.stats.max_behind_s == 0);
  CHECK(run.stats.kept_up.value());
  CHECK(run.stats.stalls > 0);
  // And replayed against a different seed, the stalls move: the times differ.
  ReplayRun other = replay_on_model(*ops, p, {}, 8);
  CHECK(other.stats.completion_s != run.stats.completion_s);
}

TEST_CASE("a rate-driven recorder on a slow device falls behind by the backlog the steady rate predicts") {
  // The recorder: one 1 MiB write every 10 ms (104.9 MB/s), 300 writes (3 s).
  OpList ops;
  ops.name = "synthetic";
  ops.ops.push_back({0, 0, OpKind::Create, "f", 0, 0, 0, false});
  for (int i = 0; i < 300; ++i) ops.ops.push_back({0.01 * i, 0.0005, OpKind::Write, "f", uint64_t(i) << 20, 1 << 20});
  Profile fast = profile({});
  Profile slow = profile({"device.burst_bytes=0", "device.sustained_mbps=40"});
  ReplayOptions opt;
  opt.buffer_bytes = 8 << 20;
  ReplayRun f = replay_on_model(ops, fast, opt);
  ReplayRun s = replay_on_model(ops, slow, opt);
  CHECK(f.stats.kept_up.value());
  CHECK(f.stats.max_behind_s < 0.001);
  // One block plus what arrives while it is written (0.7 ms at 105 MB/s).
  CHECK(f.stats.needed_buffer_bytes > (1 << 20));
  CHECK(f.stats.needed_buffer_bytes < 1.1 * (1 << 20));
  CHECK_FALSE(s.stats.kept_up.value());
  CHECK(s.stats.overruns > 0);
  // Backlog after T seconds = (input rate - device rate) * T, one block of slack.
  double rate = write_rate(slow, 1 << 20, Phase::Sustained, true);
  double produced_rate = (1 << 20) / 0.01, T = 2.99;
  double predicted = (produced_rate - rate) * T;
  CHECK(s.stats.needed_buffer_bytes == Approx(predicted).margin(2 << 20));
  CHECK(s.stats.completion_s == Approx(300.0 * (1 << 20) / rate).epsilon(0.01));
  CHECK(s.stats.max_behind_s == Approx(s.stats.completion_s - 2.99 - (1 << 20) / rate).epsilon(0.02));
  // As fast as possible: no schedule, no verdict, same device time.
  ReplayOptions afap;
  afap.as_fast_as_possible = true;
  ReplayRun a = replay_on_model(ops, slow, afap);
  CHECK_FALSE(a.stats.kept_up.has_value());
  CHECK(a.stats.completion_s == Approx(s.stats.completion_s).epsilon(0.01));
}

TEST_CASE("time scale stretches the schedule") {
  OpList ops;
  for (int i = 0; i < 10; ++i) ops.ops.push_back({1.0 * i, -1, OpKind::Write, "f", uint64_t(i) << 12, 4096});
  ReplayOptions opt;
  opt.time_scale = 0.5;
  ReplayRun r = replay_on_model(ops, profile({}), opt);
  CHECK(r.outcomes[9].issue == Approx(4.5));
}
