// fio --write_iolog output, versions 2 and 3 (replay/readers.h).
#include "fuzz_input.h"
#include "replay/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(sd_fuzz::text(data, size));
  sd_fuzz::check_result(sd::read_fio_iolog(in, "fuzz.iolog"));
  return 0;
}
