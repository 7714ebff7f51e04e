#include "sim/powerloss.h"

#include <algorithm>
#include <cstring>

namespace sd {

Completion WriteKeeper::submit(const Op& op, double now) {
  Completion c = inner_.submit(op, now);
  if (op.kind == OpKind::Create && c.error == 0) files_[op.file] = {};
  if (op.kind != OpKind::Write || c.bytes == 0) return c;
  Kept& k = files_[op.file];
  k.writes.push_back({op.offset, c.bytes, now});
  // The simulator's header and metadata writes carry their bytes; payload does not.
  const auto* p = static_cast<const uint8_t*>(op.data);
  k.bytes.emplace_back(p ? std::vector<uint8_t>(p, p + c.bytes) : std::vector<uint8_t>{});
  return c;
}

const WriteKeeper::Kept* WriteKeeper::kept(FileId f) const {
  auto it = files_.find(f);
  return it == files_.end() ? nullptr : &it->second;
}

std::vector<Survivor> survivors(const PowerLossImage& img, const WriteKeeper& keeper,
                                const std::vector<std::pair<FileId, std::string>>& names, FormatKind format,
                                const StreamSpec& stream) {
  std::vector<Survivor> out;
  static const WriteKeeper::Kept kNone;
  for (const auto& [id, name] : names) {
    Survivor s;
    s.name = name;
    const SurvivingFile* sf = img.find(id);
    const WriteKeeper::Kept* k = keeper.kept(id);
    if (!k) k = &kNone;
    if (!sf || !sf->exists) {
      s.size_at_loss = sf ? sf->size_at_loss : 0;
      out.push_back(std::move(s));
      continue;
    }
    s.exists = true;
    s.length = sf->length;
    s.size_at_loss = sf->size_at_loss;
    s.data_bytes = sf->data_bytes();
    std::vector<Piece> pieces = resolve_contents(*sf, k->writes);
    // The file as the outage leaves it, read through the pieces.
    ByteReader read = [&pieces, k, len = sf->length](uint64_t off, size_t n) {
      std::vector<uint8_t> b(off >= len ? 0 : static_cast<size_t>(std::min<uint64_t>(n, len - off)), 0);
      auto it = std::upper_bound(pieces.begin(), pieces.end(), off,
                                 [](uint64_t v, const Piece& p) { return v < p.offset; });
      if (it != pieces.begin()) --it;
      for (; it != pieces.end() && it->offset < off + b.size(); ++it) {
        if (it->write < 0) continue;
        const AppWrite& w = k->writes[static_cast<size_t>(it->write)];
        const auto& bytes = k->bytes[static_cast<size_t>(it->write)];
        if (bytes.empty()) continue;  // payload: zeros here
        uint64_t x = std::max(off, it->offset), y = std::min(off + b.size(), it->offset + it->bytes);
        if (x < y) std::memcpy(b.data() + (x - off), bytes.data() + (x - w.offset), y - x);
      }
      return b;
    };
    InspectOptions io;
    io.raw_given = true;
    io.raw_stream = stream;
    if (format == FormatKind::PerChannel) io.raw_stream.channels = 1;
    if (name.size() >= 11 && name.compare(name.size() - 11, 11, ".tdms_index") == 0) {
      s.inspect_error = "the TDMS index (readers rebuild it from the .tdms)";
    } else if (s.length == 0) {
      s.inspect_error = "empty: nothing to read";
    } else {
      auto r = inspect_bytes(name, s.length, read, io);
      if (r) s.inspected = true, s.inspection = std::move(*r);
      else s.inspect_error = r.message();
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace sd
