// The unit tests' main: Catch2's, with two warnings always on, whatever the
// command line says, so that a run checks something or fails:
//   NoTests       a test spec that matches no test case is an error (exit 2):
//                 ctest runs one case per entry, by name (catch_discover_tests),
//                 and a name it cannot pass through must not "pass" by running nothing;
//   NoAssertions  a test case (or section) that ran no assertion fails.
// A case that cannot run on this machine says so with sd_test::skip (skip.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  auto& cfg = session.configData();
  cfg.warnings = static_cast<Catch::WarnAbout::What>(cfg.warnings | Catch::WarnAbout::NoTests | Catch::WarnAbout::NoAssertions);
  return session.run();
}
