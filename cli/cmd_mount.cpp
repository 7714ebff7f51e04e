// streamdisk mount --profile P (--backing DIR | --discard) [options] MOUNTPOINT
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/fault_args.h"
#include "fusefs/mount.h"
#include "models/model_args.h"
#include "models/profile.h"
#include "models/units.h"

namespace sd::cli {
namespace {

struct MountArgs {
  ProfileArgs prof;
  FaultArgs faults;
  ModelArgs model;  // --capacity, --prefill, --seed
  std::string mountpoint, backing, trace, credit = "1ms";
  bool discard = false, json = false, quiet = false, debug = false, realtime = false, durability = false;
};

nlohmann::json power_loss_json(const fusefs::MountSummary& s) {
  if (s.power_lost_at < 0) return nullptr;
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : s.power_loss)
    files.push_back({{"path", f.path}, {"exists", f.exists}, {"length_bytes", f.length}, {"written_bytes", f.written},
                     {"data_bytes", f.data_bytes}});
  return {{"time_s", s.power_lost_at}, {"inexact", s.power_loss_inexact}, {"files", files}};
}

nlohmann::json summary_json(const fusefs::MountSummary& s, const std::string& profile) {
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
          {"completion_error_s", {{"p50", s.late_p50}, {"p99", s.late_p99}, {"max", s.late_max}, {"samples", s.late_samples}}},
          {"power_loss", power_loss_json(s)}};
}

void print_power_loss(const fusefs::MountSummary& s) {
  if (s.power_lost_at < 0) return;
  fmt::print(stderr, "  power loss at {:.3f} s: the backing files hold what survived (`streamdisk inspect` them)\n",
             s.power_lost_at);
  for (const auto& f : s.power_loss) {
    if (!f.exists) fmt::print(stderr, "    {}: gone ({} written; its directory entry never became durable)\n", f.path,
                              format_size(static_cast<double>(f.written)));
    else
      fmt::print(stderr, "    {}: {} of {} written survive{}\n", f.path, format_size(static_cast<double>(f.length)),
                 format_size(static_cast<double>(f.written)),
                 f.data_bytes < f.length
                     ? fmt::format(" ({} of them zeros)", format_size(static_cast<double>(f.length - f.data_bytes)))
                     : "");
  }
  if (s.power_loss_inexact)
    fmt::print(stderr, "    (over 256 MiB of overwritten bytes: rewritten ranges may hold their later bytes)\n");
}

void print_summary(const fusefs::MountSummary& s) {
  double rate = s.seconds > 0 ? static_cast<double>(s.bytes_written) / s.seconds : 0;
  fmt::print(stderr,
             "streamdisk: unmounted after {}: wrote {} in {} writes ({} on average), read {} in {} reads\n"
             "  errors: ENOSPC {}, EFBIG {}, other {}; fault events {}; stalls {} ({}); fill {:.1f} % of {}\n"
             "  reply - modelled completion: p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms over {} replies\n",
             format_duration(s.seconds), format_size(static_cast<double>(s.bytes_written)), s.writes,
             format_rate(rate), format_size(static_cast<double>(s.bytes_read)), s.reads, s.enospc, s.efbig,
             s.other_errors, s.fault_events, s.stalls, format_duration(s.stall_seconds), s.fill * 100,
             s.capacity_bytes > 0 ? format_size(s.capacity_bytes) : std::string("unlimited"), s.late_p50 * 1e3,
             s.late_p99 * 1e3, s.late_max * 1e3, s.late_samples);
  print_power_loss(s);
}

}  // namespace

Handler setup_mount(CLI::App& sub) {
  auto a = std::make_shared<MountArgs>();
  add_profile_options(sub, a->prof);
  sub.add_option("mountpoint", a->mountpoint, "Empty directory to mount on")->required();
  sub.add_option("--backing", a->backing, "Keep the files here (read them afterwards); the default")
      ->type_name("DIR");
  sub.add_flag("--discard", a->discard,
               "Keep names, sizes and metadata but not contents (reads return zeros): emulate a device larger "
               "than the disk");
  sub.add_option("--capacity", a->model.capacity, "Emulated capacity (replaces the profile's): 16GB, 512MiB")
      ->type_name("SIZE");
  sub.add_option("--prefill", a->model.prefill, "Start the emulated device this full: 85% or a size")->type_name("FILL");
  sub.add_option("--seed", a->model.seed, "Seed for the model's stalls (same seed, same stalls)")
      ->check(whole_number_check());
  sub.add_option("--trace", a->trace, "Write every operation to this CSV trace (docs/formats.md)")->type_name("FILE");
  sub.add_option("--overhead-credit", a->credit,
                 "Count up to this much of the gap between a thread's reply and its next request as FUSE round "
                 "trip, which a real device would not add (docs/mount.md); 0 = off")
      ->type_name("TIME")
      ->capture_default_str();
  add_fault_options(sub, a->faults);
  sub.add_flag("--durability", a->durability,
               "Keep what a power loss needs (the durability model's log, and the bytes overwrites replace), so "
               "`streamdisk fault MOUNTPOINT powerloss` works at run time; implied by --fault powerloss@... "
               "(docs/faults.md)");
  sub.add_flag("--json", a->json, "Print the summary as JSON on stdout at unmount");
  sub.add_flag("-q,--quiet", a->quiet, "No status line");
  sub.add_flag("--debug", a->debug, "libfuse debug output on stderr");
  sub.add_flag("--realtime", a->realtime,
               "Run the FUSE workers at real-time priority (SCHED_FIFO; root or CAP_SYS_NICE): on a loaded machine "
               "requests are picked up at once, so rates follow the model more closely");
  sub.footer(
      "Runs in the foreground; Ctrl-C (or SIGTERM, or `fusermount3 -u MOUNTPOINT`) unmounts and prints a summary.\n"
      "Every write and read is answered when the emulated device would have completed it.\n\n"
      "Examples:\n"
      "  streamdisk mount -p rpi4-buster+exfat-fuse+sandisk-ultrafit-16g --backing /tmp/stick /mnt/stick\n"
      "  streamdisk mount -p samsung-960evo-250g --discard --prefill 85% --trace ops.csv /mnt/ssd\n"
      "  streamdisk mount -p fat32+sandisk-ultrafit-16g --discard --capacity 1GB --seed 7 /mnt/small\n"
      "  streamdisk mount -p sandisk-ultrafit-16g --backing /tmp/stick --fault eio:write@2GB --fault gone@10min /mnt/stick\n"
      "  streamdisk mount -p rpi4-bullseye+ext4+sandisk-ultrafit-16g --backing /tmp/stick --fault powerloss@30s /mnt/stick\n"
      "  (faults at run time: streamdisk fault /mnt/stick delay=2s)");
  return [a] {
    auto p = load_profile(a->prof.profile, a->prof.sets);
    if (!p) return bad_input(p.message());
    fusefs::MountOptions opt;
    opt.profile = *p;
    auto model = apply_model_args(a->model, *p);
    if (!model) return bad_input(model.message());
    opt.model = *model;
    auto faults = fault_specs(a->faults, /*powerloss_ok=*/true);
    if (!faults) return bad_input(faults.message());
    opt.faults = std::move(*faults);
    opt.durability = a->durability;
    opt.mountpoint = a->mountpoint;
    opt.backing = a->backing;
    opt.discard = a->discard;
    opt.trace_path = a->trace;
    opt.status_line = !a->quiet;
    opt.debug = a->debug;
    opt.realtime = a->realtime;
    auto credit = parse_duration(a->credit);
    if (!credit || *credit < 0 || *credit > 1)
      return bad_input(fmt::format("--overhead-credit {}: give a duration from 0 to 1s, e.g. 1ms", a->credit));
    opt.overhead_credit_s = *credit;
    opt.profile_sets = a->prof.sets;
    if (Status s = fusefs::check_mount(opt); !s.ok()) return bad_input(s.message());
    auto sum = fusefs::run_mount(opt);
    if (!sum) return failure(sum.message());
    print_summary(*sum);
    if (a->json) fmt::print("{}\n", summary_json(*sum, p->name).dump(2));
    return kExitOk;
  };
}

}  // namespace sd::cli
