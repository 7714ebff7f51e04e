// The result writers the commands print (STYLE.md 8): each command's JSON and
// text live next to its result type; these cases check what each writes from
// a result built by hand (the CLI tests check the commands end to end).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "calibrate/results.h"
#include "fusefs/summary.h"
#include "measure/results.h"
#include "models/analytic.h"
#include "models/profile.h"
#include "sim/capacity_results.h"
#include "sim/profile_report.h"

using namespace sd;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

CapacityRow capacity_row(const std::string& name, bool found, double best) {
  CapacityRow row;
  row.profile = name;
  row.result.found = found;
  row.result.best = best;
  row.result.band_low = row.result.band_high = best;
  row.result.limited_by = "overruns";
  return row;
}

}  // namespace

TEST_CASE("capacity results: JSON per profile with nulls where nothing was found", "[results][capacity]") {
  CapacityTable t;
  t.target = CapacityTarget::Buffer;
  t.with_spread = false;
  t.recording.duration_s = 600;
  t.rows = {capacity_row("none-found", false, 0), capacity_row("big", true, 8e6), capacity_row("small", true, 1e6)};
  nlohmann::json j = capacity_json(t);
  CHECK(j["format"] == "streamdisk-capacity");
  CHECK(j["find"] == "buffer");
  CHECK(j["duration_s"] == 600);
  REQUIRE(j["results"].size() == 3);
  CHECK(j["results"][0]["best"].is_null());
  CHECK(j["results"][0]["at_best"].is_null());
  CHECK(j["results"][0]["spread"].is_null());
  CHECK(j["results"][1]["best"] == 8e6);
  // A buyer's table for buffers: the smallest first, no answer last.
  sort_best_first(t);
  CHECK(t.rows[0].profile == "small");
  CHECK(t.rows[1].profile == "big");
  CHECK(t.rows[2].profile == "none-found");
  std::string text = capacity_text(t);
  CHECK(contains(text, "capacity (buffer)"));
  CHECK(contains(text, "min buffer (P<5 %)"));
  CHECK(text.find("small") < text.find("big"));
  CHECK_FALSE(contains(text, "Over the ranges"));  // no spread asked for
  CHECK(text.back() == '\n');
}

TEST_CASE("capacity results: --find names round-trip and a wrong one names the choices", "[results][capacity]") {
  for (CapacityTarget t : {CapacityTarget::Channels, CapacityTarget::SampleRate, CapacityTarget::Buffer}) {
    auto back = capacity_target_from_name(capacity_target_name(t));
    REQUIRE(back);
    CHECK(*back == t);
  }
  auto bad = capacity_target_from_name("speed");
  REQUIRE_FALSE(bad);
  CHECK(contains(bad.message(), "use channels, sample-rate or buffer"));
}

TEST_CASE("measure results: NaN cells are null in JSON and '-' in text and formats go by name", "[results][measure]") {
  MeasureReport r;
  r.sweep = SweepKind::Formats;
  r.target = "model:x";
  r.fsync = "end";
  r.table.columns = {"format", "channels", "write_mbps"};
  r.table.rows = {{static_cast<double>(FormatKind::Raw), 4, NAN}};
  r.summary = {{"best_mbps", NAN}, {"fill", 0.5}};
  r.error = ENOSPC;
  nlohmann::json j = measure_json(r);
  CHECK(j["format"] == "streamdisk-measure");
  CHECK(j["sweep"] == "formats");
  CHECK(j["rows"][0].dump() == R"(["raw",4.0,null])");  // NaN is written as null
  CHECK(j["summary"]["best_mbps"].is_null());
  CHECK(j["summary"]["fill"] == 0.5);
  CHECK(j["error"] == "ENOSPC");
  std::string text = measure_text(r);
  CHECK(contains(text, "streamdisk measure --sweep formats on model:x (buffered, fsync end)"));
  CHECK(contains(text, "50.0 %"));  // a fill fraction in percent
  CHECK(contains(text, "raw"));
  CHECK(contains(text, "-"));
}

TEST_CASE("characterize results: the headline and the profile path", "[results][characterize]") {
  CharacterizeReport r;
  r.target = "/media/usb";
  r.found = {{"device.sustained_mbps", 20, "MB/s", "sustained", "± 0.3"}};
  r.recorder.buffer_bytes = 4 << 20;  // block 0: half the buffer
  r.capacity.found = false;
  nlohmann::json j = characterize_json(r, "");
  CHECK(j["format"] == "streamdisk-characterize");
  CHECK(j["profile"].is_null());
  CHECK(j["headline"]["sample_rate"].is_null());
  CHECK(j["headline"]["recorder"]["block_bytes"] == 2 << 20);
  CHECK(j["params"][0]["key"] == "device.sustained_mbps");
  CHECK(characterize_json(r, "my.toml")["profile"] == "my.toml");
  std::string text = characterize_text(r, "my.toml");
  CHECK(contains(text, "none (even the lowest rate tried overran)"));
  CHECK(contains(text, "Wrote my.toml"));
  CHECK(contains(text, "device.sustained_mbps"));
}

TEST_CASE("characterize: the headline's check on the storage", "[results][characterize]") {
  // 5 MB/s, 1 MiB ring written in 512 KiB blocks: 512 KiB of room beside the block.
  PacedResult r;
  r.latencies.assign(100, 0.01);
  r.seconds = 20;
  r.late = 3;
  r.max_lag = 0.3;  // 1.5 MB waiting: more than the room
  auto bad = judge_headline_check(r, 5e6, 1 << 20, 512 << 10, 60, false);
  CHECK(bad.ran);
  CHECK(bad.fell_behind);
  CHECK(bad.room == 512 << 10);
  CHECK(contains(bad.text, "the headline is optimistic on this storage"));
  r.max_lag = 0.1;  // 500 kB waiting: the ring holds it
  auto ok = judge_headline_check(r, 5e6, 1 << 20, 512 << 10, 60, false);
  CHECK_FALSE(ok.fell_behind);
  CHECK(contains(ok.text, "3 late, at most"));
  CHECK(contains(ok.text, "catches gross errors only"));
  r.late = 0;
  r.max_lag = 0;
  CHECK(contains(judge_headline_check(r, 5e6, 1 << 20, 512 << 10, 60, false).text, "none late"));
  PacedResult none;
  auto skipped = judge_headline_check(none, 5e6, 1 << 20, 512 << 10, 60, true);
  CHECK_FALSE(skipped.ran);
  CHECK_FALSE(skipped.fell_behind);
  CHECK(skipped.text == "not run (interrupted)");
  // Text and JSON carry it.
  CharacterizeReport rep;
  rep.capacity.found = true;
  rep.check = bad;
  CHECK(contains(characterize_text(rep, ""), "checked on the storage: 100 writes"));
  nlohmann::json j = characterize_json(rep, "");
  CHECK(j["headline"]["check"]["fell_behind"] == true);
  CHECK(j["headline"]["check"]["max_lag_s"] == 0.3);
  CHECK(characterize_json(CharacterizeReport{}, "")["headline"]["check"].is_null());
}

TEST_CASE("calibrate results: each parameter with its unit from the table", "[results][calibrate]") {
  cal::Calibration c;
  c.name = "mine";
  c.inputs = {"sweep.csv"};
  c.params = {{"device.sustained_mbps", 120, 2, 0.99, 12, "block-size sweep", "sweep.csv", false}};
  c.missing = {{"device.recover_mbps", "a sustained write with idle gaps"}};
  nlohmann::json j = cal::calibration_json(c, "");
  CHECK(j["format"] == "streamdisk-calibrate");
  CHECK(j["profile"].is_null());
  CHECK(j["params"][0]["unit"] == "MB/s");
  CHECK(j["params"][0]["band95"] == 2);
  CHECK(j["missing"][0]["needs"] == "a sustained write with idle gaps");
  std::string text = cal::calibration_text(c, "mine.toml");
  CHECK(contains(text, "Calibrated 'mine' from 1 input(s): sweep.csv"));
  CHECK(contains(text, "Not fitted"));
  CHECK(contains(text, "Wrote mine.toml"));
}

TEST_CASE("show results: every layer with the rate table and the spread", "[results][show]") {
  auto p = load_profile("samsung-960evo-250g");
  REQUIRE(p);
  nlohmann::json j = profile_json(*p, 0);
  CHECK(j["format"] == "streamdisk-show");
  CHECK(j["layers"]["device"]["present"] == true);
  CHECK(j["layers"]["host"]["present"] == false);
  CHECK(j["write_rates"].size() == 15);  // 512 B to 8 MiB
  CHECK(j["sustained_mbps_1MiB"] == Approx(write_rate(*p, 1048576, Phase::Sustained, true, 0) / 1e6));
  CHECK(j["sustained_spread"]["low"] <= j["sustained_spread"]["high"]);
  std::string text = profile_text(*p, 0);
  CHECK(text.starts_with("Profile samsung-960evo-250g"));
  CHECK(contains(text, "Burst cache:"));
  CHECK(contains(param_table_text(), "sustained_mbps"));
}

TEST_CASE("profiles results: stacks are composites and the list is grouped by layer", "[results][show]") {
  std::vector<ProfileInfo> list = {{"ext4", Layer::Filesystem, "kernel ext4", ""},
                                   {"stick", Layer::Device, "a USB stick", ""},
                                   {"pi-stick", std::nullopt, "a stack", "rpi4+ext4+stick"}};
  nlohmann::json j = profiles_json(list);
  REQUIRE(j.size() == 3);
  CHECK(j[0]["layer"] == "filesystem");
  CHECK(j[2]["layer"] == "composite");
  CHECK(j[2]["layers"] == "rpi4+ext4+stick");
  std::string text = profiles_text(list);
  CHECK(contains(text, "filesystem:\n  ext4"));
  CHECK(contains(text, "\ndevice:\n  stick"));
  CHECK(contains(text, "composite (host+filesystem+device):\n  pi-stick"));
  CHECK(contains(text, "= rpi4+ext4+stick"));
}

TEST_CASE("mount summary: counts and what a power loss left", "[results][mount]") {
  fusefs::MountSummary s;
  s.seconds = 10;
  s.writes = 5;
  s.bytes_written = 5 << 20;
  nlohmann::json j = fusefs::summary_json(s, "p");
  CHECK(j["format"] == "streamdisk-mount-summary");
  CHECK(j["profile"] == "p");
  CHECK(j["power_loss"].is_null());
  std::string text = fusefs::summary_text(s);
  CHECK(contains(text, "in 5 writes"));
  CHECK_FALSE(contains(text, "power loss"));
  s.power_lost_at = 2.5;
  s.power_loss = {{"a.wav", false, 0, 4096, 0}, {"b.wav", true, 8192, 8192, 4096}};
  j = fusefs::summary_json(s, "p");
  CHECK(j["power_loss"]["time_s"] == 2.5);
  CHECK(j["power_loss"]["files"].size() == 2);
  text = fusefs::summary_text(s);
  CHECK(contains(text, "power loss at 2.500 s"));
  CHECK(contains(text, "a.wav: gone"));
  CHECK(contains(text, "(4 KiB of them zeros)"));
}
