// streamdisk report IN.json... -o report.html [--svg DIR]
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.h"
#include "models/cleanup.h"
#include "models/output_file.h"
#include "models/input.h"
#include "report/report.h"

namespace sd::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string out, svg_dir, title = "streamdisk report";
};

Result<ReportInput> load(const std::string& path) {
  auto text = read_input(path, "JSON input", kJsonLimits);
  if (!text) return text.status();
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return Result<ReportInput>::error(
        fmt::format("'{}' is not JSON: give the output of e.g. `streamdisk show NAME --json`", path));
  return ReportInput{path == "-" ? "stdin" : path, std::move(j)};
}

// A plot's id as a file name: its ids come from the inputs' keys (the
// generic layout names a plot after the JSON key it draws), so a key with
// '/', "..", a newline or 300 characters must not become a path.
std::string file_stem(const std::string& id) {
  std::string s;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok) c = '-';
    if (c == '-' && !s.empty() && s.back() == '-') continue;
    if (c == '.' && !s.empty() && s.back() == '.') continue;  // no ".." anywhere
    s += c;
    if (s.size() >= 60) break;
  }
  return s.empty() ? "plot" : s;
}

// The directories --svg DIR made: DIR and any missing parents, outermost
// first. If the command fails they go again, innermost first: each only if
// it is still the directory made here (remove_if_same) and empty (rmdir),
// so nothing the command did not create is removed. Ctrl-C removes them
// the same way (models/cleanup.h mkdir_registered).
struct MadeDirs {
  std::vector<std::pair<std::string, FileIdentity>> dirs;
  bool done = false;
  MadeDirs() = default;
  MadeDirs(const MadeDirs&) = delete;
  MadeDirs& operator=(const MadeDirs&) = delete;
  ~MadeDirs() {
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
      if (!done) remove_if_same(it->first, it->second);
      cleanup::unregister_path(it->first);
    }
  }
};

// mkdir -p `dir`, remembering in `made` what it made.
Status make_dirs(const std::string& dir, MadeDirs& made) {
  std::vector<std::string> missing;
  struct stat st{};
  for (std::string p = dir; !p.empty() && ::stat(p.c_str(), &st) != 0 && errno == ENOENT;) {
    missing.push_back(p);
    std::string parent = std::filesystem::path(p).parent_path().string();
    if (parent == p) break;
    p = parent;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (cleanup::mkdir_registered(*it) != 0) {  // Ctrl-C from here on removes it (when empty)
      if (errno == EEXIST) continue;  // made meanwhile by someone else: not ours
      return Status::error(fmt::format("--svg: cannot create directory '{}': {}", *it, std::strerror(errno)));
    }
    made.dirs.emplace_back(*it, identity_at(*it));
  }
  if (::stat(dir.c_str(), &st) != 0)
    return Status::error(fmt::format("--svg: cannot create directory '{}': {}", dir, std::strerror(errno)));
  if (!S_ISDIR(st.st_mode))
    return Status::error(fmt::format("--svg: cannot create directory '{}': a file of that name is in the way", dir));
  return {};
}

int run(const ReportArgs& a) {
  if (a.out.empty() && a.svg_dir.empty())
    return bad_input("report needs -o FILE.html and/or --svg DIR (see `streamdisk report --help`)");
  OutputFile html;  // checked before the inputs are read: a bad path fails at once
  if (!a.out.empty())
    if (Status st = html.open(a.out, {"-o", "report.html", false, a.inputs}); !st.ok()) return bad_input(st.message());
  std::vector<ReportInput> inputs;
  for (const auto& p : a.inputs) {
    auto in = load(p);
    if (!in) return bad_input(in.message());
    inputs.push_back(std::move(*in));
  }
  auto sections = build_sections(inputs);
  if (!sections) return bad_input(sections.message());
  // The plots' names are the report's own: a file of such a name is never
  // replaced (an earlier report's plots, or anything else); the run stops
  // before it writes. Each plot is written whole (OutputFile), and if a later
  // one or the page fails, or Ctrl-C comes, the plots already in place go
  // again (models/cleanup.h): all or nothing.
  MadeDirs made;  // declared before `undo`: removed after the plots in them
  std::vector<std::pair<std::string, FileIdentity>> placed;
  struct Undo {
    std::vector<std::pair<std::string, FileIdentity>>& placed;
    bool done = false;
    ~Undo() {
      for (const auto& [p, id] : placed) {
        if (!done) remove_if_same(p, id);  // only while the name is still the plot put there
        cleanup::unregister_path(p);
      }
    }
  } undo{placed};
  if (!a.svg_dir.empty()) {
    std::vector<std::pair<std::string, const Plot*>> plots;
    for (const auto& s : *sections)
      for (const auto& b : s.blocks)
        if (b.plot)
          plots.emplace_back(fmt::format("{}/{:02}-{}.svg", a.svg_dir, plots.size() + 1, file_stem(b.plot->id)),
                             &*b.plot);
    // The page must not land on a plot of the same run (its commit would
    // replace the plot) or on the directory itself.
    if (!a.out.empty()) {
      if (same_file(a.out, a.svg_dir))
        return bad_input(fmt::format("-o {} is the --svg directory: give the page a file name (e.g. {}/report.html)",
                                     a.out, a.svg_dir));
      for (const auto& [file, plot] : plots)
        if (same_file(a.out, file))
          return bad_input(fmt::format("-o {} is one of the plots --svg {} writes ({}): give the page another name "
                                       "(e.g. report.html)",
                                       a.out, a.svg_dir, file));
    }
    std::error_code ec;
    for (const auto& [file, plot] : plots)
      if (std::filesystem::symlink_status(file, ec).type() != std::filesystem::file_type::not_found)
        return bad_input(fmt::format("--svg {}: {} exists (an earlier report's plots?) and would be replaced; give an "
                                     "empty or new directory, or move those files away",
                                     a.svg_dir, file));
    if (Status st = make_dirs(a.svg_dir, made); !st.ok()) return bad_input(st.message());
    for (const auto& [file, plot] : plots) {
      std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(*plot);
      OutputFile f;
      if (Status st = f.open(file, {"--svg", "plots", false, a.inputs, true}); !st.ok()) return bad_input(st.message());
      std::fwrite(svg.data(), 1, svg.size(), f.stream());
      FileIdentity id = identity_of(fileno(f.stream()));  // the rename into place keeps it
      cleanup::register_path(file, id.dev, id.ino);        // Ctrl-C from here on removes it
      if (Status st = f.commit(); !st.ok()) {
        cleanup::unregister_path(file);  // not put in place: nothing of ours there
        return failure(st.message());
      }
      placed.emplace_back(file, id);
    }
  }
  if (html.is_open()) {
    std::string text = render_html(a.title, *sections);
    std::fwrite(text.data(), 1, text.size(), html.stream());
    if (Status st = html.commit(); !st.ok()) return failure(st.message());
  }
  undo.done = true;
  made.done = true;
  return kExitOk;
}

std::string kinds_text() {
  std::string t = "JSON kinds it reads (the \"format\" field):\n";
  for (const auto& k : report_kinds()) t += fmt::format("  {:<22} {}\n", k.format, k.what);
  return t;
}

}  // namespace

Handler setup_report(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("inputs", a->inputs, "JSON outputs of streamdisk subcommands ('-' reads stdin)")
      ->required()->check(path_check());
  sub.add_option("-o,--output", a->out,
                 "Write one self-contained HTML page here (inline SVG, no network); written whole or not at all, "
                 "never over an input (docs/formats.md \"Output files\")")->check(path_check());
  sub.add_option("--svg", a->svg_dir,
                 "Also (or only) write each plot as an SVG file in this directory, NN-NAME.svg (an existing file "
                 "of such a name stops the run: it is never replaced)")->check(path_check());
  sub.add_option("--title", a->title, "Page title (default: streamdisk report)");
  sub.footer(
      "Examples:\n"
      "  streamdisk show samsung-960evo-250g --json > evo.json\n"
      "  streamdisk replay rec.strace -p sandisk-ultrafit-16g -p samsung-960evo-250g --json > replay.json\n"
      "  streamdisk report evo.json replay.json -o report.html\n"
      "  streamdisk report evo.json --svg plots/\n\n" +
      kinds_text());
  return [a] { return run(*a); };
}

}  // namespace sd::cli
