#include "cli/command.h"

namespace sd::cli {

// The table of subcommands, in the order `--help` lists them.
const std::vector<CommandDef>& commands() {
  static const std::vector<CommandDef> table = {
      {"profiles", "List the built-in profiles, grouped by layer", setup_profiles},
      {"show", "Show a profile's parameters and the write rates it predicts", setup_show},
      {"simulate", "Simulate a recording on a profile: overruns, buffer use, file limits", setup_simulate},
      {"capacity", "Find the most channels (or highest rate, smallest buffer) a profile records cleanly", setup_capacity},
      {"measure", "Measure real storage with the documents' benchmark sweeps (or run them on a model)", setup_measure},
      {"record", "Record a reference signal to real storage (simulate's recorder in wall time)", setup_record},
      {"characterize", "Measure a device in one command: a profile and the highest clean rate it records", setup_characterize},
      {"calibrate", "Fit a profile from measured traces, fio logs and rate tables", setup_calibrate},
      {"replay", "Replay a recorder's I/O trace against profiles (virtual time) or a real path", setup_replay},
      {"report", "Make one self-contained HTML report (inline SVG plots) from JSON outputs", setup_report},
      {"mount", "Mount a FUSE filesystem that writes as slowly as the emulated device", setup_mount},
      {"fault", "Make a running mount fail: an I/O error, a delay, a pulled device (docs/faults.md)", setup_fault},
      {"inspect", "Say what a strict and a lenient reader recover from a recording, and how to repair it", setup_inspect},
  };
  return table;
}

}  // namespace sd::cli
