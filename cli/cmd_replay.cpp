// streamdisk replay TRACE --profile P [--profile Q ...] | --target DIR
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "measure/real_device.h"
#include "models/cleanup.h"
#include "models/input.h"
#include "models/units.h"
#include "models/trace.h"
#include "replay/readers.h"
#include "replay/replayer.h"

namespace sd::cli {
namespace {

struct ReplayArgs {
  std::string trace, format = "auto", target, buffer, tolerance = "10ms", trace_out;
  std::vector<std::string> profiles, sets;
  bool afap = false, json = false, keep = false;
  double time_scale = 1.0;
  std::optional<uint64_t> seed;  // default: the trace's "# seed=" line, else 1
  std::string capacity, prefill;  // default: the trace's capacity_bytes / prefill_bytes lines
  bool open_loop = false;
};

struct Row {
  std::string kind, name;
  ReplayStats s;
};

nlohmann::json json_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json row_json(const Row& r) {
  const ReplayStats& s = r.s;
  nlohmann::json tl;
  for (const auto& p : s.timeline) {
    tl["t_s"].push_back(p.t);
    tl["buffered_bytes"].push_back(p.buffered_bytes);
    tl["written_bytes"].push_back(p.written_bytes);
    tl["scheduled_bytes"].push_back(p.scheduled_bytes);
  }
  return {{"target", r.kind},
          {"name", r.name},
          {"completion_s", s.completion_s},
          {"writes", s.writes},
          {"bytes_written", s.bytes_written},
          {"behind_schedule", {{"max_s", s.max_behind_s}, {"mean_s", s.mean_behind_s},
                               {"at_end_s", s.completion_s - s.recorded_end_s}}},
          {"write_latency_s", {{"p50", s.write_latency_s[0]}, {"p90", s.write_latency_s[1]},
                               {"p99", s.write_latency_s[2]}, {"p99_9", s.write_latency_s[3]},
                               {"max", s.write_latency_s[4]}}},
          {"fsync_max_s", s.fsync_max_s},
          {"stalls", s.stalls},
          {"stall_seconds", s.stall_seconds},
          {"needed_buffer_bytes", s.needed_buffer_bytes},
          {"overruns", s.overruns},
          {"overrun_times_s", s.overrun_times},
          {"errors", s.errors},
          {"failed_ops", s.failed_ops},
          {"failed_write_bytes", s.failed_write_bytes},
          {"first_error", s.first_error ? nlohmann::json{{"op_index", s.first_error->op},
                                                         {"t_s", s.first_error->t},
                                                         {"op", s.first_error->kind},
                                                         {"file", s.first_error->file},
                                                         {"error", s.first_error->error}}
                                        : nlohmann::json()},
          {"kept_up", s.kept_up ? nlohmann::json(*s.kept_up) : nlohmann::json()},
          {"timeline", tl}};
}

nlohmann::json to_json(const OpList& ops, const ReplayArgs& a, const ReplayOptions& o, const std::vector<Row>& rows,
                       uint64_t seed) {
  nlohmann::json j;
  j["format"] = "streamdisk-replay";
  j["format_version"] = 1;
  j["trace"] = {{"name", ops.name},
                {"format", ops.format},
                {"ops", ops.ops.size()},
                {"files", ops.file_count()},
                {"threads", ops.thread_count()},
                {"bytes_written", ops.bytes_written()},
                {"recorded_end_s", ops.recorded_end() * o.time_scale},
                {"has_durations", ops.has_durations()},
                {"recorded_needed_buffer_bytes", json_or_null(recorded_needed_buffer(ops, o.time_scale))},
                {"unknown", ops.unknown},
                {"ignored", ops.ignored}};
  j["options"] = {{"mode", a.afap ? "as-fast-as-possible" : a.open_loop ? "open-loop" : "recorded-times"},
                  {"time_scale", o.time_scale},
                  {"buffer_bytes", o.buffer_bytes >= 0 ? nlohmann::json(o.buffer_bytes) : nlohmann::json()},
                  {"tolerance_s", o.tolerance_s},
                  {"seed", seed}};
  for (const auto& r : rows) j["results"].push_back(row_json(r));
  return j;
}

std::string ms(double s) { return s < 1 ? fmt::format("{:.2f} ms", s * 1e3) : format_duration(s); }

void print_human(const OpList& ops, const ReplayArgs& a, const ReplayOptions& o, const std::vector<Row>& rows) {
  double rec = ops.recorded_end() * o.time_scale;
  fmt::print("Trace {} ({}): {} ops on {} file(s), {} thread(s), {} written{}\n", ops.name, ops.format,
             ops.ops.size(), ops.file_count(), ops.thread_count(), format_size(ops.bytes_written()),
             rec > 0 ? fmt::format(" over {} recorded", ms(rec)) : " (no times recorded)");
  for (const auto& [why, n] : ops.ignored) fmt::print("  not replayed: {} x {}\n", n, why);
  if (!ops.unknown.empty()) {
    std::string u;
    for (const auto& [name, n] : ops.unknown) u += fmt::format("{}{} x {}", u.empty() ? "" : ", ", name, n);
    fmt::print("  unknown calls/actions (counted, not replayed): {}\n", u);
  }
  if (auto need = recorded_needed_buffer(ops, o.time_scale); need && !a.afap)
    fmt::print("  as recorded, the recorder had up to {} waiting to be written\n", format_size(*need));
  if (a.afap)
    fmt::print("Replayed as fast as possible (each thread back to back).\n\n");
  else
    fmt::print("Replayed at the recorded times (x{:g}); {}.\n\n", o.time_scale,
               o.buffer_bytes >= 0 ? fmt::format("recorder buffer {}", format_size(o.buffer_bytes))
                                   : fmt::format("no --buffer given: 'kept up' means never more than {} behind",
                                                 ms(o.tolerance_s)));
  size_t w = 6;
  for (const auto& r : rows) w = std::max(w, r.name.size() + (r.kind == "path" ? 5 : 0));
  // The "failed" column appears when an operation failed somewhere (then a
  // line per device below names the first error).
  bool any_failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.s.failed_ops > 0; });
  auto failed_cell = [&](const std::string& v) { return any_failed ? fmt::format(" {:>7}", v) : std::string(); };
  fmt::print("{:<{}} {:>10} {:>10} {:>10} {:>10} {:>11} {:>7} {:>11}{} {:>8}\n", "device", w, "finished",
             "write p50", "write p99", "write max", "behind max", "stalls", "buffer need", failed_cell("failed"),
             "kept up");
  for (const auto& r : rows) {
    const ReplayStats& s = r.s;
    std::string name = r.kind == "path" ? "path " + r.name : r.name;
    fmt::print("{:<{}} {:>10} {:>10} {:>10} {:>10} {:>11} {:>7} {:>11}{} {:>8}\n", name, w,
               ms(s.completion_s), ms(s.write_latency_s[0]), ms(s.write_latency_s[2]), ms(s.write_latency_s[4]),
               a.afap ? "-" : ms(s.max_behind_s), r.kind == "path" ? "-" : std::to_string(s.stalls),
               a.afap ? "-" : format_size(s.needed_buffer_bytes), failed_cell(std::to_string(s.failed_ops)),
               !s.kept_up ? "-" : *s.kept_up ? "yes" : fmt::format("NO{}", s.overruns ? fmt::format(" ({})", s.overruns) : ""));
  }
  for (const auto& r : rows)
    if (const auto& e = r.s.first_error)
      fmt::print("{}: {} of {} operations failed ({} B not written); first: {} of '{}' at {}: {}\n",
                 r.kind == "path" ? "path " + r.name : r.name, r.s.failed_ops, r.s.ops,
                 format_size(r.s.failed_write_bytes), e->kind, excerpt(e->file, 60), ms(e->t), e->error);
  if (a.afap) return;
  std::vector<std::string> ok, late;
  for (const auto& r : rows)
    (r.s.kept_up.value_or(false) ? ok : late)
        .push_back(r.s.failed_ops ? fmt::format("{} ({} failed operations)", r.name, r.s.failed_ops) : r.name);
  fmt::print("\nVerdict: {} of {} would have kept up with this recorder{}{}.\n", ok.size(), rows.size(),
             ok.empty() ? "" : ": " + fmt::format("{}", fmt::join(ok, ", ")),
             late.empty() ? "" : fmt::format("; {}: {}", any_failed ? "too slow or failing" : "too slow", fmt::join(late, ", ")));
}

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

// The model's seed, capacity and prefill: the options, else what the trace
// records (TraceModel: simulate and mount write it), else the defaults.
// Header values are checked like every other input (capacity_bytes=nan is an
// error).
Result<ModelOptions> model_options_for(const ReplayArgs& a, const TraceModel& tm) {
  using R = Result<ModelOptions>;
  ModelOptions mo = tm.model_options();
  if (a.seed) mo.seed = *a.seed;
  if (!a.capacity.empty()) {
    auto c = parse_size(a.capacity);
    if (!c) return R::error(fmt::format("--capacity: {}", c.message()));
    mo.capacity_bytes = *c;
  }
  if (!a.prefill.empty()) {
    auto p = parse_size(a.prefill);
    if (!p) return R::error(fmt::format("--prefill: {} (give bytes, e.g. 10GB)", p.message()));
    mo.prefill_bytes = *p;
  }
  return mo;
}

// The replay itself as a native trace: issue and completion of every op.
void write_replay_trace(TraceWriter& w, const OpList& ops, const ReplayRun& run) {
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const ReplayOp& op = ops.ops[i];
    const OpOutcome& o = run.outcomes[i];
    TraceRecord r;
    r.start = o.issue, r.end = o.done, r.op = op.kind, r.file = op.file, r.offset = op.offset, r.bytes = op.bytes;
    r.thread = op.thread;
    r.error = o.error;
    r.direct = o.direct;
    w.write(r);
  }
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
  auto load_profiles = [&](const std::vector<std::string>& sets) -> Status {
    profiles.clear();
    for (const auto& spec : a.profiles) {
      auto p = load_profile(spec, sets);
      if (!p) return p.status();
      profiles.push_back(std::move(*p));
    }
    return {};
  };
  if (auto st = load_profiles(a.sets); !st.ok()) return bad_input(st.message());
  if (a.json && a.trace_out == "-") return bad_input("--trace-out - and --json both want stdout: write the trace to a file");
  // --target: the files go there through measure's RealDevice (O_EXCL names,
  // only its own files removed, Ctrl-C removes them); buffered, as the
  // trace's buffers are not aligned for O_DIRECT.
  RealClock clock;
  std::unique_ptr<RealDevice> dev;
  if (!a.target.empty()) {
    cleanup::set_cooperative();
    opt.cancel = cleanup::cancel_flag();
    RealDeviceOptions dopt;
    dopt.dir = a.target;
    dopt.prefix = "replay";
    dopt.probe_direct = false;
    dopt.keep_files = a.keep;
    dopt.cancel = opt.cancel;
    auto d = RealDevice::open(dopt, clock);
    if (!d) return bad_input(fmt::format("--target: {}", d.message()));
    dev = std::move(*d);
  }
  auto ops = read_ops_file(a.trace, *fmt_kind);
  if (!ops) return bad_input(ops.message());
  auto tm = TraceModel::read(ops->meta, ops->name);
  if (!tm) return bad_input(tm.message());
  auto mo = model_options_for(a, *tm);
  if (!mo) return bad_input(mo.message());
  // The device's overrides: --set, else the trace's (a `mount --set` trace
  // replays on the device it was made on).
  const std::vector<std::string>& sets = a.sets.empty() ? tm->sets : a.sets;
  if (a.sets.empty() && !tm->sets.empty()) {
    if (auto st = load_profiles(tm->sets); !st.ok())
      return bad_input(fmt::format("{} (from the trace's # set lines; give --set to replace them)", st.message()));
  }
  uint64_t seed = mo->seed;
  TraceWriter out;
  if (!a.trace_out.empty()) {
    std::map<std::string, std::string> meta{{"tool", "streamdisk replay"}, {"source", ops->name}};
    if (profiles.empty())
      meta["profile"] = "path " + a.target, meta["seed"] = std::to_string(seed);
    else
      TraceModel::of(profiles[0].name, sets, *mo).write(meta);
    auto st = out.open(a.trace_out, meta, {"--trace-out", "replay.csv", true, {a.trace}});
    if (!st.ok()) return bad_input(st.message());
  }
  std::vector<Row> rows;
  for (const auto& p : profiles) {
    ReplayRun run = replay_on_model(*ops, p, opt, *mo);
    if (out.is_open()) write_replay_trace(out, *ops, run);
    rows.push_back({"profile", p.name, std::move(run.stats)});
  }
  if (dev) {
    clock = RealClock();  // zero at the replay's start
    ReplayRun run = replay_ops(*ops, *dev, clock, opt);
    if (run.cancelled) {
      out.abandon();
      dev.reset();  // removes the replay's files
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
    fmt::print("{}\n", to_json(*ops, a, opt, rows, seed).dump(1));
  else
    print_human(*ops, a, opt, rows);
  return kExitOk;
}

}  // namespace

Handler setup_replay(CLI::App& sub) {
  auto a = std::make_shared<ReplayArgs>();
  sub.add_option("trace", a->trace, "Trace to replay: a streamdisk trace, a fio iolog or strace output")->required();
  sub.add_option("-p,--profile", a->profiles,
                 "Replay in virtual time against this profile (repeat to compare devices; "
                 "`streamdisk profiles` lists them)");
  sub.add_option("--set", a->sets,
                 "Override a parameter of every profile: --set device.sustained_mbps=20 (default: the trace's "
                 "# set lines, which simulate and mount write)")
      ->type_name("KEY=VALUE");
  sub.add_option("--target", a->target,
                 "Replay in wall-clock time on real storage (or a FUSE mount): files go in this directory; "
                 "ops are issued from one thread in time order");
  sub.add_flag("--keep", a->keep,
               "With --target: keep the files written, DIR/replay-PID-N.dat (default: remove them; "
               "existing files are never touched)");
  sub.add_option("--time-scale", a->time_scale, "Multiply recorded times by this (0.5: twice as fast; default 1)")
      ->check(decimal_check());
  sub.add_flag("--as-fast-as-possible", a->afap, "Ignore recorded times: issue each thread's ops back to back");
  sub.add_option("--buffer", a->buffer,
                 "The recorder's buffer (e.g. 1MiB): 'kept up' = never more data waiting than this");
  sub.add_option("--tolerance", a->tolerance, "Without --buffer: 'kept up' = never later than this (default 10ms)");
  sub.add_flag("--open-loop", a->open_loop,
               "Issue every op at its recorded time even if its thread's previous op is still in flight "
               "(for `mount --trace` traces, where the kernel overlaps requests)");
  sub.add_option("--capacity", a->capacity, "Device capacity for the model (default: the trace's, else the profile's)");
  sub.add_option("--prefill", a->prefill, "Bytes already on the device (default: the trace's, else 0)");
  sub.add_option("--format", a->format, "Trace format: auto (default), native, fio, strace");
  sub.add_option("--seed", a->seed, "Seed for the model's stalls (default: the trace's seed line, else 1)")
      ->check(whole_number_check());
  sub.add_option("--trace-out", a->trace_out,
                 "Write the replay as a native trace (issue and completion of every op); one device only. "
                 "Output files: see docs/formats.md \"Output files\"");
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
