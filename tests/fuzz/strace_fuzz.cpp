// strace -f -tt -T output (replay/readers.h), whole files and single lines.
#include "fuzz_input.h"
#include "replay/readers.h"
#include "replay/strace_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s = sd_fuzz::text(data, size);
  std::istringstream in(s);
  sd_fuzz::check_result(sd::read_strace(in, "fuzz.strace"));
  sd::StraceClock clock;
  sd::parse_strace_line(s.substr(0, s.find('\n')), clock);
  return 0;
}
