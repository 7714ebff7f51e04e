// streamdisk characterize PATH -o FILE [--budget 4min] [--fill] [--keep-traces DIR] [recorder options]
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/progress_line.h"
#include "cli/recording_args.h"
#include "measure/characterize.h"
#include "models/cleanup.h"
#include "models/output_file.h"
#include "models/units.h"

namespace sd::cli {
namespace {

struct CharArgs {
  ProfileArgs prof;
  std::string path, out, budget = "4min", idle, keep_traces, name;
  RecordingArgs rec;
  bool fill = false, json = false, progress = false;
  CapacityCriterion criterion;
};

std::string value_text(const FoundParam& f) {
  if (f.unit == "bytes") return format_size(f.value);
  // Whole numbers as they are (30000 ms, not 3e+04); others to 4 digits.
  if (f.value == std::floor(f.value) && std::fabs(f.value) < 1e9) return fmt::format("{:.0f}", f.value);
  return fmt::format("{:.4g}", f.value);
}

std::string recorder_text(const RecorderConfig& r) {
  uint64_t block = r.block_bytes ? r.block_bytes : r.buffer_bytes / 2;
  return fmt::format("{} buffer, {} blocks, {}, {} ch x {}-bit, {}{}", format_size(static_cast<double>(r.buffer_bytes)),
                     format_size(static_cast<double>(block)), format_name(r.format), r.stream.channels,
                     r.stream.sample_bits, format_duration(r.duration_s), r.direct ? ", O_DIRECT" : "");
}

void print_human(const CharacterizeReport& r, const std::string& out) {
  fmt::print("streamdisk characterize {}\n", r.target);
  fmt::print("  filesystem: {} ({}: {})\n", r.fs.fstype.empty() ? "?" : r.fs.fstype,
             r.fs.userspace ? "userspace driver: its work is inside the writer's call" : "kernel driver",
             r.fs.how);
  fmt::print("  space: {} free of {}; the run stays below {:.0f} % full (writes at most {} at once)\n\n",
             format_size(r.free_bytes), format_size(r.total_bytes), r.safe_fill * 100, format_size(r.max_bytes));
  fmt::print("  {:<16} {:>9} {:>10}  {}\n", "phase", "time", "written", "result");
  for (const auto& p : r.phases)
    fmt::print("  {:<16} {:>9} {:>10}  {}\n", p.name, format_duration(p.seconds), format_size(p.bytes), p.result);
  fmt::print("\n  {:<30} {:>12} {:<6} {:<12} {}\n", "parameter", "value", "unit", "phase", "how sure");
  for (const auto& f : r.found)
    fmt::print("  {:<30} {:>12} {:<6} {:<12} {}\n", f.key, value_text(f), f.unit == "bytes" ? "" : f.unit, f.phase,
               f.sure);
  if (!r.burst_verdict.empty()) fmt::print("\n  write cache: {}\n", r.burst_verdict);
  if (!r.notes.empty()) {
    fmt::print("\nNotes:\n");
    for (const auto& n : r.notes) fmt::print("  - {}\n", n);
  }
  fmt::print("\nHighest clean data rate: {} for a recorder with {}\n",
             r.capacity.found ? format_rate(r.headline_bytes_per_s) : "none (even the lowest rate tried overran)",
             recorder_text(r.recorder));
  fmt::print("  {}\n", r.criterion);
  if (!r.capacity.limited_by.empty()) fmt::print("  the next rate up fails by: {}\n", r.capacity.limited_by);
  for (const auto& t : r.traces) fmt::print("Kept trace {}\n", t);
  if (!out.empty())
    fmt::print("Wrote {} (try: streamdisk capacity -p {} --find sample-rate --buffer 4MiB)\n", out, out);
}

nlohmann::json to_json(const CharacterizeReport& r, const std::string& out) {
  nlohmann::json j = {{"format", "streamdisk-characterize"},
                      {"format_version", 1},
                      {"target", r.target},
                      {"filesystem", {{"fstype", r.fs.fstype}, {"userspace", r.fs.userspace}, {"how", r.fs.how}}},
                      {"total_bytes", r.total_bytes},
                      {"free_bytes", r.free_bytes},
                      {"safe_fill", r.safe_fill},
                      {"max_bytes", r.max_bytes},
                      {"idle", {{"waited_s", r.idle_waited_s}, {"quiet_s", r.idle_quiet_s}, {"how", r.idle_how}}},
                      {"write_cache", r.burst_verdict},
                      {"seconds", r.seconds},
                      {"profile", out.empty() ? nlohmann::json(nullptr) : nlohmann::json(out)},
                      {"notes", r.notes},
                      {"traces", r.traces}};
  j["phases"] = nlohmann::json::array();
  for (const auto& p : r.phases)
    j["phases"].push_back({{"name", p.name}, {"seconds", p.seconds}, {"bytes", p.bytes}, {"result", p.result}});
  j["params"] = nlohmann::json::array();
  for (const auto& f : r.found)
    j["params"].push_back({{"key", f.key}, {"value", f.value}, {"unit", f.unit}, {"phase", f.phase}, {"sure", f.sure}});
  uint64_t block = r.recorder.block_bytes ? r.recorder.block_bytes : r.recorder.buffer_bytes / 2;
  j["headline"] = {{"found", r.capacity.found},
                   {"data_rate_bytes_per_s", r.headline_bytes_per_s},
                   {"sample_rate", r.capacity.found ? nlohmann::json(r.capacity.best) : nlohmann::json(nullptr)},
                   {"criterion", r.criterion},
                   {"seeds", r.capacity.at_best.seeds},
                   {"seeds_with_overrun", r.capacity.at_best.seeds_with_overrun},
                   {"overrun_probability_bounds", {r.capacity.at_best.p.low, r.capacity.at_best.p.high}},
                   {"limited_by", r.capacity.limited_by},
                   {"recorder",
                    {{"buffer_bytes", r.recorder.buffer_bytes},
                     {"block_bytes", block},
                     {"format", std::string(format_name(r.recorder.format))},
                     {"channels", r.recorder.stream.channels},
                     {"sample_bits", r.recorder.stream.sample_bits},
                     {"duration_s", r.recorder.duration_s}}}};
  return j;
}

}  // namespace

Handler setup_characterize(CLI::App& sub) {
  auto a = std::make_shared<CharArgs>();
  sub.add_option("path", a->path, "Directory on the storage to characterize (test files are created and removed there)");
  add_profile_options(sub, a->prof, /*required=*/false);
  sub.add_option("-o,--output", a->out, "Write the profile (host + filesystem + device, as measured) here");
  sub.add_option("--budget", a->budget, "Time the measurement plan takes (default 4min; --fill adds to it)");
  sub.add_option("--idle", a->idle, "Quiet time to wait for before the burst (default: 8 % of the budget, 3-30 s)");
  sub.add_flag("--fill", a->fill, "Also write up to the safe fill level (90 %) to see the fill slowdown (slow)");
  sub.add_option("--keep-traces", a->keep_traces, "Keep every phase's native trace in this directory");
  sub.add_option("--name", a->name, "Name of the profile (default: the -o file's stem)");
  sub.add_option("-c,--channels", a->rec.channels, "Headline recorder: channels (default 1)");
  sub.add_option("-b,--sample-bits", a->rec.sample_bits, "Headline recorder: bits per sample (default 16)");
  sub.add_option("-f,--format", a->rec.format, "Headline recorder: file format (default raw)");
  sub.add_option("--buffer", a->rec.buffer, "Headline recorder: ring buffer (default 1MiB)");
  sub.add_option("--block", a->rec.block, "Headline recorder: bytes per write (default: half the buffer)");
  sub.add_option("-d,--duration", a->rec.duration, "Headline recorder: recording length (default 60s)");
  sub.add_option("--max-overrun-probability", a->criterion.max_overrun_probability,
                 "Headline criterion: the highest rate at which P(>=1 overrun over the recording) stays below this "
                 "(default 0.05, as capacity)")
      ->check(CLI::Range(1e-6, 0.5));
  sub.add_option("--seeds", a->criterion.max_seeds,
                 "Headline: stall seeds per candidate rate at most (default 200; a candidate stops once settled)")
      ->check(whole_number_check() & CLI::Range(1, 100000));
  sub.add_flag("--json", a->json, "Print the result as JSON");
  sub.add_flag("--progress", a->progress, "Show progress on stderr even when it is not a terminal");
  sub.footer(
      "Runs, in order: a wait for the device to be idle, a sustained O_DIRECT write past the write cache with\n"
      "idle gaps, a block-size sweep with reads, interleaved files, a buffered write, writes paced at 0.3/0.5/0.7\n"
      "of the sustained rate (the pauses a recorder meets), and with --fill a fill sweep; then calibrates and\n"
      "prints what it found and the highest data rate the stated recorder records cleanly. The filesystem is\n"
      "never taken above 90 % full; every test file is removed, also on Ctrl-C.\n\n"
      "Examples:\n"
      "  streamdisk characterize /media/usb -o my-stick.toml\n"
      "  streamdisk characterize /media/usb -o my-stick.toml --budget 10min --keep-traces traces/\n"
      "  streamdisk characterize /mnt/ssd -o ssd.toml --buffer 4MiB --block 256KiB -d 10min\n"
      "  streamdisk characterize -p sandisk-ultrafit-16g -o check.toml --budget 2min   # a model, virtual time\n"
      "Then: streamdisk capacity -p my-stick.toml --find sample-rate -c 1 --buffer 4MiB (docs/characterize.md).");
  return [a] {
    using std::filesystem::path;
    if (a->path.empty() == a->prof.profile.empty())
      return bad_input("give either a directory to characterize (characterize PATH) or --profile P to run on a model");
    CharacterizeConfig cfg;
    cfg.path = a->path;
    cfg.profile = a->prof.profile;
    cfg.sets = a->prof.sets;
    cfg.fill = a->fill;
    cfg.keep_traces = a->keep_traces;
    cfg.criterion = a->criterion;
    auto b = parse_duration(a->budget);
    if (!b || *b <= 0) return bad_input(fmt::format("--budget '{}': give a duration such as 4min or 300s", a->budget));
    cfg.budget_s = *b;
    if (!a->idle.empty()) {
      auto i = parse_duration(a->idle);
      if (!i || *i <= 0) return bad_input(fmt::format("--idle '{}': give a duration such as 30s", a->idle));
      cfg.idle_s = *i;
    }
    if (!a->out.empty()) {
      std::error_code ec;
      if (std::filesystem::is_directory(a->out, ec))
        return bad_input(fmt::format("-o {} is a directory: give a file name such as {}/my-device.toml", a->out, a->out));
      path parent = path(a->out).parent_path();
      if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        return bad_input(fmt::format("-o {}: the directory {} does not exist; create it first", a->out, parent.string()));
    }
    cfg.name = !a->name.empty() ? a->name : !a->out.empty() ? path(a->out).stem().string() : "characterized";
    auto rec = recorder_config(a->rec);
    if (!rec) return bad_input(rec.message());
    cfg.recorder = *rec;
    // Progress: phase, bytes written, rate, ETA (one line every 2 s with --progress into a file).
    auto progress = std::make_shared<ProgressLine>(a->progress, 2.0);
    progress->width(100);
    cfg.progress = [progress](const CharacterizeProgress& p) {
      if (!progress->due()) return;
      progress->show(fmt::format("characterize: {:<38.38} {:>9} written {:>11}  ETA {}", p.phase,
                                 format_size(p.written), p.rate > 0 ? format_rate(p.rate) : "",
                                 format_duration(p.eta)));
    };
    // The profile's path is checked (and its temporary file made) before minutes of work.
    OutputFile out;
    if (!a->out.empty())
      if (Status st = out.open(a->out, OutputRules{"-o", "my-stick.toml", false, {}}); !st.ok())
        return bad_input(st.message());
    auto r = run_characterize(cfg);
    progress->done();
    if (!r) return bad_input(r.message());
    if (r->cancelled) {
      fmt::print(stderr, "streamdisk: characterize interrupted: test files removed, no profile written\n");
      return 128 + (cleanup::signal_received() ? cleanup::signal_received() : 2);
    }
    if (out.is_open()) {
      std::fputs(r->profile_toml.c_str(), out.stream());
      if (Status st = out.commit(); !st.ok()) return failure(st.message());
    }
    if (a->json) fmt::print("{}\n", to_json(*r, a->out).dump(2));
    else print_human(*r, a->out);
    return kExitOk;
  };
}

}  // namespace sd::cli
