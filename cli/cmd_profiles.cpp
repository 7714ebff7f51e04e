// streamdisk profiles [--json]
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "models/profile.h"
#include "sim/profile_report.h"

namespace sd::cli {

Handler setup_profiles(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print JSON instead of a table");
  sub.footer(
      "Examples:\n"
      "  streamdisk profiles\n"
      "  streamdisk profiles --json | jq '.[] | select(.layer==\"device\") | .name'\n"
      "Compose layers with '+': --profile rpi4-bullseye+exfat-kernel+sandisk-extremego-64g");
  return [json] {
    auto list = builtin_profiles();
    if (*json) fmt::print("{}\n", profiles_json(list).dump(2));
    else fmt::print("{}", profiles_text(list));
    return kExitOk;
  };
}

}  // namespace sd::cli
