// fio --output-format=json (calibrate --fio-json; calibrate/inputs.h).
#include "calibrate/inputs.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sd_fuzz::check_result(sd::cal::parse_fio_json(sd_fuzz::text(data, size), "fuzz.json"));
  return 0;
}
