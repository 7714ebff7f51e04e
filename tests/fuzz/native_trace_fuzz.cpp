// The native trace CSV (models/trace.h) as replay reads it (replay/readers.h)
// and as calibrate reads it (calibrate/inputs.h), and format detection.
#include "calibrate/inputs.h"
#include "fuzz_input.h"
#include "models/trace.h"
#include "replay/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s = sd_fuzz::text(data, size);
  {
    std::istringstream in(s);
    sd_fuzz::check_result(sd::detect_trace_format(in, "fuzz.csv"));
  }
  {
    std::istringstream in(s);
    sd_fuzz::check_result(sd::read_native_ops(in, "fuzz.csv"));
  }
  std::istringstream in(s);
  auto t = sd::read_trace(in, "fuzz.csv");
  sd_fuzz::check_result(t);
  if (t.ok()) sd_fuzz::check_result(sd::cal::series_from_trace(*t, "fuzz.csv"));
  return 0;
}
