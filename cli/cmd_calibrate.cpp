// streamdisk calibrate TRACE... [--fio-lat-log F] [--fio-json F] [--table CSV]
//   [--buffered T] [--baseline T] [--layer L] [--base PROFILE] [-o FILE] [--json]
#include <cstdio>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/results.h"
#include "cli/command.h"
#include "models/output_file.h"
#include "models/units.h"

namespace sd::cli {
namespace {

struct CalArgs {
  cal::Options opt;
  std::string layer, out;
  bool json = false;
};

}  // namespace

Handler setup_calibrate(CLI::App& sub) {
  auto a = std::make_shared<CalArgs>();
  // Every input file: refused when '' (path_check); all but the last repeatable.
  for (auto [name, list, help] : std::initializer_list<std::tuple<const char*, std::vector<std::string>*, const char*>>{
           {"traces", &a->opt.traces, "Native traces (streamdisk-trace, docs/formats.md) of direct writes and/or reads"},
           {"--buffered", &a->opt.buffered, "A native trace of buffered writes (host page cache); repeatable"},
           {"--baseline", &a->opt.baselines,
            "A block-size sweep of the same device under a reference filesystem; the difference to the sweeps in "
            "TRACE gives the filesystem layer; repeatable"},
           {"--fio-lat-log", &a->opt.fio_logs,
            "fio per-I/O latency log (write_lat_log=NAME gives NAME_lat.1.log); repeatable"},
           {"--fio-json", &a->opt.fio_json,
            "fio --output-format=json output; one job per block size/thread count; repeatable"},
           {"--table", &a->opt.tables, "CSV table block_bytes,threads,mbps[,op] (docs/calibrate.md); repeatable"}})
    sub.add_option(name, *list, help)->check(path_check());
  sub.add_option("--device-activity", a->opt.device_activity_file,
                 "The block device's own activity during the traces (device-activity.log, kept by characterize "
                 "--keep-traces): the pauses the writes met take their lengths from the device's own stops, and "
                 "through a journaled filesystem (traces with journal_commit_ms) the waits that are no stop of the "
                 "device are left out (the model's journal makes them)")
      ->check(path_check());
  sub.add_option("--journal-commit-ms", a->opt.journal_commit_ms,
                 "The traces went through a kernel filesystem whose journal commits this often (ext3/ext4: 5000 "
                 "unless mounted with commit=), for traces whose header does not say so (written before streamdisk "
                 "recorded it): with --device-activity, its own waits are left out of the pause fit")
      ->check(decimal_check() & CLI::Range(1.0, 3.6e6));
  sub.add_option("--layer", a->layer, "Write only this layer: device, filesystem or host")
      ->check(CLI::IsMember({"device", "filesystem", "host"}));
  sub.add_option("--base", a->opt.base,
                 "Take parameters no input informs from this profile (labelled as such in the output)")
      ->check(profile_check());
  sub.add_option("--name", a->opt.name, "Name of the calibrated profile (default: calibrated)")->check(name_check());
  sub.add_option("-o,--output", a->out,
                 "Write the profile TOML here: written whole or not at all, never over an input "
                 "(docs/formats.md \"Output files\")")->check(path_check());
  sub.add_flag("--json", a->json, "Print the fit report as JSON");
  sub.footer(
      "Each parameter group is fitted from the data that informs it: per-op overhead and bandwidth from a\n"
      "block-size sweep; burst size/rate, sustained rate, recovery from a long sustained write (with idle\n"
      "gaps); fill knee/floor from a write until ENOSPC; stalls from per-write latency outliers; the page\n"
      "cache from buffered writes; reads from a threads x block-size table; filesystem costs from --baseline.\n"
      "Parameters without data are left out, with the sweep that would inform them.\n\n"
      "Examples:\n"
      "  streamdisk calibrate sweep.csv sustained.csv fill.csv -o my-ssd.toml\n"
      "  streamdisk calibrate traces/*.csv --device-activity traces/device-activity.log -o stick.toml\n"
      "  streamdisk calibrate old/*.csv --device-activity old/device-activity.log --journal-commit-ms 5000 -o ext4.toml\n"
      "  streamdisk calibrate --fio-lat-log w_lat.1.log --name usb-stick -o usb-stick.toml\n"
      "  streamdisk calibrate --table data/tables/doc001-read.csv --base samsung-960evo-250g -o ssd.toml --json\n"
      "  streamdisk calibrate exfat-sweep.csv --baseline ext4-sweep.csv --layer filesystem -o exfat.toml");
  return [a] {
    if (!a->layer.empty()) a->opt.layer = layer_from_name(a->layer);
    // Checked and opened before the fit, so a bad path fails at once and
    // Ctrl-C during the fit removes the temporary file.
    OutputFile out;
    if (!a->out.empty()) {
      OutputRules rules{"-o", "my-device.toml", false, {}};
      for (const auto* list : {&a->opt.traces, &a->opt.buffered, &a->opt.baselines, &a->opt.fio_logs,
                               &a->opt.fio_json, &a->opt.tables})
        rules.inputs.insert(rules.inputs.end(), list->begin(), list->end());
      rules.inputs.push_back(a->opt.device_activity_file);
      rules.inputs.push_back(a->opt.base);
      for (const auto& f : profile_files(a->opt.base)) rules.inputs.push_back(f);  // "ext4+mine.toml"
      if (Status st = out.open(a->out, rules); !st.ok()) return bad_input(st.message());
    }
    auto c = cal::calibrate(a->opt);
    if (!c) return bad_input(c.message());
    if (out.is_open()) {
      auto toml = cal::profile_toml(*c, "calibrate");
      if (!toml) return bad_input(toml.message());
      std::fputs(toml->c_str(), out.stream());
      if (Status st = out.commit(); !st.ok()) return failure(st.message());
    }
    if (a->json) fmt::print("{}\n", cal::calibration_json(*c, a->out).dump(2));
    else fmt::print("{}", cal::calibration_text(*c, a->out));
    return kExitOk;
  };
}

}  // namespace sd::cli
