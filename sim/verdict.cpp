#include "sim/verdict.h"

#include <cerrno>

#include <fmt/format.h>

#include "models/units.h"

namespace sd {

bool recording_ok(const RecorderResult& r) {
  return r.overrun_events == 0 && r.stopped_reason.empty() && !r.aborted_at_overrun;
}

std::string verdict_line(const RecorderConfig& c, const RecorderResult& r) {
  std::string what = fmt::format("{} for {}", format_rate(r.data_rate), format_duration(c.duration_s));
  if (!r.stopped_reason.empty()) {
    double lost = static_cast<double>(r.frames_not_written) / static_cast<double>(std::max<uint64_t>(1, r.frames_total));
    // The advice fits the error: another format only helps against a file size limit.
    std::string fix = r.stop_errno == ENOSPC  ? "use a larger device or a shorter recording"
                      : r.stop_errno == EFBIG ? "use --format w64, rf64 or caf, or a filesystem without that limit"
                      : r.stop_errno == EINVAL && c.direct
                          ? "O_DIRECT needs every write aligned, headers too: drop --direct, or record --format raw "
                            "with an aligned --block"
                      : r.stop_errno == EEXIST ? "a file of that name exists: give another --name or remove it"
                                               : "the storage refused the operation";
    if (r.stop_errno == ECANCELED) fix = "interrupted";
    return fmt::format("FAILS: the recording stopped after {}: {}; {:.1f} % of it was not written ({})",
                       format_duration(r.stopped_s.value_or(0)), r.stopped_reason, 100 * lost, fix);
  }
  if (r.aborted_at_overrun)
    return fmt::format("OVERRUNS: first overrun after {} (run stopped there)", format_duration(*r.first_overrun_s));
  if (r.overrun_events > 0) {
    double lost = static_cast<double>(r.frames_lost) / static_cast<double>(std::max<uint64_t>(1, r.frames_total));
    return fmt::format("OVERRUNS: {} buffer overrun{}, the first after {}; {} samples lost ({:.3g} %): this storage "
                       "does not keep up with {}",
                       r.overrun_events, r.overrun_events == 1 ? "" : "s", format_duration(*r.first_overrun_s),
                       r.samples_lost(), 100 * lost, what);
  }
  double peak = static_cast<double>(r.peak_buffer_bytes) / static_cast<double>(std::max<uint64_t>(1, r.buffer_bytes));
  return fmt::format("OK: {} with no overrun; peak buffer use {:.0f} % of {}", what, 100 * peak,
                     format_size(static_cast<double>(r.buffer_bytes)));
}

std::vector<std::string> recording_warnings(const RecorderConfig& c, const RecorderResult& r) {
  std::vector<std::string> out;
  if (c.format == FormatKind::Wav)
    for (const auto& f : r.files)
      if (f.bytes > (uint64_t{1} << 31))
        out.push_back(fmt::format("{} is {}: past 2 GiB, programs that read WAV sizes as signed numbers "
                                  "(document 003's 2 GB WAV limit) cannot open it; use w64, rf64 or caf",
                                  f.name, format_size(static_cast<double>(f.bytes))));
  return out;
}

}  // namespace sd
