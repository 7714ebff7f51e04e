// A fresh directory under /tmp for one test, removed with everything in it
// when the test ends.
#pragma once
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/sd-test-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path), {}));
  }
  std::string path;
};

// The whole content of a file ("" if it cannot be read).
inline std::string file_text(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
