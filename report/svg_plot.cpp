#include "report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace sd {
namespace {

// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double px0 = 0, px1 = 1;  // pixel positions of lo and hi
  double map(double v) const {
    double a = log ? std::log10(std::max(v, 1e-300)) : v, l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return px0 + (a - l) / (h - l) * (px1 - px0);
  }
};

double nice_step(double range) {
  double raw = range / 5, mag = std::pow(10, std::floor(std::log10(raw))), f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

std::vector<double> auto_ticks(const Axis& a) {
  std::vector<double> t;
  if (a.log) {
    int d0 = static_cast<int>(std::floor(std::log10(a.lo))), d1 = static_cast<int>(std::ceil(std::log10(a.hi)));
    for (int d = d0; d <= d1; ++d)
      for (double m : (d1 - d0 <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1})) {
        double v = m * std::pow(10, d);
        if (v >= a.lo * 0.999 && v <= a.hi * 1.001) t.push_back(v);
      }
    return t;
  }
  double s = nice_step(a.hi - a.lo);
  for (double v = std::ceil(a.lo / s) * s; v <= a.hi + s * 1e-9; v += s) t.push_back(std::abs(v) < s * 1e-9 ? 0 : v);
  return t;
}

void fit_range(Axis& a, double lo, double hi, bool from_zero) {
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (a.log) {
    lo = std::max(lo, 1e-12);
    hi = std::max(hi, lo * 10);
    a.lo = std::pow(10, std::floor(std::log10(lo) * 4) / 4);  // a little margin, in quarter decades
    a.hi = std::pow(10, std::ceil(std::log10(hi) * 4) / 4);
    return;
  }
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi - lo < 1e-12) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  double s = nice_step(hi - lo);
  a.lo = std::floor(lo / s) * s;
  a.hi = std::ceil(hi / s) * s;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

namespace {

// The plot area inside a W x H drawing: margins for ticks, labels and title.
struct Frame {
  int W = 0, H = 0;
  double left = 78, right = 20, top = 34, bottom = 52;
};

const char* series_colour(const PlotSeries& s, size_t k) {
  return kPalette[(s.color >= 0 ? s.color : static_cast<int>(k)) % 8];
}

double legend_item_width(const PlotSeries& s) { return 6.8 * static_cast<double>(s.name.size()) + 46; }

// Rows the legend needs below the plot (same flow as legend_svg draws it).
int legend_rows(const Plot& p, const Frame& f) {
  int rows = p.series.empty() ? 0 : 1;
  for (double lx = f.left; const auto& s : p.series) {
    double w = legend_item_width(s);
    if (lx + w > f.W - f.right && lx > f.left) lx = f.left, ++rows;
    lx += w;
  }
  return rows;
}

// The axes: the data's range (finite values, positive ones on a log axis),
// reference lines and given ticks included.
std::pair<Axis, Axis> fit_axes(const Plot& p, const Frame& f) {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : p.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (p.log_x && s.x[i] <= 0) || (p.log_y && s.y[i] <= 0))
        continue;
      xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
    }
  for (const auto& l : p.lines) {
    if (l.vertical) xlo = std::min(xlo, l.at), xhi = std::max(xhi, l.at);
    else ylo = std::min(ylo, l.at), yhi = std::max(yhi, l.at);
  }
  if (!p.x_ticks.empty()) {
    xlo = std::min(xlo, p.x_ticks.front());
    xhi = std::max(xhi, p.x_ticks.back());
  }
  Axis ax{0, 1, p.log_x, f.left, f.W - f.right}, ay{0, 1, p.log_y, f.H - f.bottom, f.top};
  if (!p.x_ticks.empty() && p.log_x) {
    ax.lo = xlo, ax.hi = xhi;
  } else {
    fit_range(ax, xlo, xhi, false);
  }
  fit_range(ay, ylo, yhi * (p.log_y ? 1 : 1.08), p.y_from_zero);
  return {ax, ay};
}

// Grid lines, tick labels, the frame and the axis labels.
std::string grid_svg(const Plot& p, const Frame& f, const Axis& ax, const Axis& ay) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  const int W = f.W, H = f.H;
  auto fx = p.x_fmt ? p.x_fmt : [](double v) { return fmt::format("{:g}", v); };
  auto fy = p.y_fmt ? p.y_fmt : [](double v) { return fmt::format("{:g}", v); };
  std::string o;
  for (double t : p.x_ticks.empty() ? auto_ticks(ax) : p.x_ticks) {
    double x = ax.map(t);
    if (x < left - 0.5 || x > W - right + 0.5) continue;
    o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>\n", x, top, H - bottom);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, H - bottom + 16,
                     xml_escape(fx(t)));
  }
  for (double t : auto_ticks(ay)) {
    double y = ay.map(t);
    o += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>\n", left, y, W - right);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 4, xml_escape(fy(t)));
  }
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", left, top,
                   W - left - right, H - top - bottom);
  o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (left + W - right) / 2, H - 12,
                   xml_escape(p.x_label));
  o += fmt::format("<text transform=\"translate(16,{:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                   (top + H - bottom) / 2, xml_escape(p.y_label));
  return o;
}

// Dashed reference lines (vertical: a position on x; horizontal: a limit on y).
std::string reference_lines_svg(const Plot& p, const Frame& f, const Axis& ax, const Axis& ay) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  const int W = f.W, H = f.H;
  std::string o;
  for (const auto& l : p.lines) {
    if (l.vertical) {
      double x = ax.map(l.at);
      o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n"
                       "<text x=\"{3:.1f}\" y=\"{4}\" fill=\"#444\">{5}</text>\n",
                       x, top, H - bottom, x + 4, top + 14, xml_escape(l.label));
    } else {
      double y = ay.map(l.at);
      o += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#B00020\" stroke-dasharray=\"6 3\"/>\n"
                       "<text x=\"{3}\" y=\"{4:.1f}\" fill=\"#B00020\" text-anchor=\"end\">{5}</text>\n",
                       left, y, W - right, W - right - 4, y - 4, xml_escape(l.label));
    }
  }
  return o;
}

// The series, clipped to the plot area: paths, or markers.
std::string series_svg(const Plot& p, const Frame& f, const Axis& ax, const Axis& ay) {
  const double left = f.left, right = f.right, top = f.top, bottom = f.bottom;
  const int W = f.W, H = f.H;
  std::string o;
  o += fmt::format("<clipPath id=\"c-{0}\"><rect x=\"{1}\" y=\"{2}\" width=\"{3}\" height=\"{4}\"/></clipPath>\n<g clip-path=\"url(#c-{0})\">\n",
                   xml_escape(p.id), left, top, W - left - right, H - top - bottom);
  for (size_t k = 0; k < p.series.size(); ++k) {
    const PlotSeries& s = p.series[k];
    const char* col = series_colour(s, k);
    std::string path;
    bool pen = false;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      bool ok = std::isfinite(s.y[i]) && std::isfinite(s.x[i]) && !(p.log_x && s.x[i] <= 0) && !(p.log_y && s.y[i] <= 0);
      if (!ok) {
        pen = false;
        continue;
      }
      double x = ax.map(s.x[i]), y = ay.map(s.y[i]);
      if (s.markers)
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", x, y, col);
      else
        path += fmt::format("{}{:.1f},{:.1f} ", pen ? "L" : "M", x, y);
      pen = true;
    }
    if (!path.empty())
      o += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", path, col,
                       s.dashed ? " stroke-dasharray=\"7 4\"" : "");
  }
  o += "</g>\n";
  return o;
}

// The legend below the axis label, items flowing left to right, so it never hides data.
std::string legend_svg(const Plot& p, const Frame& f) {
  const double left = f.left, right = f.right;
  const int W = f.W, H = f.H;
  std::string o;
  double lx = left, ly = H + 4;
  for (size_t k = 0; k < p.series.size(); ++k) {
    const PlotSeries& s = p.series[k];
    const char* col = series_colour(s, k);
    double w = legend_item_width(s);
    if (lx + w > W - right && lx > left) lx = left, ly += 18;
    if (s.markers)
      o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", lx + 12, ly + 4, col);
    else
      o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
                       lx, ly + 4, lx + 24, ly + 4, col, s.dashed ? " stroke-dasharray=\"7 4\"" : "");
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 30, ly + 8, xml_escape(s.name));
    lx += w;
  }
  return o;
}

}  // namespace


std::string render_svg(const Plot& p, int W, int H) {
  const Frame f{.W = W, .H = H};
  const int rows = legend_rows(p, f);
  const int total_h = H + rows * 18 + (rows ? 8 : 0);
  const double left = f.left;
  const auto [ax, ay] = fit_axes(p, f);
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"{3}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      W, total_h, xml_escape(p.title), left);
  o += grid_svg(p, f, ax, ay);
  o += reference_lines_svg(p, f, ax, ay);
  o += series_svg(p, f, ax, ay);
  o += legend_svg(p, f);
  o += "</svg>\n";
  return o;
}

}  // namespace sd
