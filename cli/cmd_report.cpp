// streamdisk report IN.json... -o report.html [--svg DIR]
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.h"
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
  if (html.is_open()) {
    std::string text = render_html(a.title, *sections);
    std::fwrite(text.data(), 1, text.size(), html.stream());
    if (Status st = html.commit(); !st.ok()) return failure(st.message());
  }
  if (!a.svg_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.svg_dir, ec);
    if (ec) return bad_input(fmt::format("--svg: cannot create directory '{}': {}", a.svg_dir, ec.message()));
    int n = 0;
    for (const auto& s : *sections)
      for (const auto& b : s.blocks) {
        if (!b.plot) continue;
        std::string file = fmt::format("{}/{:02}-{}.svg", a.svg_dir, ++n, b.plot->id);
        std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(*b.plot);
        if (auto st = write_output_file(file, svg, {"--svg", "plots", false, a.inputs}); !st.ok())
          return bad_input(st.message());
      }
  }
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
  sub.add_option("inputs", a->inputs, "JSON outputs of streamdisk subcommands ('-' reads stdin)")->required();
  sub.add_option("-o,--output", a->out,
                 "Write one self-contained HTML page here (inline SVG, no network); written whole or not at all, "
                 "never over an input (docs/formats.md \"Output files\")");
  sub.add_option("--svg", a->svg_dir, "Also (or only) write each plot as an SVG file in this directory");
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
