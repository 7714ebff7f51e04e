// Line plots as standalone SVG text: axes with units, ticks (linear or log),
// a legend, reference lines and point markers. No scripts, no external
// fonts or links, so a report stays one self-contained file. Pure function
// of its input: the same Plot gives the same bytes.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace sd {

struct PlotSeries {
  std::string name;             // legend text
  std::vector<double> x, y;     // same length; NaN y values break the line
  bool markers = false;         // draw points (o) instead of a line
  bool dashed = false;
  int color = -1;               // palette index; -1: by position
};

struct PlotLine {               // a labelled reference line across the plot
  double at = 0;
  std::string label;
  bool vertical = true;         // true: x = at; false: y = at
};

struct Plot {
  std::string id;               // file name stem for --svg, e.g. "show-rate-vs-block"
  std::string title;
  std::string caption;          // one or two sentences a newcomer can read
  std::string x_label, y_label; // with units: "block size (bytes, log scale)"
  bool log_x = false, log_y = false;
  std::vector<PlotSeries> series;
  std::vector<PlotLine> lines;
  std::vector<double> x_ticks;  // explicit tick positions; empty: automatic
  std::function<std::string(double)> x_fmt, y_fmt;  // tick labels; empty: %g
  bool y_from_zero = true;      // linear y axis starts at 0
};

// Renders `p` as an <svg> element (no XML prolog), width x height pixels.
std::string render_svg(const Plot& p, int width = 760, int height = 400);
// Escapes &, <, >, " for XML/HTML text and attributes.
std::string xml_escape(const std::string& s);

}  // namespace sd
