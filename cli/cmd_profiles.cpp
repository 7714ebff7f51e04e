// streamdisk profiles [--json]
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "models/profile.h"

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
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& p : list)
        out.push_back({{"name", p.name},
                       {"layer", p.layer ? std::string(layer_name(*p.layer)) : "composite"},
                       {"summary", p.summary},
                       {"layers", p.layers}});
      fmt::print("{}\n", out.dump(2));
      return kExitOk;
    }
    size_t w = 0;
    for (const auto& p : list) w = std::max(w, p.name.size());
    std::string group = "-";
    for (const auto& p : list) {
      std::string g = p.layer ? std::string(layer_name(*p.layer)) : "composite (host+filesystem+device)";
      if (g != group) {
        fmt::print("{}{}:\n", group == "-" ? "" : "\n", g);
        group = g;
      }
      fmt::print("  {:<{}}  {}\n", p.name, w, p.summary);
      if (!p.layers.empty()) fmt::print("  {:<{}}    = {}\n", "", w, p.layers);
    }
    fmt::print("\nShow one: streamdisk show NAME    Combine: --profile HOST+FILESYSTEM+DEVICE\n");
    return kExitOk;
  };
}

}  // namespace sd::cli
