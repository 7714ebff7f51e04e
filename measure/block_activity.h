// The block device's own activity while characterize writes: its stat file
// (/sys/dev/block/MAJ:MIN/stat: sectors written, requests in flight) read
// every `period` on a thread of its own, each change kept with its time.
// What it is for: calibrate/pauses.h scan_device_pauses, the pauses the
// device itself showed, whatever page cache or throttling lies between it
// and the writer. Real storage only (the model in virtual time has none).
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/pauses.h"

namespace sd {

class BlockActivityLog {
 public:
  BlockActivityLog() = default;
  ~BlockActivityLog() { stop(); }
  BlockActivityLog(const BlockActivityLog&) = delete;
  BlockActivityLog& operator=(const BlockActivityLog&) = delete;
  // Starts sampling `stat_path` with times from `now` (thread-safe); false if
  // the file cannot be read (then nothing runs).
  bool start(const std::string& stat_path, std::function<double()> now, double period_s = 0.002);
  void stop();  // idempotent
  double period() const { return period_; }
  // The samples so far: each change of the written count or of the requests
  // in flight (and the first), in time order. Only after stop().
  const std::vector<cal::BlockSample>& samples() const { return samples_; }

 private:
  void run();
  int fd_ = -1;
  double period_ = 0.002;
  std::function<double()> now_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<cal::BlockSample> samples_;
};

// Reads sectors written (x 512) and requests in flight from a block
// device's stat file descriptor (pread from 0), or from the file at `path`
// (opened for the one reading). False if it cannot be read or does not parse.
bool read_block_stat(int fd, double& written_bytes, double& in_flight);
bool read_block_stat(const std::string& path, double& written_bytes, double& in_flight);

}  // namespace sd
