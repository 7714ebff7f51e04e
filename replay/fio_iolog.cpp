// fio's iolog (write_iolog=FILE, read back by read_iolog=FILE), versions 2
// and 3. Version 2 carries no times: ops are back to back except for `wait`
// actions (the offset field is a delay in microseconds). Version 3 starts
// every line with the microseconds since the log began.
//
//   fio version 3 iolog
//   1052 /data/f add
//   1201 /data/f open
//   1420 /data/f write 0 4096
//   1999 /data/f close
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "models/input.h"
#include "models/units.h"
#include "replay/readers.h"

namespace sd {
namespace {

// Offsets and lengths up to 1e17 bytes (the model's largest device); times
// up to a century in microseconds.
bool parse_u64(const std::string& s, uint64_t& v) { return parse_whole(s, v, 100'000'000'000'000'000ULL); }

std::vector<std::string> words(const std::string& line) {
  std::istringstream is(line);
  std::vector<std::string> w;
  for (std::string s; is >> s;) w.push_back(s);
  return w;
}

}  // namespace

Result<OpList> read_fio_iolog(std::istream& in, const std::string& name) {
  OpList out;
  out.name = name;
  std::string line;
  LineReader lines(in, name);
  int version = 0;
  double t = 0;  // v2: accumulated waits, seconds
  auto err = [&](const std::string& what) {
    return Result<OpList>::error(fmt::format("{}:{}: {}", name, std::max<size_t>(lines.lineno(), 1), what));
  };
  while (lines.next(line)) {
    auto w = words(line);
    if (w.empty()) continue;
    if (version == 0) {
      if (line == "fio version 2 iolog") version = 2;
      else if (line == "fio version 3 iolog") version = 3;
      else return err("not a fio iolog: the first line must be 'fio version 2 iolog' or 'fio version 3 iolog'");
      out.format = fmt::format("fio-iolog-v{}", version);
      continue;
    }
    if (version == 3) {
      uint64_t us = 0;
      if (!parse_u64(w[0], us)) return err(fmt::format("expected a time in microseconds first, found '{}'", excerpt(w[0], 40)));
      t = static_cast<double>(us) * 1e-6;
      w.erase(w.begin());
    }
    if (w.size() != 2 && w.size() != 4)
      return err(fmt::format("expected '<file> <action>' or '<file> <action> <offset> <length>'{}, found {} fields",
                             version == 3 ? " after the time" : "", w.size() + (version == 3 ? 1 : 0)));
    ReplayOp o;
    o.start = t;
    o.file = w[0];
    const std::string& act = w[1];
    if (w.size() == 2) {
      if (act == "add") continue;  // declares the file; fio opens it later
      if (act == "open") o.kind = OpKind::Create;
      else if (act == "close") o.kind = OpKind::Close;
      else return err(fmt::format("unknown file action '{}' (fio writes add, open or close)", excerpt(act, 40)));
      out.ops.push_back(std::move(o));
      continue;
    }
    uint64_t off = 0, len = 0;
    if (!parse_u64(w[2], off) || !parse_u64(w[3], len))
      return err(fmt::format("offset and length must be whole numbers, found '{}' '{}'", excerpt(w[2], 30), excerpt(w[3], 30)));
    if (off + len > 100'000'000'000'000'000ULL) return err("offset + length is past 1e17 bytes (100 PB)");
    if (act == "wait") {
      if (version == 2) t += static_cast<double>(off) * 1e-6;
      continue;
    }
    if (act == "write") o.kind = OpKind::Write;
    else if (act == "read") o.kind = OpKind::Read;
    else if (act == "sync" || act == "datasync") o.kind = OpKind::Fsync;
    else {
      ++out.unknown[excerpt(act, 40)];  // trim, sync_file_range: not modelled
      continue;
    }
    o.offset = off;
    o.bytes = len;
    out.ops.push_back(std::move(o));
  }
  if (!lines.ok()) return lines.status();
  if (version == 0) {
    return err("empty file, or not a fio iolog");
  }
  return out;
}

}  // namespace sd
