// `streamdisk report`: one self-contained HTML page (inline SVG, inline CSS,
// no scripts, no network) from the JSON outputs of the other subcommands.
// Each JSON document names its kind in "format" ("streamdisk-show",
// "streamdisk-replay", ...); a table of renderers maps kinds to sections, so
// adding a kind is one function and one row (report_kinds()). Kinds without
// a dedicated renderer get a generic one driven by the JSON's shape (see
// kind_generic.cpp and docs/formats.md "Report inputs").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/status.h"
#include "report/svg_plot.h"

namespace sd {

struct ReportInput {
  std::string name;  // file name, for headings and messages
  nlohmann::json doc;
};

struct ReportBlock {
  std::string html;         // a paragraph or table (already escaped), or empty
  std::optional<Plot> plot; // or a figure
};

struct ReportSection {
  std::string title;
  std::string kind;  // the "format" it came from
  std::vector<ReportBlock> blocks;
};

using KindRenderer = Result<ReportSection> (*)(const ReportInput&);
struct ReportKind {
  const char* format;  // "streamdisk-show"
  const char* what;    // one line for --help
  KindRenderer render;
};
const std::vector<ReportKind>& report_kinds();

// Renders every input (errors name the file); the title heads the page.
Result<std::vector<ReportSection>> build_sections(const std::vector<ReportInput>& inputs);
std::string render_html(const std::string& title, const std::vector<ReportSection>& sections);

// Helpers shared by the renderers.
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
std::string para(const std::string& text);  // escapes
Result<ReportSection> render_show(const ReportInput& in);
Result<ReportSection> render_replay(const ReportInput& in);
Result<ReportSection> render_generic(const ReportInput& in);

}  // namespace sd
