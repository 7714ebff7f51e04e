// A small TDMS reader for tests, written from NI's published "TDMS File
// Format Internal Structure" (not from the writer in sim/): segments with a
// 28-byte lead-in, metadata with object paths, raw data indexes (full,
// 0x00000000 "same as previous", 0xFFFFFFFF "no data"), properties, and raw
// data repeated in chunks. Non-interleaved and interleaved data; little-endian
// only; no DAQmx raw data. Throws std::runtime_error naming the offset.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace tdms {

struct Channel {
  std::string path;
  uint32_t type = 0;  // tdsDataType: 1 I8, 2 I16, 3 I32, 4 I64, 5-8 U8..U64, 9 SGL, 10 DBL
  std::map<std::string, double> num_props;
  std::map<std::string, std::string> str_props;
  std::vector<double> values;  // every value, in order (integers converted exactly up to 2^53)
};

struct File {
  std::vector<Channel> objects;  // every object seen, in first-seen order ("/", groups, channels)
  int segments = 0;
  bool index_file = false;  // 'TDSh' lead-ins
  Channel* find(const std::string& path) {
    for (auto& o : objects)
      if (o.path == path) return &o;
    return nullptr;
  }
};

inline uint32_t type_size(uint32_t t) {
  switch (t) {
    case 1: case 5: return 1;
    case 2: case 6: return 2;
    case 3: case 7: case 9: return 4;
    case 4: case 8: case 10: return 8;
    default: return 0;  // strings etc.: not supported as channel data here
  }
}

class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& b) : b_(b) {}

  File parse() {
    File f;
    struct Index {
      uint32_t type = 0;
      uint64_t count = 0;
      bool data = false;
    };
    std::map<std::string, Index> index;  // last raw data index per object
    std::vector<std::string> active;     // objects with data, in segment order
    uint64_t pos = 0;
    while (pos < b_.size()) {
      need(pos, 28);
      std::string tag(reinterpret_cast<const char*>(&b_[pos]), 4);
      if (tag != "TDSm" && tag != "TDSh") fail(pos, "bad lead-in tag '" + tag + "'");
      f.index_file = tag == "TDSh";
      uint32_t toc = u32(pos + 4), version = u32(pos + 8);
      if (version != 4712 && version != 4713) fail(pos + 8, fmt::format("unknown version {}", version));
      if (toc & (1u << 6)) fail(pos + 4, "big-endian segments are not supported");
      if (toc & (1u << 7)) fail(pos + 4, "DAQmx raw data is not supported");
      uint64_t next = u64(pos + 12), raw_off = u64(pos + 20);
      uint64_t meta = pos + 28;
      uint64_t seg_end = next == ~uint64_t{0} ? b_.size() : meta + next;
      uint64_t data = meta + raw_off;
      if (!f.index_file && seg_end > b_.size()) fail(pos + 12, "segment runs past the end of the file");
      if (toc & (1u << 1)) {
        if (toc & (1u << 2)) active.clear();
        uint64_t p = meta;
        uint32_t n = u32(p);
        p += 4;
        for (uint32_t i = 0; i < n; ++i) {
          std::string path = str(p);
          Channel* obj = f.find(path);
          if (!obj) {
            obj = &f.objects.emplace_back();
            obj->path = path;
          }
          uint32_t ri = u32(p);
          p += 4;
          Index& ix = index[path];
          if (ri == 0xFFFFFFFF) {
            ix.data = false;
          } else if (ri == 0) {
            if (!ix.data) fail(p - 4, path + ": raw index 'same as previous' without a previous index");
          } else {
            ix.type = u32(p);
            if (u32(p + 4) != 1) fail(p + 4, "array dimension must be 1");
            ix.count = u64(p + 8);
            if (!type_size(ix.type)) fail(p, fmt::format("unsupported data type {}", ix.type));
            ix.data = true;
            p += ri - 4;  // the length counts its own 4 bytes (20 for numeric types)
          }
          obj->type = ix.type;
          uint32_t props = u32(p);
          p += 4;
          for (uint32_t k = 0; k < props; ++k) prop(p, *obj);
          bool listed = false;
          for (auto& a : active) listed = listed || a == path;
          if (ix.data && !listed) active.push_back(path);
          if (!ix.data && listed) std::erase(active, path);
        }
        if (p != data) fail(p, fmt::format("metadata ends at {}, raw data offset says {}", p, data));
      }
      if ((toc & (1u << 3)) && !f.index_file) {
        uint64_t chunk = 0;
        for (auto& a : active) chunk += index[a].count * type_size(index[a].type);
        if (chunk == 0) fail(pos, "raw data flagged but no channel has data");
        if ((seg_end - data) % chunk) fail(data, "raw data is not a whole number of chunks");
        bool inter = toc & (1u << 5);
        for (uint64_t at = data; at < seg_end; at += chunk) read_chunk(at, active, index, f, inter);
      }
      ++f.segments;
      pos = f.index_file ? data : seg_end;
    }
    return f;
  }

 private:
  [[noreturn]] void fail(uint64_t at, const std::string& what) const {
    throw std::runtime_error(fmt::format("TDMS offset {}: {}", at, what));
  }
  void need(uint64_t at, uint64_t n) const {
    if (at + n > b_.size()) fail(at, "truncated");
  }
  uint32_t u32(uint64_t at) const {
    need(at, 4);
    uint32_t v;
    std::memcpy(&v, &b_[at], 4);
    return v;
  }
  uint64_t u64(uint64_t at) const {
    need(at, 8);
    uint64_t v;
    std::memcpy(&v, &b_[at], 8);
    return v;
  }
  std::string str(uint64_t& p) const {
    uint32_t n = u32(p);
    need(p + 4, n);
    std::string s(reinterpret_cast<const char*>(&b_[p + 4]), n);
    p += 4 + n;
    return s;
  }
  double value(uint64_t at, uint32_t type) const {
    need(at, type_size(type));
    switch (type) {
      case 1: return static_cast<int8_t>(b_[at]);
      case 2: { int16_t v; std::memcpy(&v, &b_[at], 2); return v; }
      case 3: return static_cast<int32_t>(u32(at));
      case 4: return static_cast<double>(static_cast<int64_t>(u64(at)));
      case 5: return b_[at];
      case 6: { uint16_t v; std::memcpy(&v, &b_[at], 2); return v; }
      case 7: return u32(at);
      case 8: return static_cast<double>(u64(at));
      case 9: { float v; std::memcpy(&v, &b_[at], 4); return v; }
      case 10: { double v; std::memcpy(&v, &b_[at], 8); return v; }
    }
    fail(at, "bad type");
  }
  void prop(uint64_t& p, Channel& obj) const {
    std::string name = str(p);
    uint32_t type = u32(p);
    p += 4;
    if (type == 0x20) {
      obj.str_props[name] = str(p);
    } else if (type == 0x21) {
      need(p, 1);
      obj.num_props[name] = b_[p];
      p += 1;
    } else if (type == 0x44) {
      p += 16;  // timestamp: not needed by the tests
    } else if (type_size(type)) {
      obj.num_props[name] = value(p, type);
      p += type_size(type);
    } else {
      fail(p - 4, fmt::format("property '{}' has unsupported type {}", name, type));
    }
  }
  template <class Ix>
  void read_chunk(uint64_t at, const std::vector<std::string>& active, Ix& index, File& f, bool inter) const {
    if (!inter) {
      for (const auto& path : active) {
        auto& ix = index[path];
        Channel* c = f.find(path);
        for (uint64_t i = 0; i < ix.count; ++i, at += type_size(ix.type)) c->values.push_back(value(at, ix.type));
      }
      return;
    }
    uint64_t rows = index[active.front()].count;
    for (uint64_t r = 0; r < rows; ++r)
      for (const auto& path : active) {
        auto& ix = index[path];
        f.find(path)->values.push_back(value(at, ix.type));
        at += type_size(ix.type);
      }
  }
  const std::vector<uint8_t>& b_;
};

}  // namespace tdms
