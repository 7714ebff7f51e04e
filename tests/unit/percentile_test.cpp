// models/percentile.h: nearest rank, one of the values, never interpolated.
#include <catch2/catch.hpp>

#include <vector>

#include "models/percentile.h"

using sd::percentile;

TEST_CASE("percentile: nearest rank over 1..100 and over a few values", "[percentile]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  CHECK(percentile(v, 0.5) == 50);    // rank ceil(50) = 50
  CHECK(percentile(v, 0.9) == 90);
  CHECK(percentile(v, 0.99) == 99);   // not the maximum
  CHECK(percentile(v, 0.999) == 100); // rank ceil(99.9) = 100
  CHECK(percentile(v, 1.0) == 100);
  CHECK(percentile(v, 0.0) == 1);     // rank 1: the minimum
  std::vector<double> few{3, 1, 2, 4};
  CHECK(percentile(few, 0.5) == 2);   // the lower middle value, not 2.5
  CHECK(percentile(few, 0.51) == 3);
  CHECK(percentile(few, 0.99) == 4);
}

TEST_CASE("percentile: empty input gives 0 and floats work", "[percentile]") {
  CHECK(percentile(std::vector<double>{}, 0.99) == 0);
  std::vector<float> f{0.5f, 0.25f, 1.0f};
  CHECK(sd::percentile_in_place(f, 0.5) == 0.5);
  CHECK(sd::percentile_in_place(f, 1.0) == 1.0);  // the reordered vector serves the next q
  CHECK(percentile(std::vector<double>{7}, 0.01) == 7);
}
