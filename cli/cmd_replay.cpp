// streamdisk replay TRACE --profile P [--profile Q ...] | --target DIR
#include <unistd.h>

#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "measure/real_device.h"
#include "models/cleanup.h"
#include "models/model_args.h"
#include "models/trace.h"
#include "models/units.h"
#include "replay/readers.h"
#include "replay/replayer.h"
#include "replay/results.h"

namespace sd::cli {
namespace {

struct ReplayArgs {
  std::string trace, format = "auto", target, buffer, tolerance = "10ms", trace_out;
  std::vector<std::string> profiles, sets;
  bool afap = false, json = false, keep = false;
  double time_scale = 1.0;
  // --capacity, --prefill, --seed; default: the trace's header lines
  // (TraceModel: simulate and mount write them), else the profile's.
  ModelArgs model;
  bool open_loop = false;
};

Status parse_options(const ReplayArgs& a, ReplayOptions& o) {
  o.as_fast_as_possible = a.afap;
  o.open_loop = a.open_loop;
  if (a.afap && a.open_loop) return Status::error("--open-loop and --as-fast-as-possible exclude each other: choose one");
  if (!(a.time_scale >= 1e-6 && a.time_scale <= 1e6))
    return Status::error("--time-scale must be greater than 0 (at least 1e-6, at most 1e6; 0.5 replays twice as fast)");
  o.time_scale = a.time_scale;
  if (!a.buffer.empty()) {
    auto b = parse_size(a.buffer);
    if (!b) return Status::error(fmt::format("--buffer: {}", b.message()));
    o.buffer_bytes = *b;
  }
  auto t = parse_duration(a.tolerance);
  if (!t) return Status::error(fmt::format("--tolerance: {}", t.message()));
  o.tolerance_s = *t;
  if (isatty(2))
    o.progress = [](size_t done, size_t total) { fmt::print(stderr, "\rreplaying: {:3.0f} %", 100.0 * done / total); };
  return {};
}

// --target: the files go there through measure's RealDevice (O_EXCL names,
// only its own files removed, Ctrl-C removes them); buffered, also a
// trace's O_DIRECT ops (their sizes and offsets need not be aligned):
// --trace-out's direct column says what was done.
Result<std::unique_ptr<RealDevice>> open_target(const ReplayArgs& a, RealClock& clock, ReplayOptions& opt) {
  cleanup::set_cooperative();
  opt.cancel = cleanup::cancel_flag();
  RealDeviceOptions dopt;
  dopt.dir = a.target;
  dopt.prefix = "replay";
  dopt.probe_direct = false;
  dopt.keep_files = a.keep;
  dopt.cancel = opt.cancel;
  dopt.warn = [](const std::string& w) {
    if (isatty(2)) fmt::print(stderr, "\r{:20}\r", "");  // off the progress line first
    warning(w);
  };
  auto d = RealDevice::open(dopt, clock);
  if (!d) return Result<std::unique_ptr<RealDevice>>::error(fmt::format("--target: {}", d.message()));
  return d;
}

// Each --profile with `sets`; `from_trace`: they are the trace's `# set`
// lines (a `mount --set` trace replays on the device it was made on).
Status load_profiles(const ReplayArgs& a, const std::vector<std::string>& sets, bool from_trace,
                     std::vector<Profile>& profiles) {
  profiles.clear();
  for (const auto& spec : a.profiles) {
    auto p = load_profile(spec, sets);
    if (!p)
      return from_trace ? Status::error(fmt::format("{} (from the trace's # set lines; give --set to replace them)",
                                                    p.message()))
                        : p.status();
    profiles.push_back(std::move(*p));
  }
  return {};
}

// Each profile's model: --capacity, --prefill, --seed over the trace's
// header lines (a --prefill fraction is of that profile's capacity).
Status model_options_for(const ReplayArgs& a, const TraceModel& tm, const std::vector<Profile>& profiles,
                         std::vector<ModelOptions>& models) {
  if (profiles.empty() && (!a.model.capacity.empty() || !a.model.prefill.empty()))
    return Status::error("--capacity and --prefill describe the model: give them with --profile (--target replays on "
                         "the real storage as it is)");
  for (const auto& p : profiles) {
    auto mo = apply_model_args(a.model, p, tm.model_options());
    if (!mo) return mo.status();
    models.push_back(*mo);
  }
  return {};
}

int run(const ReplayArgs& a) {
  if (a.profiles.empty() && a.target.empty())
    return bad_input("replay needs --profile P (virtual time) or --target DIR (real storage); see `streamdisk replay --help`");
  if (!a.trace_out.empty() && a.profiles.size() + (a.target.empty() ? 0 : 1) != 1)
    return bad_input("--trace-out records one replay: give exactly one --profile or --target with it");
  ReplayOptions opt;
  if (auto st = parse_options(a, opt); !st.ok()) return bad_input(st.message());
  auto fmt_kind = trace_format_from_name(a.format);
  if (!fmt_kind) return bad_input(fmt_kind.message());
  std::vector<Profile> profiles;
  if (auto st = load_profiles(a, a.sets, false, profiles); !st.ok()) return bad_input(st.message());
  if (a.json && a.trace_out == "-") return bad_input("--trace-out - and --json both want stdout: write the trace to a file");
  RealClock clock;
  std::unique_ptr<RealDevice> dev;
  if (!a.target.empty()) {
    auto d = open_target(a, clock, opt);
    if (!d) return bad_input(d.message());
    dev = std::move(*d);
  }
  auto ops = read_ops_file(a.trace, *fmt_kind);
  if (!ops) return bad_input(ops.message());
  auto tm = TraceModel::read(ops->meta, ops->name);
  if (!tm) return bad_input(tm.message());
  const std::vector<std::string>& sets = a.sets.empty() ? tm->sets : a.sets;
  if (a.sets.empty() && !tm->sets.empty())
    if (auto st = load_profiles(a, tm->sets, true, profiles); !st.ok()) return bad_input(st.message());
  std::vector<ModelOptions> models;
  if (auto st = model_options_for(a, *tm, profiles, models); !st.ok()) return bad_input(st.message());
  uint64_t seed = a.model.seed.value_or(tm->model_options().seed);
  TraceWriter out;
  if (!a.trace_out.empty()) {
    std::map<std::string, std::string> meta{{"tool", "streamdisk replay"}, {"source", ops->name}};
    if (profiles.empty())
      meta["profile"] = "path " + a.target, meta["seed"] = std::to_string(seed);
    else
      TraceModel::of(profiles[0].name, sets, models[0]).write(meta);
    OutputRules rules{"--trace-out", "replay.csv", true, {a.trace}};
    for (const auto& spec : a.profiles)
      for (const auto& f : profile_files(spec)) rules.inputs.push_back(f);
    auto st = out.open(a.trace_out, meta, rules);
    if (!st.ok()) return bad_input(st.message());
  }
  std::vector<ReplayResult> rows;
  for (size_t i = 0; i < profiles.size(); ++i) {
    ReplayRun run = replay_on_model(*ops, profiles[i], opt, models[i]);
    if (out.is_open()) write_replay_trace(out, *ops, run);
    rows.push_back({"profile", profiles[i].name, std::move(run.stats)});
  }
  if (dev) {
    clock = RealClock();  // zero at the replay's start
    ReplayRun run = replay_ops(*ops, *dev, clock, opt);
    if (run.cancelled) {
      out.abandon();
      dev->remove_created();  // also with --keep: an interrupted replay's files are partial
      dev.reset();
      fmt::print(stderr, "\nstreamdisk: interrupted: the replay's files were removed\n");
      return cleanup::exit_status();
    }
    dev.reset();  // removes the files unless --keep
    if (out.is_open()) write_replay_trace(out, *ops, run);
    rows.push_back({"path", a.target, std::move(run.stats)});
  }
  if (opt.progress) fmt::print(stderr, "\r{:20}\r", "");
  if (auto st = out.close(); !st.ok()) return failure(st.message());
  if (a.json)
    fmt::print("{}\n", replay_json(*ops, opt, rows, seed).dump(1));
  else
    fmt::print("{}", replay_text(*ops, opt, rows));
  return kExitOk;
}

}  // namespace

Handler setup_replay(CLI::App& sub) {
  auto a = std::make_shared<ReplayArgs>();
  sub.add_option("trace", a->trace, "Trace to replay: a streamdisk trace, a fio iolog or strace output")
      ->required()->check(path_check());
  sub.add_option("-p,--profile", a->profiles,
                 "Replay in virtual time against this profile (repeat to compare devices; "
                 "`streamdisk profiles` lists them)");
  sub.add_option("--set", a->sets,
                 "Override a parameter of every profile: --set device.sustained_mbps=20 (default: the trace's "
                 "# set lines, which simulate and mount write)")
      ->type_name("KEY=VALUE");
  sub.add_option("--target", a->target,
                 "Replay in wall-clock time on real storage (or a FUSE mount): files go in this directory; "
                 "ops are issued from one thread in time order")->check(path_check());
  sub.add_flag("--keep", a->keep,
               "With --target: keep the files written, DIR/replay-PID-N.dat (default: remove them; "
               "existing files are never touched; an interrupted replay's are removed all the same)");
  sub.add_option("--time-scale", a->time_scale, "Multiply recorded times by this (0.5: twice as fast; default 1)")
      ->check(decimal_check());
  sub.add_flag("--as-fast-as-possible", a->afap, "Ignore recorded times: issue each thread's ops back to back");
  sub.add_option("--buffer", a->buffer,
                 "The recorder's buffer (e.g. 1MiB): 'kept up' = never more data waiting than this");
  sub.add_option("--tolerance", a->tolerance, "Without --buffer: 'kept up' = never later than this (default 10ms)");
  sub.add_flag("--open-loop", a->open_loop,
               "Issue every op at its recorded time even if its thread's previous op is still in flight "
               "(for `mount --trace` traces, where the kernel overlaps requests)");
  sub.add_option("--capacity", a->model.capacity,
                 "Device capacity for the model (default: the trace's, else the profile's)")
      ->type_name("SIZE");
  sub.add_option("--prefill", a->model.prefill,
                 "The device starts this full: 85% (of the capacity) or a size, 10GB (default: the trace's, else 0)")
      ->type_name("FILL");
  sub.add_option("--format", a->format, "Trace format: auto (default), native, fio, strace");
  sub.add_option("--seed", a->model.seed, "Seed for the model's stalls (default: the trace's seed line, else 1)")
      ->check(whole_number_check());
  sub.add_option("--trace-out", a->trace_out,
                 "Write the replay as a native trace (issue and completion of every op); one device only. "
                 "Output files: see docs/formats.md \"Output files\"")->check(path_check());
  sub.add_flag("--json", a->json, "Print JSON (format streamdisk-replay) instead of text");
  sub.footer(
      "Examples:\n"
      "  streamdisk replay rec.csv -p sandisk-ultrafit-16g -p samsung-960evo-250g --buffer 1MiB\n"
      "  streamdisk replay job.iolog -p crio-9014-disk --as-fast-as-possible --json > r.json\n"
      "  streamdisk replay rec.csv --target /mnt/usb/tmp --time-scale 0.5\n\n"
      "Capture a recorder's I/O without FUSE, then replay it on other devices:\n"
      "  strace -f -tt -T -e trace=openat,read,write,pwrite64,writev,lseek,fsync,fdatasync,close,ftruncate,fallocate,dup2,dup3,fcntl \\\n"
      "         -o rec.strace RECORDER ARGS...\n"
      "  streamdisk replay rec.strace -p rpi4-buster+exfat-fuse+sandisk-ultrafit-16g\n"
      "(Beyond strace's minimal list, dup2,dup3,fcntl follow shell redirections such as dd's of=, and\n"
      " read,writev keep offsets right for programs that read their file back, as libsndfile does.)\n"
      "fio: run the job with --write_iolog=job.iolog (version 2 and 3 iologs are read).");
  return [a] { return run(*a); };
}

}  // namespace sd::cli
