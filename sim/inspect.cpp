// inspect: header-declared length vs data present, per format. Byte layouts
// as written by sim/format_riff.cpp and format_caf_tdms.cpp (docs/formats.md).
#include "sim/inspect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/input.h"

namespace sd {
namespace {

// What is inspected: a reader whose short reads past the end give fewer bytes.
class File {
 public:
  explicit File(const ByteReader& read) : read_(read) {}
  std::vector<uint8_t> at(uint64_t off, size_t n) const { return read_(off, n); }

 private:
  const ByteReader& read_;
};

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }
uint32_t be32(const uint8_t* p) { return static_cast<uint32_t>(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
uint64_t be64(const uint8_t* p) { return static_cast<uint64_t>(be32(p)) << 32 | be32(p + 4); }
bool tag(const std::vector<uint8_t>& b, size_t off, const char* t) {
  size_t n = std::strlen(t);
  return b.size() >= off + n && std::memcmp(b.data() + off, t, n) == 0;
}

// W64 GUID tails (sim/format_riff.cpp).
const uint8_t kRiffTail[12] = {0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00};

// The strict and lenient counts once declared and present payload bytes are known.
void conclude(Inspection& r) {
  uint64_t fb = std::max<uint64_t>(1, r.frame_bytes);
  r.lenient_frames = r.present_bytes / fb;
  if (!r.header_complete) {
    r.strict_frames = r.lenient_frames = 0;
    r.strict_note = "the header itself is cut short";
    r.repair_needed = true;
    r.repair = "rewrite the whole header from the recording's parameters";
    return;
  }
  if (!r.declared_known) {
    r.strict_frames = 0;
    r.strict_note = "the header declares only a placeholder length";
  } else if (r.declared_bytes > r.present_bytes) {
    r.strict_frames = 0;
    r.strict_note = fmt::format("the header declares {} bytes, the file holds {}", r.declared_bytes, r.present_bytes);
  } else {
    r.strict_frames = r.declared_bytes / fb;
    r.strict_note = r.declared_bytes < r.present_bytes
                        ? fmt::format("reads the {} declared bytes; {} more follow", r.declared_bytes,
                                      r.present_bytes - r.declared_bytes)
                        : "reads every byte present";
  }
  if (r.present_bytes % fb)
    r.notes.push_back(fmt::format("the last {} bytes are a partial frame: no reader uses them", r.present_bytes % fb));
}

void set_declared(Inspection& r, uint64_t bytes, std::string text) {
  r.declared_known = true;
  r.declared_bytes = bytes;
  r.declared_text = std::move(text);
}

void set_placeholder(Inspection& r, std::string text) {
  r.declared_known = false;
  r.declared_text = std::move(text);
}

// WAV and RF64: RIFF chunks up to "data".
Status inspect_riff(const File& f, Inspection& r, bool rf64) {
  auto h = f.at(0, 1 << 16);
  uint64_t ds64_data = 0;
  bool have_fmt = false, have_ds64 = false;
  size_t pos = 12;
  while (true) {
    if (pos + 8 > h.size()) {
      r.header_complete = false;
      return {};
    }
    uint32_t size = le32(&h[pos + 4]);
    if (tag(h, pos, "data")) {
      r.data_offset = pos + 8;
      uint64_t size_at = pos + 4;
      if (rf64) {
        if (!have_ds64) return Status::error("RF64 without a ds64 chunk: not a file inspect can read");
        if (ds64_data == 0) set_placeholder(r, "0 in ds64 (written at open, never updated)");
        else set_declared(r, ds64_data, fmt::format("{} (ds64)", ds64_data));
        r.repair = "set ds64's RIFF size (8 bytes at 20), data size (8 bytes at 28) and sample count (8 bytes at 36)";
      } else if (size == 0) {
        set_placeholder(r, "0 (written at open, never updated)");
      } else if (size == 0xFFFFFFFF) {
        set_placeholder(r, "0xFFFFFFFF (UINT32_MAX: a streaming writer's 'unknown')");
      } else if (size == 0x7FFFFF00 || size == 0x7FFFF000) {
        // sox writes 0x7ffff000 when its output cannot seek (a pipe).
        set_placeholder(r, fmt::format("{:#x} (a streaming writer's 'very long' placeholder, e.g. sox to a pipe)", size));
      } else {
        set_declared(r, size, fmt::format("{}", size));
      }
      if (!rf64)
        r.repair = fmt::format("set the data size (4 bytes at {}) and the RIFF size (4 bytes at 4)", size_at);
      break;
    }
    if (pos + 8 + size > h.size()) {
      r.header_complete = false;
      return {};
    }
    if (tag(h, pos, "fmt ") && size >= 16) {
      const uint8_t* p = &h[pos + 8];
      uint16_t fmt_tag = le16(p);
      r.stream.channels = le16(p + 2);
      r.stream.sample_rate = le32(p + 4);
      r.frame_bytes = le16(p + 12);
      r.stream.sample_bits = le16(p + 14);
      if (fmt_tag == 0xFFFE && size >= 40) {
        r.stream.sample_bits = le16(p + 18);
        fmt_tag = le16(p + 24);
      }
      r.stream.is_float = fmt_tag == 3;
      have_fmt = true;
    }
    if (tag(h, pos, "ds64") && size >= 24) {
      ds64_data = le64(&h[pos + 16]);
      have_ds64 = true;
    }
    pos += 8 + size + (size & 1);
  }
  if (!have_fmt) return Status::error("no fmt chunk before the data: not a file inspect can read");
  return {};
}

Status inspect_w64(const File& f, Inspection& r) {
  auto h = f.at(0, 1 << 16);
  size_t pos = 40;
  bool have_fmt = false;
  while (true) {
    if (pos + 24 > h.size()) {
      r.header_complete = false;
      return {};
    }
    uint64_t size = le64(&h[pos + 16]);  // includes the 24-byte chunk header
    if (tag(h, pos, "data")) {
      r.data_offset = pos + 24;
      if (size <= 24) set_placeholder(r, fmt::format("{} (an empty data chunk: written at open, never updated)", size));
      else set_declared(r, size - 24, fmt::format("{} (chunk size {})", size - 24, size));
      r.repair = fmt::format("set the data chunk size (8 bytes at {}) and the riff size (8 bytes at 16)", pos + 16);
      break;
    }
    if (size < 24 || pos + size > h.size()) {
      r.header_complete = false;
      return {};
    }
    if (tag(h, pos, "fmt ") && size >= 24 + 16) {
      const uint8_t* p = &h[pos + 24];
      uint16_t fmt_tag = le16(p);
      r.stream.channels = le16(p + 2);
      r.stream.sample_rate = le32(p + 4);
      r.frame_bytes = le16(p + 12);
      r.stream.sample_bits = le16(p + 14);
      if (fmt_tag == 0xFFFE && size >= 24 + 40) {
        r.stream.sample_bits = le16(p + 18);
        fmt_tag = le16(p + 24);
      }
      r.stream.is_float = fmt_tag == 3;
      have_fmt = true;
    }
    pos += (size + 7) / 8 * 8;
  }
  if (!have_fmt) return Status::error("no fmt chunk before the data: not a file inspect can read");
  return {};
}

Status inspect_caf(const File& f, Inspection& r) {
  auto h = f.at(0, 1 << 16);
  size_t pos = 8;
  bool have_desc = false;
  while (true) {
    if (pos + 12 > h.size()) {
      r.header_complete = false;
      return {};
    }
    uint64_t size = be64(&h[pos + 4]);
    if (tag(h, pos, "data")) {
      r.data_offset = pos + 12 + 4;  // the edit count precedes the samples
      if (size == UINT64_MAX) {
        // -1 is the spec's "to the end of the file", not a missing update:
        // every reader takes what is there.
        r.notes.push_back("data size -1: 'until the end of the file' (the CAF spec), so readers need no repair");
        r.declared_text = "-1 (until the end of the file)";
        r.declared_known = true;
        r.declared_bytes = UINT64_MAX;  // fixed in inspect_file once present_bytes is known
      } else {
        set_declared(r, size >= 4 ? size - 4 : 0, fmt::format("{} (chunk size {})", size >= 4 ? size - 4 : 0, size));
      }
      r.repair = fmt::format("set the data chunk size (8 bytes at {}), or -1 for 'to the end'", pos + 4);
      break;
    }
    if (size > (1u << 20) || pos + 12 + size > h.size()) {
      r.header_complete = false;
      return {};
    }
    if (tag(h, pos, "desc") && size >= 32) {
      const uint8_t* p = &h[pos + 12];
      r.stream.sample_rate = std::bit_cast<double>(be64(p));
      uint32_t flags = be32(p + 12);
      r.frame_bytes = be32(p + 16);
      r.stream.channels = be32(p + 24);
      r.stream.sample_bits = be32(p + 28);
      r.stream.is_float = flags & 1;
      have_desc = true;
    }
    pos += 12 + size;
  }
  if (!have_desc) return Status::error("no desc chunk before the data: not a file inspect can read");
  return {};
}

// TDMS value sizes by type code (NI's "TDMS file format internal structure").
size_t tdms_type_size(uint32_t t) {
  switch (t) {
    case 1: case 5: case 0x21: return 1;
    case 2: case 6: return 2;
    case 3: case 7: case 9: return 4;
    case 4: case 8: case 10: return 8;
    case 0x44: return 16;
    default: return 0;
  }
}

// Walks the segments. A segment is complete when its lead-in's next-segment
// offset is not all ones and the file holds all of it.
Status inspect_tdms(const File& f, Inspection& r) {
  std::map<std::string, std::pair<uint32_t, uint64_t>> chan;  // path -> (type, values per chunk)
  std::vector<std::string> order;
  uint64_t pos = 0, complete_frames = 0, partial_frames = 0;
  size_t segments = 0;
  while (pos + 28 <= r.file_bytes) {
    auto li = f.at(pos, 28);
    if (!tag(li, 0, "TDSm")) {
      r.notes.push_back(fmt::format("no segment lead-in at byte {}: the rest is ignored", pos));
      break;
    }
    uint32_t toc = le32(&li[4]);
    uint64_t next = le64(&li[12]), raw_off = le64(&li[20]);
    bool unfinished = next == UINT64_MAX;
    uint64_t seg_end = unfinished ? r.file_bytes : pos + 28 + next;
    if (raw_off > (uint64_t{1} << 30)) return Status::error(fmt::format("TDMS segment at byte {}: metadata size {} is not plausible", pos, raw_off));
    auto meta = f.at(pos + 28, raw_off);
    if (meta.size() < raw_off) {
      r.notes.push_back(fmt::format("segment at byte {}: metadata cut short", pos));
      if (segments == 0) r.header_complete = false;
      break;
    }
    if (toc & (1u << 1)) {  // kTocMetaData
      if (toc & (1u << 2)) order.clear();  // kTocNewObjList
      size_t p = 0;
      auto need = [&](size_t n) { return p + n <= meta.size(); };
      if (!need(4)) return Status::error("TDMS metadata too short");
      uint32_t objects = le32(&meta[p]);
      p += 4;
      for (uint32_t o = 0; o < objects; ++o) {
        if (!need(4)) return Status::error("TDMS metadata too short");
        uint32_t len = le32(&meta[p]);
        p += 4;
        if (!need(len + 4)) return Status::error("TDMS metadata too short");
        std::string path(reinterpret_cast<const char*>(&meta[p]), len);
        p += len;
        uint32_t idx = le32(&meta[p]);
        p += 4;
        if (idx != 0xFFFFFFFF && idx != 0) {
          // The index length counts its own 4 bytes: type, dimension, count follow.
          if (idx < 20 || !need(idx - 4)) return Status::error("TDMS raw data index too short");
          chan[path] = {le32(&meta[p]), le64(&meta[p + 8])};
          p += idx - 4;
        }
        if (idx != 0xFFFFFFFF && std::find(order.begin(), order.end(), path) == order.end()) order.push_back(path);
        if (!need(4)) return Status::error("TDMS metadata too short");
        uint32_t props = le32(&meta[p]);
        p += 4;
        for (uint32_t k = 0; k < props; ++k) {
          if (!need(4)) return Status::error("TDMS metadata too short");
          p += 4 + le32(&meta[p]);
          if (!need(4)) return Status::error("TDMS metadata too short");
          uint32_t type = le32(&meta[p]);
          p += 4;
          size_t vs = type == 0x20 ? (need(4) ? 4 + le32(&meta[p]) : 1u << 31) : tdms_type_size(type);
          if (vs == 0 || !need(vs)) return Status::error(fmt::format("TDMS property type {:#x} not readable", type));
          p += vs;
        }
      }
    }
    uint64_t chunk = 0, values = 0;
    uint32_t type = 0;
    for (const auto& c : order) {
      auto [t, n] = chan[c];
      chunk += tdms_type_size(t) * n;
      values = n, type = t;
    }
    if (segments == 0) {
      r.data_offset = pos + 28 + raw_off;
      r.stream.channels = static_cast<uint32_t>(order.size());
      r.stream.sample_bits = static_cast<uint32_t>(8 * tdms_type_size(type));
      r.stream.is_float = type == 9 || type == 10;
      r.frame_bytes = r.stream.channels * tdms_type_size(type);
    }
    ++segments;
    uint64_t raw_start = pos + 28 + raw_off;
    uint64_t raw_declared = unfinished ? 0 : next - raw_off;
    uint64_t raw_present = r.file_bytes > raw_start ? std::min(seg_end, r.file_bytes) - raw_start : 0;
    r.present_bytes += raw_present;
    uint64_t chunks_present = chunk ? raw_present / chunk : 0;
    bool complete = !unfinished && seg_end <= r.file_bytes;
    if (complete) {
      complete_frames += (chunk ? raw_declared / chunk : 0) * values;
      r.declared_bytes += raw_declared;
    } else {
      // A cut chunk: interleaved data keeps its whole frames; non-interleaved
      // data holds each channel's values one channel after the other, so the
      // last channel limits the frames every channel has.
      uint64_t rest = raw_present - chunks_present * chunk;
      uint64_t vsize = tdms_type_size(type), in_cut = 0;
      if (toc & (1u << 5)) {  // kTocInterleavedData
        in_cut = r.frame_bytes ? rest / r.frame_bytes : 0;
      } else if (vsize && chunk) {
        uint64_t before_last = chunk - values * vsize;
        in_cut = rest > before_last ? (rest - before_last) / vsize : 0;
        if (rest >= vsize)
          r.notes.push_back(fmt::format("the cut chunk holds up to {} values of the first channel, {} of the last",
                                        std::min(values, rest / vsize), in_cut));
      }
      partial_frames = chunks_present * values + std::min(values, in_cut);
      r.repair_needed = true;
      r.repair = fmt::format("set the last segment's next-segment offset (8 bytes at {}) to {} and delete the "
                             ".tdms_index (readers rebuild it)", pos + 12, raw_off + chunks_present * chunk);
      r.declared_text = unfinished ? "an unfinished last segment (next-segment offset all ones)"
                                   : fmt::format("a last segment declaring {} raw bytes, {} present", raw_declared,
                                                 raw_present);
      break;
    }
    pos = seg_end;
  }
  if (!r.repair_needed && pos < r.file_bytes) {
    r.notes.push_back(fmt::format("the last {} bytes are a cut segment lead-in: no reader uses them", r.file_bytes - pos));
    r.repair_needed = true;
    r.repair = fmt::format("truncate the file to {} bytes", pos);
  }
  if (segments == 0) {
    r.header_complete = false;
    return {};
  }
  r.declared_known = true;
  if (r.declared_text.empty()) r.declared_text = fmt::format("{} complete segments", segments);
  r.strict_frames = complete_frames;
  r.lenient_frames = complete_frames + partial_frames;
  return {};
}

// wf_increment of the first channel is the sample period; read it cheaply by
// scanning the first segment's metadata for the property name.
double tdms_rate(const File& f) {
  auto h = f.at(0, 1 << 16);
  const char* key = "wf_increment";
  auto it = std::search(h.begin(), h.end(), key, key + 12);
  if (it == h.end() || static_cast<size_t>(h.end() - it) < 12 + 4 + 8) return 0;
  const uint8_t* p = &*it + 12;
  if (le32(p) != 10) return 0;
  double inc = std::bit_cast<double>(le64(p + 4));
  return inc > 0 ? 1 / inc : 0;
}

Status raw_stream(const std::string& path, const InspectOptions& opt, Inspection& r) {
  if (opt.raw_given) {
    r.stream = opt.raw_stream;
    return {};
  }
  namespace fs = std::filesystem;
  fs::path p(path);
  std::string stem = p.stem().string();
  // rec.raw -> rec.json; rec_ch01.raw -> rec.json
  if (auto k = stem.rfind("_ch"); k != std::string::npos) stem = stem.substr(0, k);
  fs::path side = p.parent_path() / (stem + ".json");
  if (!fs::exists(side))
    return Status::error(fmt::format("{} has no header and no sidecar {}: give --channels, --sample-rate and "
                                     "--sample-bits", excerpt(path), excerpt(side.string())));
  // Found by its name, not given: a fifo of that name would wait for a writer.
  if (!fs::is_regular_file(side))
    return Status::error(fmt::format("sidecar {} is not a regular file: give --channels, --sample-rate and "
                                     "--sample-bits", excerpt(side.string())));
  auto text = read_input(side.string(), "raw sidecar", kJsonLimits);
  if (!text) return text.status();
  try {
    auto j = nlohmann::json::parse(*text);
    r.stream.channels = j.at("channels").get<uint32_t>();
    r.stream.sample_rate = j.at("sample_rate").get<double>();
    r.stream.sample_bits = j.at("sample_bits").get<uint32_t>();
    r.stream.is_float = j.value("sample_type", "") == "float";
    if (j.value("layout", "") != "interleaved") r.stream.channels = 1;  // one file per channel
    set_declared(r, j.at("frames").get<uint64_t>() * r.stream.frame_bytes(),
                 fmt::format("{} frames (sidecar {})", j.at("frames").get<uint64_t>(), side.filename().string()));
  } catch (const std::exception&) {
    return Status::error(fmt::format("sidecar {} is not a streamdisk-raw-sidecar: give --channels, --sample-rate "
                                     "and --sample-bits", excerpt(side.string())));
  }
  return {};
}

}  // namespace

Result<Inspection> inspect_file(const std::string& path, const InspectOptions& opt) {
  if (std::string why = unreadable_reason(path); !why.empty())
    return Result<Inspection>::error(fmt::format("cannot inspect '{}': {}", excerpt(path), why));
  // O_NONBLOCK: opening a fifo must not wait for a writer (it is refused
  // below); reads of a regular file ignore it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Result<Inspection>::error(fmt::format("cannot inspect '{}': {}", excerpt(path), std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Result<Inspection>::error(fmt::format("cannot inspect '{}': not a regular file", excerpt(path)));
  ByteReader read = [fd](uint64_t off, size_t n) {
    std::vector<uint8_t> b(n);
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd, b.data() + got, n - got, static_cast<off_t>(off + got));
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    b.resize(got);
    return b;
  };
  return inspect_bytes(path, static_cast<uint64_t>(st.st_size), read, opt);
}

Result<Inspection> inspect_bytes(const std::string& path, uint64_t size, const ByteReader& read,
                                 const InspectOptions& opt) {
  File f(read);
  Inspection r;
  r.path = path;
  r.file_bytes = size;
  auto head = f.at(0, 16);
  Status s;
  if (tag(head, 0, "RIFF") && tag(head, 8, "WAVE")) r.format = "wav", s = inspect_riff(f, r, false);
  else if (tag(head, 0, "RF64") && tag(head, 8, "WAVE")) r.format = "rf64", s = inspect_riff(f, r, true);
  else if (tag(head, 0, "riff") && head.size() >= 16 && std::memcmp(&head[4], kRiffTail, 12) == 0)
    r.format = "w64", s = inspect_w64(f, r);
  else if (tag(head, 0, "caff")) r.format = "caf", s = inspect_caf(f, r);
  else if (tag(head, 0, "TDSm")) r.format = "tdms", s = inspect_tdms(f, r);
  else if (tag(head, 0, "RIFF") || tag(head, 0, "RF64") || tag(head, 0, "TDSh"))
    return Result<Inspection>::error(fmt::format(
        "cannot inspect '{}': not a recording inspect reads (a .tdms_index? inspect the .tdms)", excerpt(path)));
  else r.format = "raw", s = raw_stream(path, opt, r);
  if (!s.ok()) return Result<Inspection>::error(fmt::format("cannot inspect '{}': {}", excerpt(path), s.message()));
  if (r.format == "tdms") {
    r.stream.sample_rate = tdms_rate(f);
    if (r.declared_known && r.declared_text.find("complete") != std::string::npos)
      r.strict_note = "reads the complete segments";
    else
      r.strict_note = "reads the complete segments, not the last one";
    return r;
  }
  if (r.format == "raw") r.frame_bytes = r.stream.frame_bytes();
  if (r.header_complete) r.present_bytes = r.file_bytes > r.data_offset ? r.file_bytes - r.data_offset : 0;
  if (r.format == "caf" && r.declared_known && r.declared_bytes == UINT64_MAX) {
    uint64_t fb = std::max<uint64_t>(1, r.frame_bytes);
    r.declared_bytes = r.present_bytes / fb * fb;
  }
  if (r.header_complete && r.frame_bytes == 0)
    return Result<Inspection>::error(fmt::format("cannot inspect '{}': the header gives 0 bytes per frame", excerpt(path)));
  conclude(r);
  uint64_t fb = std::max<uint64_t>(1, r.frame_bytes);
  bool matches = r.declared_known && r.declared_bytes == r.present_bytes / fb * fb;
  r.repair_needed = !r.header_complete || !matches;
  if (!r.repair_needed) r.repair.clear();
  if (r.format == "raw" && r.repair_needed)
    r.repair = fmt::format("set \"frames\" in the sidecar to {}", r.lenient_frames);
  return r;
}

}  // namespace sd
