#include "fusefs/summary.h"

#include <fmt/format.h>

#include "models/units.h"

namespace sd::fusefs {
namespace {

nlohmann::json power_loss_json(const MountSummary& s) {
  if (s.power_lost_at < 0) return nullptr;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : s.power_loss)
    files.push_back({{"path", f.path}, {"exists", f.exists}, {"length_bytes", f.length}, {"written_bytes", f.written},
                     {"data_bytes", f.data_bytes}});
  return {{"time_s", s.power_lost_at}, {"inexact", s.power_loss_inexact}, {"files", files}};
}

std::string power_loss_text(const MountSummary& s) {
  if (s.power_lost_at < 0) return {};
  std::string out = fmt::format(
      "  power loss at {:.3f} s: the backing files hold what survived (`streamdisk inspect` them)\n", s.power_lost_at);
  for (const auto& f : s.power_loss) {
    if (!f.exists)
      out += fmt::format("    {}: gone ({} written; its directory entry never became durable)\n", f.path,
                         format_size(static_cast<double>(f.written)));
    else
      out += fmt::format("    {}: {} of {} written survive{}\n", f.path, format_size(static_cast<double>(f.length)),
                         format_size(static_cast<double>(f.written)),
                         f.data_bytes < f.length ? fmt::format(" ({} of them zeros)",
                                                               format_size(static_cast<double>(f.length - f.data_bytes)))
                                                 : "");
  }
  if (s.power_loss_inexact)
    out += "    (over 256 MiB of overwritten bytes: rewritten ranges may hold their later bytes)\n";
  return out;
}

}  // namespace

nlohmann::json summary_json(const MountSummary& s, const std::string& profile) {
  return {{"format", "streamdisk-mount-summary"},
          {"format_version", 1},
          {"profile", profile},
          {"seconds", s.seconds},
          {"writes", s.writes},
          {"reads", s.reads},
          {"other_ops", s.other_ops},
          {"bytes_written", s.bytes_written},
          {"bytes_read", s.bytes_read},
          {"errors", {{"ENOSPC", s.enospc}, {"EFBIG", s.efbig}, {"other", s.other_errors}}},
          {"fault_events", s.fault_events},
          {"stalls", s.stalls},
          {"stall_seconds", s.stall_seconds},
          {"used_bytes", s.used_bytes},
          {"capacity_bytes", s.capacity_bytes},
          {"fill", s.fill},
          {"completion_error_s",
           {{"p50", s.late_p50}, {"p99", s.late_p99}, {"max", s.late_max}, {"samples", s.late_samples}}},
          {"power_loss", power_loss_json(s)}};
}

std::string summary_text(const MountSummary& s) {
  double rate = s.seconds > 0 ? static_cast<double>(s.bytes_written) / s.seconds : 0;
  return fmt::format(
             "streamdisk: unmounted after {}: wrote {} in {} writes ({} on average), read {} in {} reads\n"
             "  errors: ENOSPC {}, EFBIG {}, other {}; fault events {}; stalls {} ({}); fill {:.1f} % of {}\n"
             "  reply - modelled completion: p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms over {} replies\n",
             format_duration(s.seconds), format_size(static_cast<double>(s.bytes_written)), s.writes,
             format_rate(rate), format_size(static_cast<double>(s.bytes_read)), s.reads, s.enospc, s.efbig,
             s.other_errors, s.fault_events, s.stalls, format_duration(s.stall_seconds), s.fill * 100,
             s.capacity_bytes > 0 ? format_size(s.capacity_bytes) : std::string("unlimited"), s.late_p50 * 1e3,
             s.late_p99 * 1e3, s.late_max * 1e3, s.late_samples) +
         power_loss_text(s);
}

}  // namespace sd::fusefs
