#include "cli/command.h"

namespace sd::cli {

// The table of subcommands, in the order `--help` lists them.
const std::vector<CommandDef>& commands() {
  static const std::vector<CommandDef> table = {
      {"profiles", "List the built-in profiles, grouped by layer", setup_profiles},
      {"show", "Show a profile's parameters and the write rates it predicts", setup_show},
      {"measure", "Measure real storage with the documents' benchmark sweeps (or run them on a model)", setup_measure},
  };
  return table;
}

}  // namespace sd::cli
