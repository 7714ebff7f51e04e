// streamdisk show PROFILE [--set k=v] [--json] | show --params
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "models/profile.h"
#include "sim/profile_report.h"

namespace sd::cli {
namespace {

struct ShowArgs {
  ProfileArgs prof;
  std::string positional;
  bool json = false;
  bool params = false;
  double fill = 0;
};

}  // namespace

Handler setup_show(CLI::App& sub) {
  auto a = std::make_shared<ShowArgs>();
  sub.add_option("name", a->positional, "Profile to show (same as --profile)");
  add_profile_options(sub, a->prof, /*required=*/false);
  sub.add_flag("--json", a->json, "Print JSON instead of text");
  sub.add_flag("--params", a->params, "List every model parameter: unit, default, allowed range, meaning");
  sub.add_option("--fill", a->fill, "Predict at this fill level (0..1)")->check(decimal_check() & CLI::Range(0.0, 1.0));
  sub.footer(
      "Examples:\n"
      "  streamdisk show samsung-960evo-250g\n"
      "  streamdisk show rpi4-buster+exfat-fuse+sandisk-ultrafit-16g --json\n"
      "  streamdisk show crio-9014 --set device.op_overhead_us=20000\n"
      "  streamdisk show --params");
  return [a] {
    if (a->params) {
      fmt::print("{}", param_table_text());
      return kExitOk;
    }
    std::string spec = !a->positional.empty() ? a->positional : a->prof.profile;
    if (spec.empty()) return bad_input("show needs a profile: streamdisk show NAME (`streamdisk profiles` lists them)");
    if (!a->positional.empty() && !a->prof.profile.empty())
      return bad_input("give the profile once: either `show NAME` or `show --profile NAME`");
    auto p = load_profile(spec, a->prof.sets);
    if (!p) return bad_input(p.message());
    if (a->json)
      fmt::print("{}\n", profile_json(*p, a->fill).dump(2));
    else
      fmt::print("{}", profile_text(*p, a->fill));
    return kExitOk;
  };
}

}  // namespace sd::cli
