// The CLI is a table of thin subcommands (STYLE.md 8): each parses its
// options, calls one library function and prints. Exit status: 0 success,
// 1 a failure of the work itself, 2 bad input (usage, profile, file).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/status.h"

namespace sd::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

using Handler = std::function<int()>;

struct CommandDef {
  const char* name;
  const char* summary;
  // Adds options to `sub` and returns the handler to run once parsing succeeded.
  Handler (*setup)(CLI::App& sub);
};

const std::vector<CommandDef>& commands();

// Prints "streamdisk: <msg>" on stderr and returns kExitBadInput.
int bad_input(const std::string& msg);
// Prints "streamdisk: <msg>" on stderr and returns kExitFailure.
int failure(const std::string& msg);
// Prints "streamdisk: warning: <msg>" on stderr (the command goes on).
void warning(const std::string& msg);


// Checks for numeric options, applied before CLI11 converts the text: alone
// it reads "-1" into an unsigned option as 2^64-1 and "0x10" as 16, where
// every other number in streamdisk is decimal (units.h parse_decimal).
const CLI::Validator& whole_number_check();  // 0, 1, 2... (no sign, no hex)
const CLI::Validator& decimal_check();       // 1.5, 2e-3 (no hex, inf or nan)
// Every option or argument that names a file or directory: an empty path
// ("--trace ''", often an unset shell variable) is refused, never read as
// "none" (an output quietly not written) or as the current directory.
const CLI::Validator& path_check();
// The same for an option that names a profile (calibrate --base) and for a
// profile's --name: '' is refused, never read as "none" or "the default".
const CLI::Validator& profile_check();
const CLI::Validator& name_check();

// --profile and --set, shared by every command that takes a profile.
struct ProfileArgs {
  std::string profile;
  std::vector<std::string> sets;
};
void add_profile_options(CLI::App& sub, ProfileArgs& args, bool required = true);
// The parts of a profile spec ("a.toml+ext4+b.toml") that are files: inputs
// an output file must not replace.
std::vector<std::string> profile_files(const std::string& spec);

// Subcommand setups (one file each).
Handler setup_profiles(CLI::App& sub);
Handler setup_show(CLI::App& sub);
Handler setup_simulate(CLI::App& sub);
Handler setup_capacity(CLI::App& sub);
Handler setup_measure(CLI::App& sub);
Handler setup_record(CLI::App& sub);
Handler setup_calibrate(CLI::App& sub);
Handler setup_replay(CLI::App& sub);
Handler setup_fault(CLI::App& sub);
Handler setup_inspect(CLI::App& sub);
Handler setup_report(CLI::App& sub);
Handler setup_mount(CLI::App& sub);
Handler setup_characterize(CLI::App& sub);

}  // namespace sd::cli
