// PathDevice: performs operations on real files in a directory and reports
// when each finished on the given Clock, for `replay --target DIR` in wall
// time (like fio's read_iolog). File id N becomes DIR/replay-N.dat; files
// closed by the trace are reopened on their next use. O_DIRECT is not
// reproduced (the trace's buffers are not aligned); every write goes through
// the page cache of DIR's filesystem.
//
// Note for the team: measure/'s RealDevice is the general version of this;
// once it lands, replay --target should use it and this file can go.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "models/device.h"
#include "models/status.h"

namespace sd {

class PathDevice final : public Device {
 public:
  // `dir` must exist and be writable (checked by open()). `clock` must outlive this.
  PathDevice(std::string dir, Clock& clock) : dir_(std::move(dir)), clock_(clock) {}
  ~PathDevice() override;
  PathDevice(const PathDevice&) = delete;
  PathDevice& operator=(const PathDevice&) = delete;

  Status check_dir() const;
  // Performs `op` now (blocking) and returns the clock time when it returned.
  Completion submit(const Op& op, double now) override;
  // Removes the files this device created (unless keep).
  void cleanup(bool keep);
  std::string path_of(FileId id) const;

 private:
  int fd_for(FileId id, bool create, int& err);
  std::string dir_;
  Clock& clock_;
  std::map<FileId, int> fds_;      // open files
  std::vector<std::string> made_;  // files created, for cleanup
  std::vector<char> buf_;          // write payload, grown on demand
};

}  // namespace sd
