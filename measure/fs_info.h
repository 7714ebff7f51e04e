// What kind of filesystem a directory is on, as far as timing is concerned:
// a kernel driver (writes land in the page cache and the kernel writes back
// behind the writer) or a userspace FUSE driver (every write goes through the
// driver inside the caller's write(); O_DIRECT reaches the driver, which then
// writes through the block device's page cache, so it is not direct).
#pragma once
#include <string>
#include <string_view>

#include "calibrate/driver_io.h"
#include "models/mountinfo.h"

namespace sd {

inline constexpr long kFuseSuperMagic = 0x65735546;  // statfs f_type of every FUSE mount

// Open flags (octal, as /proc/PID/fdinfo shows them) -> what the writes go through.
DriverIo driver_io_of_flags(unsigned long flags);
// The "flags:" line of a /proc/PID/fdinfo/FD text; false if there is none.
bool fdinfo_flags(std::string_view text, unsigned long& flags);

struct FsInfo {
  bool userspace = false;  // a FUSE driver (exfat-fuse, ntfs-3g, sshfs, streamdisk mount)
  std::string fstype;      // from /proc/self/mountinfo ("ext4", "fuseblk", "fuse.exfat"), or ""
  std::string source;      // the mount's source ("/dev/loop3"), or ""
  std::string mount_point; // the mount point holding the directory, or ""
  std::string how;         // how it was found out, for reports
  double journal_commit_s = 0;  // ext3/ext4 (jbd2): commit= from the mount options, else 5 s; 0 = none known
  DriverIo driver_io = DriverIo::Unknown;  // userspace only: how its driver opens the mount's source
  std::string driver_how;                  // which process, which file, which flags; or why unknown
};

// statfs(dir) and the longest /proc/self/mountinfo entry containing `dir`;
// for a userspace mount, also find_driver_io.
FsInfo fs_info(const std::string& dir);
// For a userspace mount whose source is a block device or a file: the
// processes holding it open (/proc/*/fd, root sees them all) and their open
// flags. Fills driver_io and driver_how; Unknown when none is seen.
void find_driver_io(FsInfo& info, const std::string& proc = "/proc");
// True for the fstypes of userspace drivers: "fuse", "fuseblk", "fuse.*".
bool is_fuse_fstype(std::string_view fstype);
// Whether a filesystem's page-cache writeback reaches the block layer marked as
// background (Linux REQ_BACKGROUND), which writeback throttling holds to its
// background depth: true for drivers writing through mpage, iomap or a block
// device's page cache (userspace drivers' devices included); false for ext4
// (also mounted as "ext3"), which builds its own requests without the mark.
bool marks_background_writeback(std::string_view fstype);
// The first number in a file (a /proc or /sys setting), or `dflt` when it
// cannot be read.
double read_number(const std::string& path, double dflt);

// The block queue writeback goes through, as block/blk-wbt.c sees it: the
// device's queue depth (the SCSI device's queue_depth, else nr_requests),
// the largest request (max_sectors_kb) and whether writeback throttling is
// on (wbt_lat_usec > 0; the BFQ scheduler turns it off). `dev_dir` is the
// device's sysfs directory (/sys/dev/block/MAJ:MIN); a partition's queue is
// its disk's (the parent directory). depth = 0 when nothing was found.
struct BlockQueue {
  double depth = 0, request_bytes = 0;
  bool wbt = false;
  std::string how;  // the files read, for the profile's source text
};
BlockQueue block_queue(const std::string& dev_dir);

// A device's share of the kernel's dirty limit. Linux splits the limit among
// the devices by their part of recent writeback (wb_calc_thresh), so a device
// has all of it only while nothing else on the machine writes; with a smaller
// share its writers are throttled earlier than vm.dirty_bytes says. Read from
// debugfs (bdi/MAJ:MIN/stats: BdiDirtyThresh over DirtyThresh). `dev_dir` as
// for block_queue (a partition's share is its disk's); `debugfs` is where
// debugfs is mounted. share < 0 when it cannot be read (no debugfs, not root).
struct DirtyShare {
  double share = -1, device_kb = 0, total_kb = 0;
  std::string path;  // the stats file read
};
DirtyShare dirty_share(const std::string& dev_dir, const std::string& debugfs = "/sys/kernel/debug");

// The journal commit interval of a mount: ext3/ext4 commit every `commit=`
// seconds (mount option), 5 by default (kernel ext4 docs); 0 for the others.
double journal_commit_seconds(std::string_view fstype, std::string_view super_options);
// A trace header's journal_commit_ms for the filesystem (docs/formats.md): the
// commit interval of a kernel filesystem with a journal ("5000"), else "".
std::string journal_commit_meta(const FsInfo& fs);

}  // namespace sd
