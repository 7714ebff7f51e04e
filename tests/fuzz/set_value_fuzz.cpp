// `--set key=value` and the unit parsers behind every size, rate, duration,
// fraction and count on the command line. The input is one assignment applied
// to a built-in composite profile, and the same text through each unit parser.
#include "fuzz_input.h"
#include "models/profile.h"
#include "models/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s = sd_fuzz::text(data, size);
  sd_fuzz::check_result(sd::parse_size(s));
  sd_fuzz::check_result(sd::parse_rate(s));
  sd_fuzz::check_result(sd::parse_duration(s));
  sd_fuzz::check_result(sd::parse_fraction(s));
  sd_fuzz::check_result(sd::parse_count(s));
  static const sd::Profile base = *sd::load_profile_unfinished("rpi4-buster-ultrafit-exfat");
  sd::Profile p = base;
  sd::Status st = p.apply_override(s);
  if (!st.ok() && st.message().empty()) std::abort();
  if (st.ok()) {
    st = p.finish();
    if (!st.ok() && st.message().empty()) std::abort();
  }
  return 0;
}
