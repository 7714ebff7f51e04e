// Two regimes in one block-size sweep: a device's write cache can run out
// while a sweep is running (document 002's cliff), so the first points are
// written at burst speed and the rest at the sustained rate. A fit over all
// points then mixes two devices. This finds where the rate fell in a way the
// block size does not explain, says which points are on which side, and
// picks the ops of one regime for the per-op cost fit.
//
// A drop inside a point (same block size, later writes slower) is always a
// regime change. Between points, the time per byte must not grow with the
// block size (t(b)/b = t0/b + 1/bw falls with b): a rise of more than 1/0.7
// is one too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/inputs.h"

namespace sd::cal {

enum class Regime { Before, After, Crosses };  // before the cliff, past it, both

struct SweepPoint {
  uint64_t block = 0;
  size_t first_op = 0, ops = 0;  // indices into the writes passed in
  Regime regime = Regime::Before;
};

struct SweepRegimes {
  bool cliff = false;
  size_t cliff_op = 0;     // index of the first write past the cliff
  double cliff_bytes = 0;  // bytes written by the sweep before it
  std::vector<SweepPoint> points;  // in sweep order
  // The ops (indices into the writes) of the regime to fit: past the cliff
  // if it has 3+ block sizes, else before it; all ops when there is no cliff.
  std::vector<size_t> keep;
  std::string kept;  // "past the cliff", "before the cliff", "all (one regime)"
};

// `writes`: the sweep's write ops in issue order (reads and other ops dropped).
SweepRegimes sweep_regimes(const std::vector<IoOp>& writes);
// Human text: "512 B, 2 KiB before the cliff; 8 KiB crosses it (after 24 MB); 32 KiB...8 MiB past it".
std::string regimes_text(const SweepRegimes& r);

}  // namespace sd::cal
