// streamdisk simulate --profile P --channels N ... [--trace FILE] [--json]
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/fault_args.h"
#include "cli/recording_args.h"
#include "sim/spread_report.h"
#include "models/fault.h"
#include "models/model_device.h"
#include "models/profile.h"
#include "models/units.h"
#include "sim/cost.h"
#include "sim/seed_pool.h"
#include "sim/spread.h"
#include "sim/verdict.h"

namespace sd::cli {
namespace {

struct SimArgs {
  ProfileArgs prof;
  RecordingArgs rec;
  FaultArgs faults;
  std::string trace;
  bool json = false;
  bool no_spread = false;
};

// The overrun count over the ranges of the profile's estimates: every
// evaluation at the same seed, in parallel on the shared pool.
Result<Spread> overrun_spread(const Profile& p, const RecorderConfig& c, const ModelOptions& mo) {
  return propagate(p, [&](const std::vector<const Profile*>& batch) -> Result<std::vector<double>> {
    std::vector<double> out(batch.size());
    std::vector<std::string> errors(batch.size());
    SeedPool pool;
    pool.run(
        batch.size(),
        [&](size_t i) {
          ModelDevice dev(*batch[i], mo);
          VirtualClock clock;
          auto r = run_recorder(dev, clock, c);
          if (r) out[i] = static_cast<double>(r->overrun_events);
          else errors[i] = r.message();
        },
        [](size_t) { return true; }, SIZE_MAX);
    for (const auto& e : errors)
      if (!e.empty()) return Result<std::vector<double>>::error(e);
    return out;
  });
}


nlohmann::json to_json(const std::string& profile, const RecorderConfig& c, const RecorderResult& r,
                       const ModelState& st, uint64_t seed) {
  nlohmann::json j = recording_json(c, r);
  j["format"] = "streamdisk-simulate";
  j["format_version"] = 1;
  j["profile"] = profile;
  j["seed"] = seed;
  j["device_stalls"] = st.stalls;
  j["device_stall_seconds"] = st.stall_seconds;
  return j;
}

std::string overruns_value(double v) { return fmt::format("{:.0f} overrun{}", v, v == 1 ? "" : "s"); }

// Faults that never fired are worth a line too (a pattern that matched no file).
void print_fault_summary(const FaultSchedule& s) {
  print_fault_rows(s.events());
  for (size_t i = 0; i < s.size(); ++i)
    if (s.hits(i) == 0) print_report_row("fault", fmt::format("{}: never fired", s.spec(i).text));
}

void print_text(const std::string& profile, const RecorderConfig& c, const RecorderResult& r, const ModelState& st,
                uint64_t seed, const FaultSchedule& faults, const std::optional<Spread>& spread,
                const std::function<void()>& power_loss_rows) {
  auto row = print_report_row;
  row("profile", fmt::format("{} (seed {})", profile, seed));
  row("stream", fmt::format("{}, {}, {}", stream_text(c.stream), format_name(c.format), format_duration(c.duration_s)));
  uint64_t fb = c.stream.frame_bytes();
  row("buffer", fmt::format("{} ring ({} frames), {}-frame blocks, {}-frame periods",
                            format_size(static_cast<double>(c.buffer_bytes)), r.buffer_bytes / fb, r.block_bytes / fb,
                            r.period_frames));
  row("written", written_text(r));
  // A split recording can have thousands of parts: the first few, then the count.
  for (size_t i = 0; i < r.files.size() && i < 8; ++i)
    row("file", fmt::format("{}  {}", r.files[i].name, format_size(static_cast<double>(r.files[i].bytes))));
  if (r.files.size() > 4) row("files", fmt::format("{} in all", r.files.size()));
  print_outcome_rows(r);
  row("stalls", fmt::format("{} ({} in all)", st.stalls, format_duration(st.stall_seconds)));
  if (!r.stopped_reason.empty() && !r.aborted_at_overrun)
    row("stopped", fmt::format("after {}: {}", format_duration(*r.stopped_s), r.stopped_reason));
  if (!faults.empty()) print_fault_summary(faults);
  power_loss_rows();
  for (const auto& w : recording_warnings(c, r)) row("warning", w);
  if (spread) {
    row("spread", spread_range_text(*spread, overruns_value) + " (over the estimates' ranges)");
    row("decided by", spread_decisive_text(*spread, overruns_value));
    row("method", spread_method(*spread));
  }
  fmt::print("{}\n", verdict_line(c, r));
}

}  // namespace

Handler setup_simulate(CLI::App& sub) {
  auto a = std::make_shared<SimArgs>();
  add_profile_options(sub, a->prof);
  add_recording_options(sub, a->rec);
  add_fault_options(sub, a->faults);
  sub.add_option("--trace", a->trace,
                 "Write every operation to this native trace CSV ('-' for stdout; docs/formats.md: written whole "
                 "or not at all, devices and fifos written directly)")->check(path_check());
  sub.add_flag("--json", a->json, "Print JSON instead of text");
  sub.add_flag("--no-spread", a->no_spread,
               "Skip the spread: by default the recording is run again with each estimated parameter at either end "
               "of its range (same seed), and the overrun count is reported as a range with the most likely value");
  sub.footer(
      "Runs a recorder (producer at the exact sample rate, ring buffer, writer draining it in blocks\n"
      "through the file format's writes) against the profile's model in virtual time, and reports\n"
      "overruns as a recorder counts them. Exit status 0 whatever the verdict; 2 on bad input.\n\n"
      "Examples:\n"
      "  streamdisk simulate -p rpi4-buster+exfat-fuse+sandisk-ultrafit-16g -c 48 -r 48k -b 16 -f w64 \\\n"
      "      --buffer 1MiB -d 1.5h\n"
      "  streamdisk simulate -p usrp-2974 -c 2 -r 160M -b 16 --buffer 256MiB -d 2min --json\n"
      "  streamdisk simulate -p crio-9014 -c 4 -r 25.6k -b 32 -f tdms -d 10min --trace run.csv\n"
      "  streamdisk simulate -p rpi4-buster-ultrafit-exfat -c 8 -r 48k -b 16 -f w64 -d 1.5h --no-spread\n"
      "  streamdisk simulate -p fat32+sandisk-ultrafit-16g -c 2 -r 48k -f wav -d 10min --fault eio:write@50MB\n"
      "  streamdisk simulate -p rpi4-bullseye+ext4+sandisk-ultrafit-16g -c 2 -r 48k -f wav -d 2min \\\n"
      "      --header-every 10s --fault powerloss@90s   (what survives: length, seconds a player gets)\n\n"
      "Spread: the profile's estimated parameters carry ranges (docs/profiles.md, 'Ranges'); the overrun\n"
      "count is also computed with each at either end of its range and at the two corners (corner bounds,\n"
      "2k + 3 runs for k parameters, the same seed), and the parameter that moves it most is named with the\n"
      "characterize/measure step that measures it.");
  return [a] {
    if (a->trace == "-" && a->json)
      return bad_input("--trace - and --json both want stdout: write the trace to a file (--trace run.csv)");
    auto p = load_profile(a->prof.profile, a->prof.sets);
    if (!p) return bad_input(p.message());
    auto cfg = recorder_config(a->rec);
    if (!cfg) return bad_input(cfg.message());
    auto mo = model_options(a->rec, *p);
    if (!mo) return bad_input(mo.message());
    if (a->json && a->trace == "-") return bad_input("--trace - and --json both want stdout: write the trace to a file");
    double runs = a->no_spread ? 1 : 3 + 2 * static_cast<double>(ranged_params(*p).size());
    if (auto st = check_cost(estimate_recording(*p, *cfg, *mo), runs,
                             a->no_spread ? "" : "runs (the spread: --no-spread runs one)");
        !st.ok())
      return bad_input(st.message());
    auto specs = fault_specs(a->faults, /*powerloss_ok=*/true);
    if (!specs) return bad_input(specs.message());
    TraceWriter trace;
    if (!a->trace.empty()) {
      std::map<std::string, std::string> meta{{"tool", "streamdisk simulate"},
                                              {"stream", stream_text(cfg->stream)},
                                              {"format", std::string(format_name(cfg->format))},
                                              {"buffer_bytes", std::to_string(cfg->buffer_bytes)}};
      TraceModel::of(p->name, a->prof.sets, *mo).write(meta);
      std::vector<std::string> inputs = profile_files(a->prof.profile);
      inputs.push_back(a->faults.file);  // --faults FILE
      auto st = trace.open(a->trace, meta, {"--trace", "trace.csv", true, inputs});
      if (!st.ok()) return bad_input(st.message());
    }
    bool powerloss = std::any_of(specs->begin(), specs->end(), [](const FaultSpec& f) { return f.kind == FaultKind::PowerLoss; });
    ModelOptions model_opt = *mo;
    model_opt.durability = powerloss;
    ModelDevice model(*p, model_opt);
    FaultSchedule faults(a->rec.seed);
    for (auto& f : *specs) faults.add(std::move(f));
    FaultDevice dev(model, faults);
    WriteKeeper keeper(dev);  // used with a power loss only (it keeps every write)
    VirtualClock clock;
    RecorderHooks hooks;
    std::vector<std::pair<FileId, std::string>> names;
    hooks.naming = [&faults, &names](FileId f, const std::string& name) {
      faults.name_file(f, name);
      names.emplace_back(f, name);
    };
    if (trace.is_open()) hooks.trace = &trace;
    bool tty = isatty(STDERR_FILENO) != 0;
    if (tty) hooks.progress = [](double f) { fmt::print(stderr, "\rsimulating... {:3.0f} %", f * 100); };
    auto r = run_recorder(powerloss ? static_cast<Device&>(keeper) : dev, clock, *cfg, hooks);
    if (tty) fmt::print(stderr, "\r{:30}\r", "");
    if (!r) {
      trace.abandon();
      return bad_input(r.message());
    }
    if (auto st = trace.close(); !st.ok()) return failure(st.message());
    // A power loss after the recording ended still happens (is it safe to
    // cut the power 5 s after the recorder closed its files?).
    if (powerloss && faults.gone_time() < std::numeric_limits<double>::infinity())
      faults.tick(std::max(clock.now(), faults.gone_time()));
    std::vector<Survivor> lost;
    double lost_at = faults.power_lost_at();
    bool power_lost = lost_at < std::numeric_limits<double>::infinity();
    if (power_lost) lost = survivors(model.power_loss_image(lost_at), keeper, names, cfg->format, cfg->stream);
    ModelState state = model.state(clock.now());
    std::optional<Spread> spread;
    if (!a->no_spread) {
      if (tty) fmt::print(stderr, "\rspread: {} runs...", runs);
      auto sp = overrun_spread(*p, *cfg, *mo);
      if (tty) fmt::print(stderr, "\r{:30}\r", "");
      if (!sp) return bad_input(sp.message());
      spread = *sp;
    }
    if (a->json) {
      nlohmann::json j = to_json(p->name, *cfg, *r, state, a->rec.seed);
      j["overrun_spread"] = spread ? spread_json(*spread) : nlohmann::json(nullptr);
      if (!faults.empty()) j["faults"] = fault_events_json(faults.events());
      if (powerloss)
        j["power_loss"] = power_lost ? power_loss_json(lost_at, model.durability()->params(), lost) : nlohmann::json(nullptr);
      fmt::print("{}\n", j.dump(2));
    } else {
      print_text(p->name, *cfg, *r, state, a->rec.seed, faults, spread,
                 [&] { if (power_lost) print_power_loss(lost_at, model.durability()->params(), lost); });
    }
    return kExitOk;
  };
}

}  // namespace sd::cli
