// OutputFile: the one way a command writes a file the user named (a trace, a
// report, a profile, a sidecar). The rules (docs/formats.md "Output files"):
//
//   new path, regular file  written to a temporary file created with O_EXCL in
//                           the same directory, fsync'ed and renamed over the
//                           path by commit(): the old content stays whole until
//                           the new one is complete (mode and owner are kept)
//   symlink                 resolved; its final target gets the same rules (the
//                           link itself stays)
//   char device, fifo       written directly, never replaced or removed
//                           (/dev/null, a terminal, a pipe)
//   /dev/stdout, /dev/fd/N  that descriptor of the process, written directly
//   "-"                     standard output, where the option allows it
//   directory, block device refused, as is a missing directory, and a path
//                           that is the same file as one of the command's
//                           inputs (same device and inode, or same directory
//                           and name for files not yet created)
//   never_replace           an existing path is refused, and one that appears
//                           before commit() is kept (commit fails, EEXIST)
//
// Partial output never stays: the temporary file is registered with
// models/cleanup.h (SIGINT/SIGTERM remove it) and removed by abandon() and
// the destructor. Not thread-safe.
#pragma once
#include <sys/types.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "models/status.h"

namespace sd {

// What a file is, whatever name it has now: its device and inode. A command
// that removes a file it made by name checks first that the name still
// refers to it: in a shared directory another program may have renamed its
// own file over the name meanwhile.
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileIdentity&) const = default;
};

struct OutputRules {
  std::string option = "output";   // names the option in messages: "--trace", "-o"
  std::string example = "out.csv";  // a file name for the "is a directory" message
  bool dash_is_stdout = false;     // "-" means standard output
  std::vector<std::string> inputs;  // files the output must not be (existing or to be created; "-": stdin)
  // A file the command creates and never replaces (a recording's sidecar, a
  // report's plot, a kept trace): an existing path is refused by open(), and
  // commit() moves the temporary file into place only if the path is still
  // free (renameat2 RENAME_NOREPLACE, or link + unlink where the filesystem
  // has no such rename), so a file that appears while the command runs stays.
  bool never_replace = false;
};

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile() { abandon(); }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile(OutputFile&& o) noexcept { *this = std::move(o); }
  OutputFile& operator=(OutputFile&& o) noexcept;

  // Checks `path` against the rules and opens it for writing. The error
  // names the option, the path and the fix (bad input: exit status 2).
  Status open(const std::string& path, const OutputRules& rules);
  bool is_open() const { return f_ != nullptr; }
  bool is_stdout() const { return f_ == stdout; }
  std::FILE* stream() const { return f_; }  // buffered; valid until commit/abandon
  const std::string& path() const { return path_; }
  // Flushes; for a regular file fsyncs and renames it into place. On failure
  // (disk full, /dev/full) the temporary file is removed and the old file stays.
  Status commit();
  void abandon();  // removes the temporary file; a device or stdout is left as it is

 private:
  std::FILE* f_ = nullptr;
  std::string path_;    // as given, for messages
  std::string target_;  // the file replaced on commit (symlinks resolved); "" if written directly
  std::string temp_;    // the temporary file, while open
  FileIdentity temp_id_;  // and what it is: abandon() removes the name only while it is that file
  bool never_replace_ = false;
};

// The most characters the temporary file's name (.NAME.PID-N.tmp, in the
// same directory) adds to the name of the file it becomes, for any process
// id: a command that must keep NAME within the filesystem's NAME_MAX checks
// NAME's length plus this before it starts (record --name).
size_t temp_name_overhead();

// open(), one write of `text`, commit().
Status write_output_file(const std::string& path, std::string_view text, const OutputRules& rules);

// Follows symlinks by hand (lstat + readlink) so a dangling link resolves to
// the path its target would have. Returns "" on a loop.
std::string follow_links(std::string p);

// The same file? Both existing: same device and inode. Otherwise the same
// directory (after symlinks) and the same name.
bool same_file(const std::string& a, const std::string& b);

FileIdentity identity_of(int fd);                    // fstat; {} if it fails
FileIdentity identity_at(const std::string& path);  // lstat (a symlink is itself); {} if nothing is there
// Removes `path` (a file, or an empty directory) only if the name still
// refers to `id`; a file that has taken its place, a symlink included, is
// left alone. OK when removed, or when nothing is there any more; otherwise
// an error naming the path, for a warning line (the command's own work is
// done: the file stays), and `*err` (if given) set to ESTALE (left alone) or
// the errno of the removal. Linux has no unlink by descriptor: between the
// check and the removal the window is one system call wide.
Status remove_if_same(const std::string& path, const FileIdentity& id, int* err = nullptr);

}  // namespace sd
