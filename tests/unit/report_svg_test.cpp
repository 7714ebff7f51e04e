// SVG plots: axes and labels always present, gaps for NaN, log ticks, escaping.
#include <cmath>

#include <catch2/catch.hpp>

#include "report/svg_plot.h"

using namespace sd;

namespace {
size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("svg plot: an empty plot still has its frame, title and axis labels") {
  Plot p;
  p.title = "Nothing <yet>";
  p.x_label = "time (s)";
  p.y_label = "rate (MB/s)";
  std::string svg = render_svg(p);
  CHECK(svg.starts_with("<svg "));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(svg.find("Nothing &lt;yet&gt;") != std::string::npos);
  CHECK(svg.find("time (s)") != std::string::npos);
  CHECK(count(svg, "<path") == 0);
}

TEST_CASE("svg plot: NaN values break a line into pieces, log axes skip non-positive points") {
  Plot p;
  p.id = "t";
  p.log_x = true;
  p.series.push_back({"a", {0, 1, 10, 100, 1000, 10000}, {1, 2, NAN, 4, 5, 6}});
  std::string svg = render_svg(p);
  REQUIRE(count(svg, "<path") == 1);
  size_t d = svg.find("<path d=\"");
  std::string path = svg.substr(d, svg.find('"', d + 9) - d);
  CHECK(count(path, "M") == 2);  // x=0 dropped (log), NaN splits 1 | 100..10000
  CHECK(count(path, "L") == 2);
  // Decade ticks on a 4-decade log axis: 1, 10, 100, 1000, 10000.
  for (const char* t : {">1<", ">10<", ">100<", ">1000<", ">10000<"}) CHECK(svg.find(t) != std::string::npos);
}

TEST_CASE("svg plot: a long legend wraps below the plot and grows the picture") {
  Plot p;
  for (int i = 0; i < 8; ++i) p.series.push_back({"a rather long series name " + std::to_string(i), {0, 1}, {0, 1}});
  std::string svg = render_svg(p, 760, 400);
  CHECK(svg.find("height=\"400\"") == std::string::npos);  // taller than asked: legend rows
  CHECK(count(svg, "a rather long series name") == 8);
}
