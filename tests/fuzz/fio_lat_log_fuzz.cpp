// fio per-I/O latency logs (calibrate --fio-log; calibrate/inputs.h).
#include "calibrate/inputs.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(sd_fuzz::text(data, size));
  sd_fuzz::check_result(sd::cal::parse_fio_lat_log(in, "fuzz_lat.1.log"));
  return 0;
}
