#include "report/report.h"

#include <fmt/format.h>

namespace sd {

const std::vector<ReportKind>& report_kinds() {
  static const std::vector<ReportKind> kinds = {
      {"streamdisk-show", "a profile: write rate vs block size, the burst->sustained timeline, parameters",
       render_show},
      {"streamdisk-replay", "a replay: which devices kept up, data written and buffer fill over time",
       render_replay},
      {"streamdisk-simulate", "a simulation: its tables and timelines (generic layout)", render_generic},
      {"streamdisk-capacity", "a capacity search: its tables (generic layout)", render_generic},
      {"streamdisk-measure", "a measurement: measured rates vs block size (generic layout)", render_generic},
      {"streamdisk-calibrate", "a calibration: measured points against the fitted model (generic layout)",
       render_generic},
  };
  return kinds;
}

std::string para(const std::string& text) { return "<p>" + xml_escape(text) + "</p>\n"; }

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string o = "<table>\n<thead><tr>";
  for (const auto& h : header) o += "<th>" + xml_escape(h) + "</th>";
  o += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    o += "<tr>";
    for (const auto& c : r) o += "<td>" + xml_escape(c) + "</td>";
    o += "</tr>\n";
  }
  return o + "</tbody>\n</table>\n";
}

Result<std::vector<ReportSection>> build_sections(const std::vector<ReportInput>& inputs) {
  std::vector<ReportSection> out;
  for (const auto& in : inputs) {
    if (!in.doc.is_object() || !in.doc.contains("format") || !in.doc["format"].is_string())
      return Result<std::vector<ReportSection>>::error(fmt::format(
          "{}: not a streamdisk JSON output (no \"format\" field): give the output of a subcommand's --json",
          in.name));
    std::string f = in.doc["format"];
    const ReportKind* kind = nullptr;
    for (const auto& k : report_kinds())
      if (f == k.format) kind = &k;
    if (!kind && f.starts_with("streamdisk-")) kind = &report_kinds()[2];  // a newer kind: generic layout
    if (!kind)
      return Result<std::vector<ReportSection>>::error(
          fmt::format("{}: unknown JSON format '{}' (see `streamdisk report --help` for the kinds it reads)", in.name, f));
    Result<ReportSection> s = ReportSection{};
    try {
      s = kind->render(in);
    } catch (const nlohmann::json::exception& e) {
      return Result<std::vector<ReportSection>>::error(
          fmt::format("{}: a '{}' document with an unexpected layout ({}); was it written by another streamdisk "
                      "version?", in.name, f, e.what()));
    }
    if (!s) return s.status();
    s->kind = f;
    out.push_back(std::move(*s));
  }
  return out;
}

namespace {
const char* kStyle = R"(body{font-family:"DejaVu Sans",Arial,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #0072B2;padding-bottom:.2em}
h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f0f4f8}
figure{margin:1.5em 0}
figcaption{font-size:.9em;color:#444;max-width:760px}
.kind{color:#666;font-size:.85em}
nav li{margin:.2em 0}
)";
}  // namespace

std::string render_html(const std::string& title, const std::vector<ReportSection>& sections) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"generator\" content=\"streamdisk report\">\n";
  o += "<title>" + xml_escape(title) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  o += "<h1>" + xml_escape(title) + "</h1>\n";
  o += para("Made by streamdisk from the JSON outputs listed below. Every figure is computed from those files; "
            "this page needs no network and no scripts.");
  o += "<nav>\n<ul>\n";
  for (size_t i = 0; i < sections.size(); ++i)
    o += fmt::format("<li><a href=\"#s{}\">{}</a></li>\n", i + 1, xml_escape(sections[i].title));
  o += "</ul>\n</nav>\n";
  int fig = 0;
  for (size_t i = 0; i < sections.size(); ++i) {
    const auto& s = sections[i];
    o += fmt::format("<section id=\"s{}\">\n<h2>{}</h2>\n<p class=\"kind\">{}</p>\n", i + 1, xml_escape(s.title),
                     xml_escape(s.kind));
    for (const auto& b : s.blocks) {
      o += b.html;
      if (b.plot) {
        ++fig;
        Plot p = *b.plot;
        p.id = fmt::format("f{}", fig);  // unique ids within the page
        o += "<figure>\n" + render_svg(p) + fmt::format("<figcaption><b>Figure {}.</b> {}</figcaption>\n</figure>\n",
                                                        fig, xml_escape(p.caption));
      }
    }
    o += "</section>\n";
  }
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace sd
