// streamdisk: will this storage keep up with my recording?
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/version.h"
#include "models/input.h"
#include "models/params.h"
#include "models/profile.h"
#include "models/units.h"

namespace sd::cli {

int bad_input(const std::string& msg) {
  fmt::print(stderr, "streamdisk: {}\n", msg);
  return kExitBadInput;
}

int failure(const std::string& msg) {
  fmt::print(stderr, "streamdisk: {}\n", msg);
  return kExitFailure;
}

void warning(const std::string& msg) { fmt::print(stderr, "streamdisk: warning: {}\n", msg); }

const CLI::Validator& whole_number_check() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        uint64_t n = 0;
        return sd::parse_whole(text, n) ? "" : fmt::format("'{}' is not a whole number 0 or more", sd::excerpt(text, 40));
      },
      "WHOLE");
  return v;
}

const CLI::Validator& decimal_check() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        double d = 0;
        return sd::parse_decimal(text, d) ? "" : fmt::format("'{}' is not a decimal number", sd::excerpt(text, 40));
      },
      "NUMBER");
  return v;
}

// A check that refuses '' with `message` (no description: the option's help
// and type name stay as they are).
CLI::Validator refuse_empty(std::string message) {
  return CLI::Validator([message](std::string& text) { return text.empty() ? message : std::string(); }, "");
}

const CLI::Validator& path_check() {
  static const CLI::Validator v = refuse_empty("'' is not a path: give a file or directory name (an unset shell variable?)");
  return v;
}

const CLI::Validator& profile_check() {
  static const CLI::Validator v = refuse_empty(
      "'' is not a profile: name a built-in profile or a TOML file (`streamdisk profiles` lists them; an unset shell "
      "variable?)");
  return v;
}

const CLI::Validator& name_check() {
  static const CLI::Validator v =
      refuse_empty("'' is not a name: give one, or leave the option out for the default");
  return v;
}

void add_profile_options(CLI::App& sub, ProfileArgs& a, bool required) {
  auto* o = sub.add_option("-p,--profile", a.profile,
                           "Profile: a built-in name, a TOML file, or layers joined by '+' "
                           "(host+filesystem+device). `streamdisk profiles` lists them.");
  if (required) o->required();
  sub.add_option("--set", a.sets, "Override a parameter: --set device.sustained_mbps=20 (repeatable)")
      ->type_name("KEY=VALUE");
}

std::vector<std::string> profile_files(const std::string& spec) {
  // Every file the profile reads: its parts and the files a composite file names.
  if (auto p = load_profile_unfinished(spec)) return p->files;
  std::vector<std::string> files;  // it does not load: the parts that exist, at least
  size_t start = 0;
  while (start <= spec.size()) {
    size_t plus = spec.find('+', start);
    std::string part = spec.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    struct stat st{};
    if (!part.empty() && ::stat(part.c_str(), &st) == 0) files.push_back(part);
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return files;
}

}  // namespace sd::cli

int main(int argc, char** argv) {
  using namespace sd::cli;
  CLI::App app{
      "streamdisk: will this storage keep up with my recording, for the whole recording?\n"
      "Parametric drive models, an offline simulator, a throttling FUSE filesystem.\n\n"
      "Examples:\n"
      "  streamdisk profiles\n"
      "  streamdisk show samsung-960evo-250g\n"
      "  streamdisk show rpi4-buster+exfat-fuse+sandisk-ultrafit-16g --set device.sustained_mbps=8\n",
      "streamdisk"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  Handler handler;
  for (const auto& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    auto setup = c.setup;
    // Set up lazily-bound handlers: each subcommand records its own.
    Handler h = setup(*sub);
    sub->callback([&handler, h] { handler = h; });
  }
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto& c : commands()) names.emplace_back(c.name);
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string hint = sd::nearest(argv[1], names);
      return bad_input(fmt::format("unknown subcommand '{}'{}; `streamdisk --help` lists them", argv[1],
                                   hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string which;
    for (auto* s : app.get_subcommands()) which = s->get_name();
    return bad_input(fmt::format("{} (see `streamdisk {}--help`)", e.what(), which.empty() ? "" : which + " "));
  }
  if (!handler) return bad_input("no subcommand given (see `streamdisk --help`)");
  // Errors are values until here (STYLE.md 7); anything thrown past a
  // handler still ends as one line, never as raw std:: text and an abort.
  try {
    return handler();
  } catch (const std::bad_alloc&) {
    return failure("out of memory: the request is too large for this machine (use a shorter duration, fewer "
                   "channels or a smaller input)");
  } catch (const std::system_error& e) {
    return failure(fmt::format("the system refused: {} (try a smaller request)", e.code().message()));
  } catch (const std::exception& e) {
    return failure(fmt::format("internal error ({}): please report it with the command line", sd::excerpt(e.what(), 80)));
  }
}
