#include "cli/recording_args.h"

#include "cli/command.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/units.h"

namespace sd::cli {

void add_recording_options(CLI::App& sub, RecordingArgs& a, bool channels_option) {
  if (channels_option) sub.add_option("-c,--channels", a.channels, "Channels recorded (default 1)");
  sub.add_option("-r,--sample-rate", a.sample_rate, "Samples per second per channel: 48k, 44100, 160M (default 48k)");
  sub.add_option("-b,--sample-bits", a.sample_bits, "Bits per sample: 8, 16, 24, 32, 64 (default 16)");
  sub.add_flag("--float", a.is_float, "Samples are IEEE floats (32 or 64 bits)");
  sub.add_option("-f,--format", a.format,
                 "File format: raw (interleaved), channels (one file per channel), wav, rf64, w64, caf, tdms "
                 "(default raw)");
  sub.add_option("--buffer", a.buffer, "Recorder's ring buffer: 128K, 1MiB (default 1MiB)");
  sub.add_option("--block", a.block, "Bytes the writer drains per block (default: half the buffer)");
  sub.add_option("--period", a.period, "Frames the producer delivers at a time (default min(1024, buffer/8))");
  sub.add_option("-d,--duration", a.duration, "Recording length: 90s, 20min, 1.5h (default 60s)");
  sub.add_option("--header-every", a.header_every,
                 "Rewrite the file header this often, e.g. 1s (default: only when the file is closed)");
  sub.add_option("--split", a.split,
                 "Start a new set of files (rec_002.w64, ...) before a file passes this size, e.g. 4000MB on FAT32");
  sub.add_option("--fill", a.fill, "Device already this full when recording starts: 50% (default 0)");
  sub.add_flag("--direct", a.direct, "Write with O_DIRECT (bypass the host page cache)");
  sub.add_flag("--fsync", a.fsync, "fsync every file before closing it");
  sub.add_option("--seed", a.seed, "Seed for the random stalls (default 1)")->check(whole_number_check());
}

void print_report_row(std::string_view key, const std::string& value) { fmt::print("  {:<14} {}\n", key, value); }

std::string written_text(const RecorderResult& r) {
  return fmt::format("{} in {} operations (headers/metadata {})", format_size(static_cast<double>(r.payload_bytes)),
                     r.ops, format_size(static_cast<double>(r.other_bytes)));
}

void print_outcome_rows(const RecorderResult& r) {
  print_report_row("overruns", r.overrun_events == 0
                                   ? std::string("none")
                                   : fmt::format("{} events, first after {}; {} periods, {} samples lost",
                                                 r.overrun_events, format_duration(*r.first_overrun_s),
                                                 r.dropped_periods, r.samples_lost()));
  print_report_row("peak buffer",
                   fmt::format("{} ({:.0f} % of the ring)", format_size(static_cast<double>(r.peak_buffer_bytes)),
                               100.0 * static_cast<double>(r.peak_buffer_bytes) /
                                   static_cast<double>(std::max<uint64_t>(1, r.buffer_bytes))));
  print_report_row("slowest block", format_duration(r.max_block_s));
}

}  // namespace sd::cli
