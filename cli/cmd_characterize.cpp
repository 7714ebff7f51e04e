// streamdisk characterize PATH -o FILE [--budget 4min] [--fill] [--keep-traces DIR] [recorder options]
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/progress_line.h"
#include "cli/recording_args.h"
#include "measure/characterize.h"
#include "measure/results.h"
#include "models/cleanup.h"
#include "models/output_file.h"
#include "models/units.h"

namespace sd::cli {
namespace {

struct CharArgs {
  ProfileArgs prof;
  std::string path, out, budget = "4min", idle, keep_traces, name, check;
  RecordingArgs rec;
  bool fill = false, json = false, progress = false;
  CapacityCriterion criterion;
};

}  // namespace

Handler setup_characterize(CLI::App& sub) {
  auto a = std::make_shared<CharArgs>();
  sub.add_option("path", a->path, "Directory on the storage to characterize (test files are created and removed there)")
      ->check(path_check());
  add_profile_options(sub, a->prof, /*required=*/false);
  sub.add_option("-o,--output", a->out, "Write the profile (host + filesystem + device, as measured) here")
      ->check(path_check());
  sub.add_option("--budget", a->budget, "Time the measurement plan takes (default 4min; --fill adds to it)");
  sub.add_option("--idle", a->idle, "Quiet time to wait for before the burst (default: 8 % of the budget, 3-30 s)");
  sub.add_option("--check", a->check,
                 "How long the last phase holds the headline against the storage (default: a twentieth of the "
                 "budget, 10 s-1 min; at most the recording's length; 0 skips it; taken from the budget)");
  sub.add_flag("--fill", a->fill, "Also write up to the safe fill level (90 %) to see the fill slowdown (slow)");
  sub.add_option("--keep-traces", a->keep_traces, "Keep every phase's native trace in this directory")
      ->check(path_check());
  sub.add_option("--name", a->name, "Name of the profile (default: the -o file's stem)")->check(name_check());
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
      "prints what it found and the highest data rate the stated recorder records cleanly, with the range the\n"
      "measurement allows (each fitted value at either end of its 95 % interval, which the profile carries as\n"
      "its range); last it writes as the recorder would at that rate and says whether the ring would have\n"
      "overrun (--check: a short check catches gross errors, not a rare overrun). Run it on an otherwise idle\n"
      "machine: other programs' CPU use shows as pauses (the output says how busy the machine was, and warns\n"
      "at once when it was busy before the first write). The filesystem is never taken above 90 % full;\n"
      "every test file is removed, also on Ctrl-C. With -p the model stands in for the device, in virtual time:\n"
      "what a real run reads from the kernel (/proc/sys/vm, /sys/block) comes from the model's host layer, the\n"
      "rest is measured (bench/self_consistency.sh holds the result against the model's own answer).\n\n"
      "Examples:\n"
      "  streamdisk characterize /media/usb -o my-stick.toml\n"
      "  streamdisk characterize /media/usb -o my-stick.toml --budget 10min --keep-traces traces/\n"
      "  streamdisk characterize /media/usb -o my-stick.toml --budget 8min --check 2min   # a longer check\n"
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
    if (!a->check.empty()) {
      auto c = parse_duration(a->check);
      if (!c || *c < 0)
        return bad_input(fmt::format("--check '{}': give a duration such as 1min, or 0 to skip the check", a->check));
      if (*c > cfg.budget_s / 2)
        return bad_input(fmt::format("--check {} is more than half the {} budget: give a longer --budget (at least {}) "
                                     "or a shorter --check",
                                     a->check, a->budget, format_duration(2 * *c)));
      cfg.check_s = *c;
    }
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
    cfg.warn = [progress](const std::string& w) {
      progress->done();  // off the progress line first
      warning(w);
    };
    // The profile's path is checked (and its temporary file made) before minutes of work.
    // Not the profile it measures with, nor one of the traces it keeps.
    OutputFile out;
    if (!a->out.empty()) {
      std::vector<std::string> inputs = profile_files(a->prof.profile);
      if (!a->keep_traces.empty())
        for (auto& t : characterize_trace_paths(a->keep_traces)) inputs.push_back(t);
      if (Status st = out.open(a->out, OutputRules{"-o", "my-stick.toml", false, inputs}); !st.ok())
        return bad_input(st.message());
    }
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
    if (a->json) fmt::print("{}\n", characterize_json(*r, a->out).dump(2));
    else fmt::print("{}", characterize_text(*r, a->out));
    return kExitOk;
  };
}

}  // namespace sd::cli
