// ReplyScheduler (fusefs/reply_scheduler.h): replies go out in due order, not
// before they are due, and stop() sends what is still parked.
#include <catch2/catch.hpp>

#include <mutex>
#include <vector>

#include "fusefs/reply_scheduler.h"

namespace {

struct Log {
  std::mutex mu;
  std::vector<std::pair<int, double>> sent;  // id, clock time when sent
  void add(int id, double t) {
    std::lock_guard lk(mu);
    sent.emplace_back(id, t);
  }
};

}  // namespace

TEST_CASE("reply scheduler sends in due order, never early", "[fusefs]") {
  sd::RealClock clock;
  Log log;
  sd::fusefs::ReplyScheduler s(clock);
  double t0 = clock.now();
  // Scheduled out of order; the ids are the order they are due in.
  const double due[] = {0.030, 0.010, 0.020, 0.000};
  const int id[] = {3, 1, 2, 0};
  for (int i = 0; i < 4; ++i)
    s.schedule(t0 + due[i], [&log, &clock, i, &id] { log.add(id[i], clock.now()); });
  clock.sleep_until(t0 + 0.2);
  s.stop();
  REQUIRE(log.sent.size() == 4);
  for (int k = 0; k < 4; ++k) {
    CHECK(log.sent[k].first == k);
    // Due times were 0, 10, 20, 30 ms after t0.
    CHECK(log.sent[k].second >= t0 + 0.010 * k);
  }
}

TEST_CASE("reply scheduler stop() sends every parked reply at once", "[fusefs]") {
  sd::RealClock clock;
  Log log;
  sd::fusefs::ReplyScheduler s(clock);
  for (int i = 0; i < 5; ++i) s.schedule(clock.now() + 3600, [&log, i] { log.add(i, 0); });
  CHECK(s.waiting() == 5);
  s.stop();
  CHECK(log.sent.size() == 5);
  CHECK(s.waiting() == 0);
  // After stop, a new reply is sent immediately rather than lost.
  s.schedule(clock.now() + 3600, [&log] { log.add(9, 0); });
  CHECK(log.sent.size() == 6);
}
