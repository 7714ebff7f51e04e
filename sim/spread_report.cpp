#include "sim/spread_report.h"

#include <fmt/format.h>

namespace sd {

std::string spread_range_text(const Spread& s, const ValueText& value) {
  if (s.low == s.high) return fmt::format("{} (no estimated parameter moves it)", value(s.nominal));
  return fmt::format("{} - {}, most likely {}", value(s.low), value(s.high), value(s.nominal));
}

std::string spread_decisive_text(const Spread& s, const ValueText& value) {
  const ParamEffect* d = s.decisive();
  if (!d) return "no estimated parameter moves the answer";
  double a = std::min(d->at_lo, d->at_hi), b = std::max(d->at_lo, d->at_hi);
  return fmt::format("{} ({:g} ... {:g}, profile {:g}) decides most of the spread ({} - {} alone); measure it: {}",
                     d->param.name(), d->param.lo, d->param.hi, d->param.value, value(a), value(b),
                     measuring_step(d->param));
}

nlohmann::json spread_json(const Spread& s) {
  nlohmann::json sens = nlohmann::json::array();
  for (const auto& e : s.effects)
    sens.push_back({{"parameter", e.param.name()},
                    {"value", e.param.value},
                    {"range", {e.param.lo, e.param.hi}},
                    {"answer_at_low", e.at_lo},
                    {"answer_at_high", e.at_hi},
                    {"swing", e.swing(s.nominal)},
                    {"measured_by", measuring_step(e.param)}});
  const ParamEffect* d = s.decisive();
  return {{"most_likely", s.nominal},
          {"low", s.low},
          {"high", s.high},
          {"corners", {s.corner_low, s.corner_high}},
          {"method", spread_method(s)},
          {"evaluations", s.evaluations},
          {"decisive", d ? nlohmann::json{{"parameter", d->param.name()}, {"measured_by", measuring_step(d->param)}}
                         : nlohmann::json(nullptr)},
          {"sensitivities", sens}};
}

}  // namespace sd
