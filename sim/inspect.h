// What is left of a recording: reads a raw, WAV, RF64, W64, CAF or TDMS file
// (the formats of sim/format.h, and the same files other writers produce)
// and says what a strict and a lenient reader recover from it.
//
//   strict   trusts the header: it reads the length the header declares, and
//            nothing if the header declares more than the file holds or only
//            a placeholder (a WAV whose header was never rewritten opens as 0 s);
//            TDMS: the complete segments.
//   lenient  ignores the declared length and takes every whole frame present
//            after the header (sox --ignore-length, a TDMS reader that reads
//            an unfinished last segment to the end of the file).
//
// When the two differ, the header needs a repair, and `repair` says which
// bytes to set to what. The file is only read.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/status.h"
#include "sim/format.h"

namespace sd {

struct InspectOptions {
  // Raw files carry no header: their stream comes from here, or from the
  // sidecar NAME.json that `record` writes beside them (raw_given false).
  bool raw_given = false;
  StreamSpec raw_stream;
};

struct Inspection {
  std::string path;
  std::string format;  // "wav", "rf64", "w64", "caf", "tdms", "raw"
  uint64_t file_bytes = 0;
  StreamSpec stream;
  uint64_t frame_bytes = 0;   // as stored (TDMS: 24-bit samples take 4 bytes)
  uint64_t data_offset = 0;   // where samples start (TDMS: the first segment's raw data)
  bool header_complete = true;
  // The payload length the header declares, and how to read it: a number,
  // or a placeholder ("0: written at open, never updated").
  bool declared_known = false;
  uint64_t declared_bytes = 0;
  std::string declared_text;
  uint64_t present_bytes = 0;  // payload bytes in the file
  uint64_t strict_frames = 0, lenient_frames = 0;
  std::string strict_note;     // why the strict reader stops where it does
  bool repair_needed = false;
  std::string repair;          // how (which bytes to set), or ""
  std::vector<std::string> notes;
  double strict_seconds() const { return stream.sample_rate > 0 ? strict_frames / stream.sample_rate : 0; }
  double lenient_seconds() const { return stream.sample_rate > 0 ? lenient_frames / stream.sample_rate : 0; }
};

// Bad input (unreadable, not a recording, raw without a stream) as a message.
Result<Inspection> inspect_file(const std::string& path, const InspectOptions& opt = {});

// The same for a file that exists only as a reader (simulate's power-loss
// image): `read(offset, n)` returns up to n bytes (fewer past `size`). A raw
// file needs opt.raw_given (there is no sidecar to find).
using ByteReader = std::function<std::vector<uint8_t>(uint64_t offset, size_t n)>;
Result<Inspection> inspect_bytes(const std::string& name, uint64_t size, const ByteReader& read,
                                 const InspectOptions& opt = {});

}  // namespace sd
