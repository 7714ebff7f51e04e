// Power loss in simulation: what the recording's files hold after the
// outage, per the durability model (models/durability.h), and what a strict
// and a lenient reader recover from them (sim/inspect.h), without writing a
// byte. `simulate --fault powerloss@T` reports it.
//
// WriteKeeper sits in front of the device and keeps every write the recorder
// issued (offsets, times, and the bytes of header and metadata writes; payload
// samples are not kept: they read as zeros, which inspect does not look at).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/device.h"
#include "models/durability.h"
#include "sim/format.h"
#include "sim/inspect.h"

namespace sd {

class WriteKeeper final : public Device {
 public:
  explicit WriteKeeper(Device& inner) : inner_(inner) {}
  Completion submit(const Op& op, double now) override;
  // The file's writes in issue order (AppWrite) and the bytes kept for each
  // (empty for payload writes).
  struct Kept {
    std::vector<AppWrite> writes;
    std::vector<std::vector<uint8_t>> bytes;
  };
  const Kept* kept(FileId f) const;

 private:
  Device& inner_;
  std::unordered_map<FileId, Kept> files_;
};

// One file of the recording after the power loss.
struct Survivor {
  std::string name;
  bool exists = false;
  uint64_t length = 0;        // what the filesystem reports after the outage
  uint64_t size_at_loss = 0;  // what the recorder had written
  uint64_t data_bytes = 0;    // of `length`, bytes that hold what was written (the rest: zeros)
  bool inspected = false;     // inspect read it (else `inspect_error` says why)
  Inspection inspection;
  std::string inspect_error;
};

// The survivors of the files named in `names` (file id -> name), in id order.
std::vector<Survivor> survivors(const PowerLossImage& img, const WriteKeeper& keeper,
                                const std::vector<std::pair<FileId, std::string>>& names, FormatKind format,
                                const StreamSpec& stream);

}  // namespace sd
