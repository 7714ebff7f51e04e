// The lesson page's model entry point (lesson_api.cpp) as a command-line
// program for builds that are not WebAssembly: one JSON request a line on
// stdin, one JSON answer a line on stdout. tests/cross_model.sh runs it on
// amd64 and, cross-built, under qemu-user for armhf and arm64, and compares the
// answers byte for byte: the same seed must give the same figures everywhere.
#include <cstddef>
#include <cstring>
#include <iostream>
#include <string>

extern "C" {
char* sd_request(size_t bytes);
const char* sd_call();
}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::memcpy(sd_request(line.size()), line.data(), line.size());
    std::cout << sd_call() << '\n';
  }
  return std::cout.good() ? 0 : 1;
}
