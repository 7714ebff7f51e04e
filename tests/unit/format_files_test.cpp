// The layouts' bytes make files a real reader accepts: write them to disk
// (payload: a counting pattern) and ask sox (installed by run.sh) what it
// sees. TDMS is not read by sox; its structure is checked in format_test.cpp.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "sim/format.h"

using namespace sd;

namespace {

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Writes a recording of `blocks` x `frames` through the layout to real files in `dir`.
std::string write_files(const std::filesystem::path& dir, FormatKind k, StreamSpec s, int blocks, uint64_t frames) {
  LayoutOptions o;
  o.kind = k;
  o.stream = s;
  o.base_name = (dir / "rec").string();
  auto l = make_layout(o);
  REQUIRE(l.ok());
  std::vector<FormatWrite> w;
  (*l)->begin(w);
  for (int i = 0; i < blocks; ++i) (*l)->append(frames, w);
  (*l)->finish(w);
  std::vector<std::fstream> files;
  for (const auto& name : (*l)->file_names()) {
    std::ofstream(name, std::ios::binary).close();
    files.emplace_back(name, std::ios::in | std::ios::out | std::ios::binary);
  }
  for (const auto& x : w) {
    std::vector<char> bytes(x.bytes);
    if (x.what == FormatWrite::What::Payload && s.is_float)
      std::fill(bytes.begin(), bytes.end(), 0);  // a counting pattern would be NaNs
    else if (x.what == FormatWrite::What::Payload)
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((x.first_frame + i) * 7);
    else
      std::copy(x.data.begin(), x.data.end(), bytes.begin());
    files[x.file].seekp(static_cast<std::streamoff>(x.offset));
    files[x.file].write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  for (auto& f : files) f.close();
  return (*l)->file_names()[0];
}

}  // namespace

TEST_CASE("sox reads the WAV, RF64, W64 and CAF files the layouts describe", "[format][files]") {
  // sox is the independent reader this case exists for; run.sh installs it, so
  // its absence is a broken test machine, not a reason to pass.
  if (run("command -v sox").empty()) FAIL("sox is not installed: apt-get install sox (run.sh installs it)");
  auto dir = std::filesystem::temp_directory_path() / ("sd_format_files_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  struct Case {
    FormatKind kind;
    StreamSpec s;
    const char* sox_type;
  };
  const Case cases[] = {{FormatKind::Wav, {2, 48000, 16, false}, "wav"},
                        {FormatKind::Wav, {48, 48000, 24, false}, "wav"},
                        {FormatKind::Wav, {2, 44100, 32, true}, "wav"},
                        {FormatKind::Rf64, {6, 96000, 24, false}, "wav"},
                        {FormatKind::W64, {18, 48000, 16, false}, "w64"},
                        {FormatKind::W64, {3, 48000, 24, false}, "w64"},
                        {FormatKind::Caf, {8, 48000, 24, false}, "caf"}};
  for (const Case& c : cases) {
    std::string file = write_files(dir, c.kind, c.s, 3, 999);
    INFO(format_name(c.kind) << " " << c.s.channels << " ch " << c.s.sample_bits << "-bit: " << file);
    std::string q = "sox --i ";
    CHECK(run(q + "-c '" + file + "' 2>&1") == std::to_string(c.s.channels));
    CHECK(run(q + "-r '" + file + "' 2>&1") == std::to_string(static_cast<int>(c.s.sample_rate)));
    CHECK(run(q + "-s '" + file + "' 2>&1") == std::to_string(3 * 999));
    CHECK(run(q + "-b '" + file + "' 2>&1") == std::to_string(c.s.sample_bits));
    // Decoding the whole file succeeds (sox exits 0 and reports no warning).
    CHECK(run("sox -t " + std::string(c.sox_type) + " '" + file + "' -n stat 2>&1 | grep -ci -e warn -e fail") == "0");
    std::filesystem::remove(file);
  }
  std::filesystem::remove_all(dir);
}
