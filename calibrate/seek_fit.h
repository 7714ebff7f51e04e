// The seek penalty (device.seek_penalty_us): the same block written to one
// file back to back, then round-robin to several files (every write
// continues a different file than the one before). The difference of the
// median time per write is the penalty a write pays for not continuing the
// previous one. Traces: `# sweep=interleaved` with `# phase=sequential` or
// `# phase=interleaved` (streamdisk characterize writes both).
#pragma once
#include <string>

#include "calibrate/inputs.h"

namespace sd::cal {

struct SeekFit {
  bool ok = false;            // both phases have 5+ writes of one block size
  double penalty_s = 0, band = 0;  // 95 % half-width
  double sequential_s = 0, interleaved_s = 0;  // median time per write
  size_t points = 0;
  std::string why;
};
SeekFit fit_seek_penalty(const Series& sequential, const Series& interleaved);

// The trace's `# sweep=` and `# phase=` values ("" if absent).
std::string meta_of(const Series& s, const char* key);

}  // namespace sd::cal
