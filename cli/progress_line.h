// A progress line on stderr for long real-hardware runs (measure,
// characterize): rewritten in place on a terminal, or printed as whole lines
// at most every `period` seconds when forced (--progress) into a file or pipe.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "models/device.h"

namespace sd::cli {

class ProgressLine {
 public:
  ProgressLine(bool forced, double period) : tty_(::isatty(2) != 0), on_(tty_ || forced), period_(period) {}
  // True when a line is due now (callers skip formatting otherwise).
  bool due() {
    if (!on_) return false;
    double t = clock_.now();
    if (t - last_ < (tty_ ? 0.25 : period_)) return false;
    last_ = t;
    return true;
  }
  double elapsed() { return clock_.now(); }
  void show(const std::string& line) {
    if (tty_) fmt::print(stderr, "\r{:<{}}", line, width_);
    else fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
    shown_ = true;
  }
  void done() {
    if (tty_ && shown_) fmt::print(stderr, "\r{:<{}}\r", "", width_);
  }
  void width(int w) { width_ = w; }

 private:
  bool tty_, on_, shown_ = false;
  double period_;
  int width_ = 78;
  RealClock clock_;
  double last_ = -1;
};

}  // namespace sd::cli
