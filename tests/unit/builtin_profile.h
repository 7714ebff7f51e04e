// A built-in profile, or a `host+fs+device` composition of built-in layers,
// for a test: the case stops with the loader's message if it does not load.
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "models/profile.h"

namespace sd_test {

inline sd::Profile builtin_profile(const std::string& spec) {
  auto p = sd::load_profile(spec);
  INFO(spec << ": " << (p ? "" : p.message()));
  REQUIRE(p.ok());
  return *p;
}

}  // namespace sd_test
