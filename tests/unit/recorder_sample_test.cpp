// The recorder's per-block samples (RecorderHooks::sample), which the lesson
// page plots: they describe the run they watch and do not change it, and the
// host cache's side-effect-free dirty count agrees with the one that pumps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "sim/recorder.h"

using namespace sd;

namespace {

RecorderConfig pi_recording() {
  RecorderConfig c;
  c.stream = {18, 48000, 16, false};
  c.format = FormatKind::W64;
  c.buffer_bytes = 2u << 20;
  c.block_bytes = 1u << 20;
  c.duration_s = 600;
  return c;
}

}  // namespace

TEST_CASE("recorder samples follow the run and leave its result unchanged", "[recorder]") {
  auto p = load_profile("rpi4-buster-ultrafit-exfat");
  REQUIRE(p.ok());
  RecorderConfig c = pi_recording();
  ModelDevice plain_dev(*p);
  VirtualClock plain_clock;
  auto plain = run_recorder(plain_dev, plain_clock, c);
  REQUIRE(plain.ok());

  ModelDevice dev(*p);
  VirtualClock clock;
  std::vector<RecorderSample> samples;
  std::vector<double> scheduled;
  RecorderHooks hooks;
  const HostCache& host = dev.host_cache();
  hooks.sample = [&](const RecorderSample& s) {
    samples.push_back(s);
    scheduled.push_back(host.dirty_scheduled(clock.now()));
  };
  auto r = run_recorder(dev, clock, c, hooks);
  REQUIRE(r.ok());
  CHECK(r->payload_bytes == plain->payload_bytes);
  CHECK(r->end_s == plain->end_s);
  CHECK(r->overrun_events == plain->overrun_events);
  CHECK(r->peak_buffer_bytes == plain->peak_buffer_bytes);

  REQUIRE(samples.size() > 100);
  uint64_t fb = c.stream.frame_bytes();
  for (size_t i = 1; i < samples.size(); ++i) {
    CHECK(samples[i].t_s >= samples[i - 1].t_s);
    CHECK(samples[i].frames_written > samples[i - 1].frames_written);
    CHECK(samples[i].dropped_periods >= samples[i - 1].dropped_periods);
  }
  for (const auto& s : samples) {
    CHECK(s.ring_frames * fb <= r->buffer_bytes);
    CHECK(s.frames_written <= s.frames_delivered);
  }
  CHECK(samples.back().frames_written == r->frames_written);
  CHECK(samples.back().dropped_periods == r->dropped_periods);
  uint64_t peak = 0;
  for (const auto& s : samples) peak = std::max(peak, s.ring_frames * fb);
  CHECK(peak == r->peak_buffer_bytes);
  // The Pi's page cache holds dirty data during the run, never more than its limit.
  double limit = p->params(Layer::Host).get("dirty_limit_bytes");
  double most = *std::max_element(scheduled.begin(), scheduled.end());
  CHECK(most > 0);
  CHECK(most <= limit + static_cast<double>(c.block_bytes));
  // dirty_scheduled only leaves out writebacks not yet started: at least the
  // exact count, and equal to it once state() has started them.
  double now = clock.now();
  double before = host.dirty_scheduled(now);
  double exact = dev.state(now).dirty_bytes;
  CHECK(before >= exact);
  CHECK(host.dirty_scheduled(now) == exact);
}
