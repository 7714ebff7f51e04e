// Document 001's read table (data/tables/doc001-read.csv) fitted into the read
// model: the saturated cells (512 KiB and up, where the document says full
// speed is reached) must be reproduced within 10 % by the calibrated profile,
// loaded back from its TOML; the noisy cells (2 KB x 2 threads) are reported.
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "models/profile.h"

using namespace sd;
using namespace sd::cal;

TEST_CASE("document 001's read table: the calibrated read model reproduces the saturated cells within 10 %",
          "[calibrate][doc001]") {
  std::string table = std::string(SD_SOURCE_DIR) + "/data/tables/doc001-read.csv";
  Options opt;
  opt.tables = {table};
  opt.base = "samsung-sata-ssd-laptop";  // document 001's drive; the write side is not in the table
  opt.name = "doc001-read";
  auto c = calibrate(opt);
  REQUIRE(c.ok());
  auto toml = profile_toml(*c, "calibrate");
  REQUIRE(toml.ok());
  CHECK(toml->starts_with("# Written by `streamdisk calibrate`."));
  auto prof = parse_profile_text(*toml, "doc001-read.toml");
  REQUIRE(prof.ok());
  REQUIRE(prof->finish().ok());
  auto rows = load_rate_table(table);
  REQUIRE(rows.ok());
  int saturated = 0;
  for (const auto& r : *rows) {
    double model = predict_read_mbps(*prof, r.block_bytes, r.threads);
    double err = model / r.mbps - 1;
    if (r.block_bytes >= 512 * 1024) {
      INFO(fmt::format("{} B x {} threads: document {} MB/s, calibrated model {:.1f} MB/s", r.block_bytes, r.threads,
                       r.mbps, model));
      CHECK(std::fabs(err) <= 0.10);
      ++saturated;
    }
  }
  CHECK(saturated == 12);
  // The noisy cell the document itself points at is reported, not hidden.
  bool reported = false;
  for (const auto& cell : c->read_cells)
    if (cell.block == 2048 && cell.threads == 2) reported = !cell.used || std::fabs(cell.rel_err) > 0.10;
  CHECK(reported);
}
