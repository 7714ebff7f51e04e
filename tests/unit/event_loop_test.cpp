// The virtual-time event loop: order, ties, clock movement, and concurrent
// readers against the model's read lanes.
#include <catch2/catch.hpp>

#include <vector>

#include "models/model_device.h"
#include "models/profile.h"
#include "sim/event_loop.h"

using namespace sd;

TEST_CASE("events run in time order, ties in scheduling order, with the clock at each event", "[event_loop]") {
  VirtualClock clock;
  EventLoop loop(clock);
  std::vector<std::pair<int, double>> seen;
  auto note = [&](int id) { return [&, id] { seen.emplace_back(id, clock.now()); }; };
  loop.at(2.0, note(1));
  loop.at(1.0, note(2));
  loop.at(1.0, note(3));
  loop.at(1.0, [&] { loop.after(0.5, note(4)); });
  CHECK(loop.run() == 5);
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::make_pair(2, 1.0));
  CHECK(seen[1] == std::make_pair(3, 1.0));
  CHECK(seen[2] == std::make_pair(4, 1.5));
  CHECK(seen[3] == std::make_pair(1, 2.0));
  CHECK(clock.now() == 2.0);
}

TEST_CASE("run(until) stops at the horizon and leaves later events queued", "[event_loop]") {
  VirtualClock clock;
  EventLoop loop(clock);
  int ran = 0;
  loop.at(1, [&] { ++ran; });
  loop.at(5, [&] { ++ran; });
  CHECK(loop.run(3) == 1);
  CHECK(clock.now() == 3);
  CHECK(loop.pending() == 1);
  loop.at(0, [&] { ++ran; });  // in the past: runs at once, at the current time
  CHECK(loop.run() == 2);
  CHECK(ran == 3);
}

TEST_CASE("readers in parallel get more from a device that serves several reads at once", "[event_loop]") {
  // Four reader threads, each issuing its next 128 KiB read when the last
  // returns, against samsung-960evo-250g (read_queue_depth 4): about four
  // times the bytes of one reader in the same virtual time, until a ceiling.
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p.ok());
  auto bytes_read = [&](int threads) {
    ModelDevice dev(*p);
    VirtualClock clock;
    EventLoop loop(clock);
    dev.submit({OpKind::Create, 1}, 0);
    dev.submit({OpKind::Truncate, 1, 0, 1ull << 34}, 0);  // a 16 GiB file
    uint64_t offset = 0, total = 0;
    std::function<void()> next = [&] {
      auto c = dev.submit({OpKind::Read, 1, offset, 131072}, clock.now());
      offset += 131072;
      total += c.bytes;
      loop.at(c.done, next);
    };
    for (int i = 0; i < threads; ++i) loop.at(0, next);
    loop.run(0.5);
    return static_cast<double>(total);
  };
  double one = bytes_read(1), four = bytes_read(4);
  CHECK(one > 0);
  CHECK(four / one == Approx(4).epsilon(0.05));
}
