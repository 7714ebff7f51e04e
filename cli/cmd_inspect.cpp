// streamdisk inspect FILE...: what a strict and a lenient reader recover.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/fault_args.h"
#include "models/units.h"
#include "sim/inspect.h"

namespace sd::cli {

nlohmann::json inspection_json(const Inspection& r) {
  return {{"path", r.path},
          {"format", r.format},
          {"file_bytes", r.file_bytes},
          {"channels", r.stream.channels},
          {"sample_rate", r.stream.sample_rate},
          {"sample_bits", r.stream.sample_bits},
          {"frame_bytes", r.frame_bytes},
          {"data_offset", r.data_offset},
          {"header_complete", r.header_complete},
          {"declared_bytes", r.declared_known ? nlohmann::json(r.declared_bytes) : nlohmann::json(nullptr)},
          {"declared", r.declared_text},
          {"present_bytes", r.present_bytes},
          {"strict_frames", r.strict_frames},
          {"strict_seconds", r.strict_seconds()},
          {"strict_note", r.strict_note},
          {"lenient_frames", r.lenient_frames},
          {"lenient_seconds", r.lenient_seconds()},
          {"repair_needed", r.repair_needed},
          {"repair", r.repair},
          {"notes", r.notes}};
}

namespace {

void print_text(const Inspection& r) {
  auto row = [](const char* k, const std::string& v) { fmt::print("  {:<10}{}\n", k, v); };
  fmt::print("{}\n", r.path);
  row("format", fmt::format("{}, {} ch x {:g} Hz x {}-bit{}", r.format, r.stream.channels, r.stream.sample_rate,
                            r.stream.sample_bits, r.stream.is_float ? " float" : ""));
  row("size", fmt::format("{} bytes; samples start at byte {}", r.file_bytes, r.data_offset));
  row("declared", r.declared_text.empty() ? "-" : r.declared_text);
  row("present", fmt::format("{} bytes of samples", r.present_bytes));
  row("strict", fmt::format("{} frames = {:.3f} s per channel: {}", r.strict_frames, r.strict_seconds(), r.strict_note));
  row("lenient", fmt::format("{} frames = {:.3f} s per channel", r.lenient_frames, r.lenient_seconds()));
  row("repair", r.repair_needed ? "needed: " + r.repair : std::string("none needed"));
  for (const auto& n : r.notes) row("note", n);
}

}  // namespace

Handler setup_inspect(CLI::App& sub) {
  struct Args {
    std::vector<std::string> files;
    std::string channels, rate, bits;
    bool is_float = false, json = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("files", a->files, "Recordings to inspect (raw, wav, rf64, w64, caf, tdms)")
      ->required()->check(path_check());
  sub.add_option("-c,--channels", a->channels, "Raw files without a sidecar: channels (interleaved)");
  sub.add_option("-r,--sample-rate", a->rate, "Raw files without a sidecar: frames per second (48k)");
  sub.add_option("-b,--sample-bits", a->bits, "Raw files without a sidecar: bits per sample (16)");
  sub.add_flag("--float", a->is_float, "Raw files without a sidecar: IEEE float samples");
  sub.add_flag("--json", a->json, "Print a JSON array, one object per file");
  sub.footer(
      "Reads each file (never writes it) and compares the length its header declares with the samples\n"
      "present: what a strict reader (trusts the header) and a lenient one (takes every whole frame)\n"
      "recover, in seconds per channel, and whether and how the header must be repaired.\n"
      "Raw files take their stream from record's sidecar NAME.json, or from -c/-r/-b.\n\n"
      "Examples:\n"
      "  streamdisk inspect /mnt/stick/rec.wav\n"
      "  streamdisk inspect take1.rf64 take1.tdms --json\n"
      "  streamdisk inspect -c 2 -r 48k -b 24 capture.raw");
  return [a] {
    InspectOptions opt;
    if (!a->channels.empty() || !a->rate.empty() || !a->bits.empty()) {
      if (a->channels.empty() || a->rate.empty() || a->bits.empty())
        return bad_input("a raw stream needs all of --channels, --sample-rate and --sample-bits (-c 2 -r 48k -b 16)");
      auto c = parse_count(a->channels);
      auto r = parse_count(a->rate);
      auto b = parse_count(a->bits);
      if (!c || !r || !b || *c < 1 || *c > 65535 || *r <= 0 || !(*b == 8 || *b == 16 || *b == 24 || *b == 32 || *b == 64))
        return bad_input("--channels 1..65535, --sample-rate above 0 and --sample-bits 8, 16, 24, 32 or 64 (-c 2 -r 48k -b 16)");
      opt.raw_given = true;
      opt.raw_stream.channels = static_cast<uint32_t>(*c);
      opt.raw_stream.sample_rate = *r;
      opt.raw_stream.sample_bits = static_cast<uint32_t>(*b);
      opt.raw_stream.is_float = a->is_float;
    }
    std::vector<Inspection> all;
    for (const auto& f : a->files) {
      auto r = inspect_file(f, opt);
      if (!r) return bad_input(r.message());
      all.push_back(std::move(*r));
    }
    if (a->json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& r : all) arr.push_back(inspection_json(r));
      fmt::print("{}\n", arr.dump(2));
    } else {
      for (const auto& r : all) print_text(r);
    }
    return kExitOk;
  };
}

}  // namespace sd::cli
