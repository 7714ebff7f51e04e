// streamdisk mount --profile P (--backing DIR | --discard) [options] MOUNTPOINT
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/fault_args.h"
#include "fusefs/mount.h"
#include "fusefs/summary.h"
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

}  // namespace

Handler setup_mount(CLI::App& sub) {
  auto a = std::make_shared<MountArgs>();
  add_profile_options(sub, a->prof);
  sub.add_option("mountpoint", a->mountpoint, "Empty directory to mount on")->required()->check(path_check());
  sub.add_option("--backing", a->backing, "Keep the files here (read them afterwards); the default")
      ->type_name("DIR")
      ->check(path_check());
  sub.add_flag("--discard", a->discard,
               "Keep names, sizes and metadata but not contents (reads return zeros): emulate a device larger "
               "than the disk");
  sub.add_option("--capacity", a->model.capacity, "Emulated capacity (replaces the profile's): 16GB, 512MiB")
      ->type_name("SIZE");
  sub.add_option("--prefill", a->model.prefill, "Start the emulated device this full: 85% or a size")->type_name("FILL");
  sub.add_option("--seed", a->model.seed, "Seed for the model's stalls (same seed, same stalls)")
      ->check(whole_number_check());
  sub.add_option("--trace", a->trace, "Write every operation to this CSV trace (docs/formats.md)")->type_name("FILE")
      ->check(path_check());
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
    opt.trace_inputs = profile_files(a->prof.profile);
    opt.trace_inputs.push_back(a->faults.file);  // --faults FILE
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
    fmt::print(stderr, "{}", fusefs::summary_text(*sum));
    if (a->json) fmt::print("{}\n", fusefs::summary_json(*sum, p->name).dump(2));
    return kExitOk;
  };
}

}  // namespace sd::cli
