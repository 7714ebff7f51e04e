// `streamdisk report` inputs: any JSON document, rendered to HTML and SVG as
// the subcommand does (report/report.h).
#include <nlohmann/json.hpp>

#include "fuzz_input.h"
#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto j = nlohmann::json::parse(sd_fuzz::text(data, size), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  std::vector<sd::ReportInput> inputs{{"fuzz.json", std::move(j)}};
  auto sections = sd::build_sections(inputs);
  sd_fuzz::check_result(sections);
  if (!sections.ok()) return 0;
  sd::render_html("fuzz", *sections);
  for (const auto& s : *sections)
    for (const auto& b : s.blocks)
      if (b.plot) sd::render_svg(*b.plot);
  return 0;
}
