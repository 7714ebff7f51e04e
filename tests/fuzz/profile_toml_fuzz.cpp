// Profile TOML (models/profile.h): parse, then finish (defaults and the
// cross-parameter rules), as `show ./file.toml` does.
#include "fuzz_input.h"
#include "models/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto p = sd::parse_profile_text(sd_fuzz::text(data, size), "fuzz.toml");
  sd_fuzz::check_result(p);
  if (p.ok()) {
    sd::Status s = p->finish();
    if (!s.ok() && s.message().empty()) std::abort();
  }
  return 0;
}
