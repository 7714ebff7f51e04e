// models/output_file.h: the rules every command's output file follows
// (docs/formats.md "Output files"). The command-level cases (device nodes,
// fifos, signals) are in tests/cli/output_files.sh and interrupts.sh.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "models/output_file.h"
#include "temp_dir.h"

using namespace sd;
namespace fs = std::filesystem;

TEST_CASE("an existing file keeps its old content until commit, then is replaced whole", "[output]") {
  TempDir tmp;
  std::string p = tmp.path + "/out.csv";
  std::ofstream(p) << "old";
  OutputFile out;
  REQUIRE(out.open(p, {}).ok());
  std::fputs("new", out.stream());
  std::fflush(out.stream());
  CHECK(file_text(p) == "old");
  CHECK(tmp.entries() == 2);  // the temporary file, in the same directory
  REQUIRE(out.commit().ok());
  CHECK(file_text(p) == "new");
  CHECK(tmp.entries() == 1);
}

TEST_CASE("abandon and the destructor remove the partial file and leave the old one", "[output]") {
  TempDir tmp;
  std::string p = tmp.path + "/out.csv";
  std::ofstream(p) << "old";
  {
    OutputFile out;
    REQUIRE(out.open(p, {}).ok());
    std::fputs("partial", out.stream());
  }
  CHECK(file_text(p) == "old");
  CHECK(tmp.entries() == 1);
  OutputFile out;
  REQUIRE(out.open(tmp.path + "/new.csv", {}).ok());
  out.abandon();
  CHECK(tmp.entries() == 1);
}

TEST_CASE("a symlink's target is written and the link kept", "[output]") {
  TempDir tmp;
  fs::create_directory(tmp.path + "/real");
  std::ofstream(tmp.path + "/real/t.csv") << "old";
  fs::create_symlink("real/t.csv", tmp.path + "/link.csv");
  REQUIRE(write_output_file(tmp.path + "/link.csv", "new", {}).ok());
  CHECK(fs::is_symlink(tmp.path + "/link.csv"));
  CHECK(file_text(tmp.path + "/real/t.csv") == "new");
  fs::create_symlink("real/dangling.csv", tmp.path + "/dangling.csv");
  REQUIRE(write_output_file(tmp.path + "/dangling.csv", "made", {}).ok());
  CHECK(fs::is_symlink(tmp.path + "/dangling.csv"));
  CHECK(file_text(tmp.path + "/real/dangling.csv") == "made");
}

TEST_CASE("directories, missing directories and inputs are refused with the option's name", "[output]") {
  TempDir tmp;
  OutputFile out;
  Status st = out.open(tmp.path, {"-o", "x.toml", false, {}});
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("-o " + tmp.path + " is a directory") != std::string::npos);
  CHECK(st.message().find(tmp.path + "/x.toml") != std::string::npos);
  st = out.open(tmp.path + "/no/such/out.csv", {"--trace", "t.csv", true, {}});
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("does not exist") != std::string::npos);
  std::string in = tmp.path + "/in.csv";
  std::ofstream(in) << "input";
  fs::create_hard_link(in, tmp.path + "/hard.csv");
  st = out.open(tmp.path + "/hard.csv", {"-o", "x", false, {in}});
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("is also an input") != std::string::npos);
  // A file not created yet is compared by directory and name.
  CHECK(same_file(tmp.path + "/later.wav", tmp.path + "/./later.wav"));
  CHECK_FALSE(same_file(tmp.path + "/later.wav", tmp.path + "/other.wav"));
  CHECK(file_text(in) == "input");
  CHECK(tmp.entries() == 2);
}

TEST_CASE("a character device is written directly and never replaced", "[output]") {
  if (::geteuid() != 0) {
    WARN("not root: mknod is not allowed, the device case is not checked");
    return;
  }
  TempDir tmp;
  std::string null = tmp.path + "/null", full = tmp.path + "/full";
  REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);  // copies of /dev/null, /dev/full
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  struct stat before{}, after{};
  REQUIRE(::stat(null.c_str(), &before) == 0);
  REQUIRE(write_output_file(null, "data", {}).ok());
  REQUIRE(::stat(null.c_str(), &after) == 0);
  CHECK(S_ISCHR(after.st_mode));
  CHECK(after.st_ino == before.st_ino);
  Status st = write_output_file(full, std::string(1 << 16, 'x'), {"--trace", "t.csv", true, {}});
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("No space left") != std::string::npos);
  REQUIRE(::stat(full.c_str(), &after) == 0);
  CHECK(S_ISCHR(after.st_mode));
  CHECK(tmp.entries() == 2);
}

TEST_CASE("never_replace: an existing file is refused, one that appears before commit stays", "[output]") {
  TempDir tmp;
  OutputRules keep{"--svg", "plots", false, {}, true};
  std::string p = tmp.path + "/01-plot.svg";
  std::ofstream(p) << "mine";
  OutputFile out;
  Status st = out.open(p, keep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("exists") != std::string::npos);
  CHECK(file_text(p) == "mine");
  fs::create_symlink("nowhere.svg", tmp.path + "/dangling.svg");  // a dangling link is a name in use too
  CHECK_FALSE(out.open(tmp.path + "/dangling.svg", keep).ok());
  CHECK_FALSE(fs::exists(tmp.path + "/nowhere.svg"));

  // The race: the name is free at open() and taken before commit().
  std::string q = tmp.path + "/02-plot.svg";
  REQUIRE(out.open(q, keep).ok());
  std::fputs("ours", out.stream());
  std::ofstream(q) << "theirs";
  st = out.commit();
  CHECK_FALSE(st.ok());
  CHECK(st.message().find("was kept") != std::string::npos);
  CHECK(file_text(q) == "theirs");
  CHECK(tmp.entries() == 3);  // 01-plot.svg, dangling.svg, 02-plot.svg: no temporary file left

  // Still free at commit: put in place.
  std::string r = tmp.path + "/03-plot.svg";
  REQUIRE(out.open(r, keep).ok());
  std::fputs("ours", out.stream());
  REQUIRE(out.commit().ok());
  CHECK(file_text(r) == "ours");
  CHECK(tmp.entries() == 4);
}

TEST_CASE("temp_name_overhead covers the temporary file's name for any process id", "[output]") {
  TempDir tmp;
  const std::string name = "out.csv";
  OutputFile out;
  REQUIRE(out.open(tmp.path + "/" + name, {}).ok());
  std::string temp;
  for (const auto& e : fs::directory_iterator(tmp.path)) temp = e.path().filename().string();
  REQUIRE(temp.find(name) != std::string::npos);  // .out.csv.PID-0.tmp
  const size_t pid_digits = std::to_string(::getpid()).size();
  // This process's name with the widest process id (10 digits) and a two-digit attempt.
  CHECK(temp.size() - name.size() + (10 - pid_digits) + 1 == temp_name_overhead());
  out.abandon();
}

TEST_CASE("remove_if_same removes the file it made, and leaves one put in its place", "[output]") {
  TempDir tmp;
  std::string p = tmp.path + "/made.dat";
  std::ofstream(p) << "ours";
  FileIdentity ours = identity_at(p);
  REQUIRE(ours != FileIdentity{});
  // Another program renames a file of its own over the name.
  std::ofstream(tmp.path + "/theirs.tmp") << "theirs";
  fs::rename(tmp.path + "/theirs.tmp", p);
  int err = 0;
  Status st = remove_if_same(p, ours, &err);
  REQUIRE_FALSE(st.ok());
  CHECK(err == ESTALE);
  CHECK(st.message().find(p + " was left in place") != std::string::npos);
  CHECK(file_text(p) == "theirs");
  // A symlink put there is a file of its own, not the one it points at.
  std::string q = tmp.path + "/q.dat";
  std::ofstream(q) << "q";
  FileIdentity qid = identity_at(q);
  fs::rename(q, tmp.path + "/q-moved.dat");
  fs::create_symlink("q-moved.dat", q);
  CHECK_FALSE(remove_if_same(q, qid).ok());
  CHECK(fs::is_symlink(q));
  // Its own file goes; a name already gone is not an error.
  std::string r = tmp.path + "/r.dat";
  std::ofstream(r) << "r";
  FileIdentity rid = identity_at(r);
  CHECK(remove_if_same(r, rid, &err).ok());
  CHECK(err == 0);
  CHECK_FALSE(fs::exists(r));
  CHECK(remove_if_same(r, rid).ok());
  // A directory it made goes when empty, and stays when something is in it.
  std::string dir = tmp.path + "/plots";
  fs::create_directory(dir);
  FileIdentity did = identity_at(dir);
  std::ofstream(dir + "/x") << "x";
  CHECK_FALSE(remove_if_same(dir, did).ok());
  CHECK(fs::exists(dir + "/x"));
  fs::remove(dir + "/x");
  CHECK(remove_if_same(dir, did).ok());
  CHECK_FALSE(fs::exists(dir));
  CHECK(tmp.entries() == 3);  // made.dat (theirs), q.dat (the link), q-moved.dat
}

TEST_CASE("abandon leaves a file put in place of the temporary one", "[output]") {
  TempDir d;
  std::string target = d.path + "/out.txt", other = d.path + "/other.txt";
  OutputFile f;
  REQUIRE(f.open(target, {"-o", "output", false, {}, false}).ok());
  // The temporary file is the one other entry in the directory.
  std::string temp;
  for (const auto& e : fs::directory_iterator(d.path)) temp = e.path().string();
  REQUIRE(!temp.empty());
  std::ofstream(other) << "someone else's";
  REQUIRE(std::rename(other.c_str(), temp.c_str()) == 0);
  f.abandon();
  REQUIRE(fs::exists(temp));
  CHECK(file_text(temp) == "someone else's");
  CHECK_FALSE(fs::exists(target));
}
