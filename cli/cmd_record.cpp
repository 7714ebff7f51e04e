// streamdisk record DIR -c N -r RATE -b BITS -f FORMAT --buffer B -d T [--trace F] [--json]
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/fault_args.h"
#include "cli/recording_args.h"
#include "models/cleanup.h"
#include "measure/record.h"
#include "models/output_file.h"
#include "models/units.h"
#include "sim/verdict.h"

namespace sd::cli {
namespace {

struct RecordArgs {
  std::string dir, name = "rec", trace;
  RecordingArgs rec;
  FaultArgs faults;
  bool json = false;
};

// The keys and wording are simulate's, so the two outputs compare line by line.
nlohmann::json to_json(const RecorderConfig& c, const RecordReport& rep) {
  nlohmann::json j = recording_json(c, rep.result);
  j["format"] = "streamdisk-record";
  j["format_version"] = 1;
  for (size_t i = 0; i < rep.paths.size() && i < j["files"].size(); ++i) j["files"][i]["path"] = rep.paths[i];
  j["direct_used"] = rep.direct_used;
  j["notes"] = rep.notes;
  if (!rep.fault_events.empty()) j["faults"] = fault_events_json(rep.fault_events);
  return j;
}

void print_text(const std::string& dir, const RecorderConfig& c, const RecordReport& rep) {
  const RecorderResult& r = rep.result;
  auto row = print_report_row;
  row("target", fmt::format("{} ({})", dir, rep.direct_used ? "O_DIRECT" : "buffered"));
  row("stream", fmt::format("{}, {}, {}", stream_text(c.stream), format_name(c.format), format_duration(c.duration_s)));
  row("buffer", fmt::format("{} ring, {} blocks, {}-frame periods", format_size(static_cast<double>(r.buffer_bytes)),
                            format_size(static_cast<double>(r.block_bytes)), r.period_frames));
  row("written", written_text(r));
  for (size_t i = 0; i < std::min<size_t>({r.files.size(), rep.paths.size(), 4}); ++i)
    row("file", fmt::format("{}  {}", rep.paths[i], format_size(static_cast<double>(r.files[i].bytes))));
  if (r.files.size() > 4) row("files", fmt::format("{} in all", r.files.size()));
  print_outcome_rows(r);
  if (!r.stopped_reason.empty()) row("stopped", fmt::format("after {}: {}", format_duration(*r.stopped_s), r.stopped_reason));
  print_fault_rows(rep.fault_events);
  for (const auto& n : rep.notes) row("note", n);
  for (const auto& w : recording_warnings(c, r)) row("warning", w);
  fmt::print("{}\n", verdict_line(c, r));
}

}  // namespace

Handler setup_record(CLI::App& sub) {
  auto a = std::make_shared<RecordArgs>();
  sub.add_option("dir", a->dir, "Directory to record into")->required()->check(path_check());
  add_recording_options(sub, a->rec);
  sub.remove_option(sub.get_option("--fill"));  // model-only options
  sub.remove_option(sub.get_option("--seed"));
  add_fault_options(sub, a->faults);
  sub.add_option("--name", a->name, "Base name of the files: NAME.w64, NAME_ch01.raw... (default rec)");
  sub.add_option("--trace", a->trace,
                 "Write every operation to this native trace CSV ('-' for stdout); never one of the recording's "
                 "files (docs/formats.md \"Output files\")")->check(path_check());
  sub.add_flag("--json", a->json, "Print JSON (the same keys as simulate --json)");
  sub.footer(
      "The reference recorder: simulate's recorder (exact-rate producer, ring buffer, writer draining it\n"
      "through the format's writes) in wall time on real storage. Files hold a reference signal that\n"
      "readers can check (WAV/RF64/W64/CAF: libsndfile, sox; TDMS: NI's file format; raw + .json sidecar).\n"
      "Overruns are reported exactly as `simulate` reports them. Files are created with O_EXCL: an existing\n"
      "file is never overwritten. Ctrl-C (or SIGTERM) stops and removes the partial files; exit status 130\n"
      "(143 after SIGTERM).\n\n"
      "Examples:\n"
      "  streamdisk record /media/usb -c 48 -r 48k -b 16 -f w64 --buffer 1MiB -d 60s\n"
      "  streamdisk record /mnt/streamdisk -c 18 -r 48k -b 24 -f wav -d 30s --json   # through `mount`\n"
      "  streamdisk record /tmp -c 4 -r 25.6k -b 24 -f tdms -d 10s --trace rec.csv\n"
      "  streamdisk record /tmp -c 2 -r 48k -f wav -d 60s --fault eio:write@5MB   # the file stops at 5 MB");
  return [a] {
    auto cfg = recorder_config(a->rec);
    if (!cfg) return bad_input(cfg.message());
    if (a->json && a->trace == "-") return bad_input("--trace - and --json both want stdout: write the trace to a file");
    if (a->name.empty() || a->name.find('/') != std::string::npos)
      return bad_input(fmt::format("--name '{}' must be a plain file name without '/'", a->name));
    {
      // The longest name the recording makes: a part of a split per-channel
      // recording, NAME_NNN_chNNN.raw (at most "_" + a 10-digit part number
      // + "_ch" + a 7-digit channel + ".raw"), or the raw sidecar's temporary
      // file, .NAME.json.PID-N.tmp (OutputFile's own overhead). A base that
      // leaves less than that under the directory's limit would fail
      // partway, after some files were written.
      constexpr long kLongestPartSuffix = 25;
      const long longest =
          std::max(kLongestPartSuffix, static_cast<long>(std::strlen(".json") + temp_name_overhead()));
      long name_max = ::pathconf(a->dir.c_str(), _PC_NAME_MAX);
      if (name_max <= 0) name_max = 255;
      if (static_cast<long>(a->name.size()) + longest > name_max)
        return bad_input(fmt::format("--name is {} characters: the recording's file names would pass this "
                                     "filesystem's limit of {}; give at most {}",
                                     a->name.size(), name_max, name_max - longest));
    }
    cfg->base_name = a->name;
    auto faults = fault_specs(a->faults, /*powerloss_ok=*/false);
    if (!faults) return bad_input(faults.message());
    RecordOptions o;
    o.faults = std::move(*faults);
    o.dir = a->dir;
    o.rec = *cfg;
    o.trace_path = a->trace;
    o.trace_inputs = {a->faults.file};
    o.command_line = "streamdisk record";
    o.cancel = cleanup::cancel_flag();
    bool tty = isatty(STDERR_FILENO) != 0;
    o.warn = [tty](const std::string& w) {
      if (tty) fmt::print(stderr, "\r{:30}\r", "");  // off the progress line first
      warning(w);
    };
    if (tty) o.progress = [](double f) { fmt::print(stderr, "\rrecording... {:3.0f} %", f * 100); };
    auto rep = run_record(o);
    if (tty) fmt::print(stderr, "\r{:30}\r", "");
    if (!rep) return bad_input(rep.message());
    if (rep->cancelled) {
      fmt::print(stderr, "streamdisk: interrupted: the partial recording was removed\n");
      return cleanup::exit_status();
    }
    if (a->json)
      fmt::print("{}\n", to_json(*cfg, *rep).dump(2));
    else
      print_text(a->dir, *cfg, *rep);
    if (!rep->output_error.empty()) return failure(rep->output_error);
    return rep->result.stop_errno && rep->result.stop_errno != EFBIG ? kExitFailure : kExitOk;
  };
}

}  // namespace sd::cli
