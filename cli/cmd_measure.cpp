// streamdisk measure PATH --sweep blocksize|threads|sustained|fill [--direct] [--fsync M] [--json] [--trace F]
#include <unistd.h>

#include <cmath>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/progress_line.h"
#include "models/cleanup.h"
#include "measure/measure.h"
#include "measure/results.h"
#include "models/input.h"
#include "models/units.h"

namespace sd::cli {
namespace {

struct MeasureArgs {
  ProfileArgs prof;
  std::string path, sweep = "blocksize", fsync = "end", blocks, threads, seconds, size, fill_to, fill_step, trace;
  std::string formats, channels, sample_bits;
  bool direct = false, json = false, progress = false, until_steady = false;
  double window = 0.5;
};

// "4k,64k,1MiB" -> bytes; "1,2,4" -> counts. Each item is a whole number
// from 1 to `max` (what the machine can do: a block it can hold in memory, a
// thread count it can start), checked before any file is created.
template <class T, class Parse>
Result<std::vector<T>> parse_list(const std::string& text, const char* what, Parse parse, double max,
                                  const char* max_text) {
  std::vector<T> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    auto v = parse(item);
    if (!v || *v < 1 || *v != std::floor(*v))
      return Result<std::vector<T>>::error(
          fmt::format("{}: '{}' is not a positive {}", what, excerpt(item, 40), what));
    if (*v > max)
      return Result<std::vector<T>>::error(
          fmt::format("{}: '{}' is more than this sweep can run: give at most {}", what, excerpt(item, 40), max_text));
    out.push_back(static_cast<T>(*v));
  }
  if (out.empty()) return Result<std::vector<T>>::error(fmt::format("give at least one {}", what));
  if (out.size() > 64) return Result<std::vector<T>>::error(fmt::format("more than 64 values of {}", what));
  return out;
}

Result<MeasureConfig> to_config(const MeasureArgs& a) {
  using R = Result<MeasureConfig>;
  MeasureConfig c;
  auto kind = sweep_from_name(a.sweep);
  if (!kind)
    return R::error(fmt::format("unknown sweep '{}': use blocksize, threads, sustained, fill or formats", a.sweep));
  c.sweep = *kind;
  if (a.path.empty() == a.prof.profile.empty())
    return R::error("give either a directory to measure (measure PATH) or --profile P to run the sweep on a model");
  c.path = a.path;
  c.profile = a.prof.profile;
  c.sets = a.prof.sets;
  c.direct = a.direct;
  auto f = fsync_mode_from_name(a.fsync);
  if (!f) return R::error(fmt::format("--fsync '{}': use every, end or never", a.fsync));
  c.fsync = *f;
  if (!a.blocks.empty()) {
    auto b = parse_list<uint64_t>(a.blocks, "block size", parse_size, 1024.0 * 1048576, "1GiB");
    if (!b) return R::error("--blocks " + b.message());
    c.blocks = *b;
  }
  if (!a.threads.empty()) {
    auto t = parse_list<int>(a.threads, "thread count", parse_count, 256, "256");
    if (!t) return R::error("--threads " + t.message());
    c.threads = *t;
  }
  if (!a.formats.empty()) {
    std::stringstream ss(a.formats);
    for (std::string item; std::getline(ss, item, ',');) {
      auto k = format_from_name(item);
      if (!k) return R::error("--formats: " + k.message());
      c.formats.push_back(*k);
    }
  }
  if (!a.channels.empty()) {
    auto ch = parse_list<uint32_t>(a.channels, "channel count", parse_count, 1e6, "1000000");
    if (!ch) return R::error("--channels " + ch.message());
    c.channels = *ch;
  }
  if (!a.sample_bits.empty()) {
    auto b = parse_count(a.sample_bits);
    if (!b || (*b != 8 && *b != 16 && *b != 24 && *b != 32))
      return R::error(fmt::format("--sample-bits '{}': use 8, 16, 24 or 32", a.sample_bits));
    c.sample_bits = static_cast<uint32_t>(*b);
  }
  bool fmt_opts = !a.formats.empty() || !a.channels.empty() || !a.sample_bits.empty();
  if (fmt_opts && c.sweep != SweepKind::Formats)
    return R::error("--formats, --channels and --sample-bits are only for --sweep formats");
  auto num = [](const std::string& text, const char* opt, auto parse, double& out) -> Status {
    if (text.empty()) return {};
    auto v = parse(text);
    if (!v || *v <= 0) return Status::error(fmt::format("{} '{}': {}", opt, text, v ? "must be positive" : v.message()));
    out = *v;
    return {};
  };
  for (Status st : {num(a.seconds, "--seconds", parse_duration, c.seconds), num(a.size, "--size", parse_size, c.size),
                    num(a.fill_to, "--fill-to", parse_fraction, c.fill_to),
                    num(a.fill_step, "--fill-step", parse_size, c.fill_step)})
    if (!st.ok()) return R::error(st.message());
  if (!a.fill_to.empty() && c.sweep != SweepKind::Fill) return R::error("--fill-to is only for --sweep fill");
  c.until_steady = a.until_steady;
  c.window = a.window;
  c.trace_path = a.trace;
  c.trace_inputs = profile_files(a.prof.profile);
  if (a.trace == "-" && a.json) return R::error("--trace - and --json both want stdout: write the trace to a file");
  return c;
}

}  // namespace

Handler setup_measure(CLI::App& sub) {
  auto a = std::make_shared<MeasureArgs>();
  sub.add_option("path", a->path, "Directory on the storage to measure (test files are created and removed there)")
      ->check(path_check());
  add_profile_options(sub, a->prof, /*required=*/false);
  sub.add_option("--sweep", a->sweep, "blocksize (000), threads (001), sustained (002), fill (000) or formats (000)");
  sub.add_flag("--direct", a->direct, "O_DIRECT (bypass the page cache); falls back to buffered where refused");
  sub.add_option("--fsync", a->fsync, "every (after each write), end (once per file, default) or never");
  sub.add_option("--blocks", a->blocks, "Block sizes, comma-separated (default 512,2k,...,8MiB; sustained/fill 1MiB)");
  sub.add_option("--threads", a->threads, "Thread counts for --sweep threads (default 1,2,3,4)");
  sub.add_option("--seconds", a->seconds, "Time per point (blocksize 1s, threads 0.5s) or in all (sustained 30s)");
  sub.add_option("--size", a->size, "Bytes per point / file at most (blocksize 128MiB, threads 256MiB, sustained 1GiB)");
  sub.add_option("--fill-to", a->fill_to, "Fill sweep: fill the filesystem up to this level (required, at most 95%)");
  sub.add_option("--fill-step", a->fill_step, "Fill sweep: bytes written per step (default 5% of the capacity)");
  sub.add_option("--formats", a->formats, "Formats sweep: file formats, comma-separated (default raw,tdms,w64)");
  sub.add_option("--channels", a->channels, "Formats sweep: channel counts (default 4,8,16,32)");
  sub.add_option("--sample-bits", a->sample_bits, "Formats sweep: bits per sample (default 16)");
  sub.add_flag("--until-steady", a->until_steady, "Sustained: stop once past the write cliff and steady for 3 s");
  sub.add_option("--window", a->window, "Sustained: rate window in seconds")->check(decimal_check() & CLI::Range(0.01, 60.0));
  sub.add_option("--trace", a->trace,
                 "Write every operation to this native trace CSV ('-' for stdout; written whole or not at all)")
      ->check(path_check());
  sub.add_flag("--json", a->json, "Print the result as JSON");
  sub.add_flag("--progress", a->progress, "Show progress on stderr even when it is not a terminal");
  sub.footer(
      "Examples:\n"
      "  streamdisk measure /media/usb --sweep blocksize                 # 000's method, ~20 s\n"
      "  streamdisk measure /media/usb --sweep sustained --direct --seconds 2min --trace stick.csv\n"
      "  streamdisk measure /mnt/ssd --sweep threads --blocks 4k,128k,1M --threads 1,2,4\n"
      "  streamdisk measure /media/usb --sweep fill --fill-to 85%        # writes until 85 % full\n"
      "  streamdisk measure /media/usb --sweep formats --formats raw,tdms,wav --channels 4,32\n"
      "  streamdisk measure --profile samsung-960evo-250g --sweep sustained --seconds 20   # the model, virtual time\n"
      "Test files are created with O_EXCL (an existing file is never touched) and removed afterwards, also\n"
      "on Ctrl-C or SIGTERM (exit status 130, 143 after SIGTERM). Output files: docs/formats.md.");
  return [a] {
    auto cfg = to_config(*a);
    if (!cfg) return bad_input(cfg.message());
    auto progress = std::make_shared<ProgressLine>(a->progress, 1.0);
    cfg->progress = [progress](const SweepProgress& p) {
      if (!progress->due()) return;
      double t = progress->elapsed();
      std::string eta = p.fraction > 0.01 ? format_duration(t * (1 - p.fraction) / p.fraction) : "?";
      progress->show(fmt::format("measure: {:<26} {:>3.0f} %  {:>12}  ETA {}", p.phase, p.fraction * 100,
                                 format_rate(p.rate), eta));
    };
    cfg->warn = [progress](const std::string& w) {
      progress->done();  // off the progress line first
      warning(w);
    };
    cfg->command_line = "streamdisk measure";
    auto r = run_measure(*cfg);
    progress->done();
    if (!r) return bad_input(r.message());
    if (a->json)
      fmt::print("{}\n", measure_json(*r).dump(2));
    else
      fmt::print("{}", measure_text(*r));
    if (r->cancelled) return cleanup::exit_status();
    if (!r->output_error.empty()) return failure(r->output_error);
    return r->error ? kExitFailure : kExitOk;
  };
}

}  // namespace sd::cli
