// File-format layouts: which bytes a recorder writes where. A layout turns
// "append F frames" into the list of writes a real writer issues (payload,
// segment metadata, header rewrites) with their files and offsets, and hands
// out the exact header bytes, so that the simulator (sizes and offsets only)
// and `record` (real files) run the same code. The byte layouts follow the
// public specifications summarised in docs/formats.md ("Recording formats").
//
// Usage (single-threaded; a layout is a state machine, one per recording):
//
//   auto layout = make_layout({.kind = FormatKind::W64, .stream = s, .base_name = "rec"});
//   std::vector<FormatWrite> w;
//   layout->begin(w);               // the files' headers (files are created first)
//   layout->append(frames, w);      // per block the writer drains, in stream order
//   layout->finish(w);              // final header patches (sizes)
//
// Each call appends to `w` (the caller clears it); writes must be issued in
// order. Header and metadata writes carry their bytes in `data`; payload
// writes carry none: the caller supplies frames [first_frame, first_frame +
// bytes / bytes-per-frame) of the stream, laid out as `channel` says, as
// little-endian samples (CAF declares little-endian LPCM, format flag 2).
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/status.h"

namespace sd {

enum class FormatKind { Raw, PerChannel, Wav, Rf64, W64, Caf, Tdms };
// "raw", "channels", "wav", "rf64", "w64", "caf", "tdms".
std::string_view format_name(FormatKind k);
Result<FormatKind> format_from_name(std::string_view name);
std::string format_names();  // "raw, channels, wav, ..." for help and errors

// What is being recorded.
struct StreamSpec {
  uint32_t channels = 1;
  double sample_rate = 48000;  // frames per second (per channel)
  uint32_t sample_bits = 16;   // 8, 16, 24, 32 or 64
  bool is_float = false;       // IEEE float samples (32 or 64 bits)
  uint32_t sample_bytes() const { return (sample_bits + 7) / 8; }
  uint64_t frame_bytes() const { return uint64_t{channels} * sample_bytes(); }
  double bytes_per_second() const { return sample_rate * static_cast<double>(frame_bytes()); }
};
// Checks channels, rate and width; the message names the option and the fix.
Status check_stream(const StreamSpec& s);

inline constexpr int32_t kInterleaved = -1, kAllChannels = -2;

struct FormatWrite {
  enum class What : uint8_t { Header, Metadata, Payload };
  What what = What::Payload;
  uint32_t file = 0;     // index into Layout::file_names()
  uint64_t offset = 0;   // byte offset in that file
  uint64_t bytes = 0;
  // Payload: kInterleaved = frames as acquired; kAllChannels = every channel's
  // samples one channel after the other (TDMS); >= 0: that channel's samples.
  int32_t channel = kInterleaved;
  uint64_t first_frame = 0;  // Payload: stream frame index of the first sample
  std::vector<uint8_t> data;  // Header/Metadata: exactly `bytes` bytes; Payload: empty
};

struct LayoutOptions {
  FormatKind kind = FormatKind::Raw;
  StreamSpec stream;
  std::string base_name = "rec";  // files are base_name + ".w64", base_name + "_ch01.raw", ...
  // Rewrite the header with the sizes so far every this many frames (0 = only
  // in finish()). Crash-tolerant recorders (libsndfile's auto header update)
  // do this; it adds a write at the start of the file, away from the data.
  uint64_t header_every_frames = 0;
  bool tdms_index = true;  // TDMS: also write the .tdms_index file, as LabVIEW does
  // Start a new set of files (rec_002.w64, ...) before the main file would
  // pass this many bytes, as recorders do on FAT32 (0 = never). The new
  // files appear in file_names() as append() creates them.
  uint64_t split_bytes = 0;
};

class Layout {
 public:
  virtual ~Layout() = default;
  const std::vector<std::string>& file_names() const { return names_; }
  // Opening writes (headers), after the files are created.
  virtual void begin(std::vector<FormatWrite>& out) = 0;
  // Writes storing the next `frames` frames. frames <= frames_left().
  void append(uint64_t frames, std::vector<FormatWrite>& out);
  // Closing writes (header patches with the final sizes).
  virtual void finish(std::vector<FormatWrite>& out) = 0;
  // Frames the format can still hold before its size limit (UINT64_MAX: none).
  uint64_t frames_left() const;
  // Names the limit frames_left() counts down to ("WAV: 4 GiB RIFF size"), or "".
  virtual std::string limit_name() const { return {}; }
  uint64_t frames_written() const { return frames_; }
  // After a write failed part-way (EFBIG, ENOSPC): only `frames` frames are
  // complete, so finish() must describe those. Never raises the count.
  void truncate_frames(uint64_t frames) { frames_ = std::min(frames_, frames); }
  uint64_t file_size(uint32_t file) const { return sizes_[file]; }
  uint64_t header_bytes_written() const { return header_bytes_; }
  // Payload bytes per appended frame (TDMS widens 24-bit samples to 32 bits).
  uint64_t payload_frame_bytes() const { return uint64_t{opt_.stream.channels} * stored_sample_bytes_; }
  // Plain appends (the simulator's steady stretches, sim/recorder.cpp): up
  // to `max_frames` more frames, appended in any pieces, each become one
  // interleaved payload write to `file` right after the one before (the
  // next at `offset`), with no other write (no header rewrite, no new file).
  // False if the layout's appends are not like that.
  struct PlainAppends {
    uint32_t file = 0;
    uint64_t offset = 0, max_frames = 0;
  };
  bool plain_appends(PlainAppends& p) const;

 protected:
  explicit Layout(const LayoutOptions& opt);
  virtual void append_frames(uint64_t frames, std::vector<FormatWrite>& out) = 0;
  virtual uint64_t max_frames() const { return UINT64_MAX; }
  // The file and offset of the next frame's payload if append_frames writes
  // nothing but one interleaved payload write of each piece (plain_appends).
  virtual bool plain_payload(uint32_t& /*file*/, uint64_t& /*offset*/) const { return false; }
  // Emits a header/metadata write and tracks the file's size.
  void put(std::vector<FormatWrite>& out, FormatWrite::What what, uint32_t file, uint64_t offset,
           std::vector<uint8_t> data);
  void put_payload(std::vector<FormatWrite>& out, uint32_t file, uint64_t offset, uint64_t bytes, int32_t channel,
                   uint64_t first_frame);
  void add_file(std::string name) { names_.push_back(std::move(name)), sizes_.push_back(0); }
  // Copies a write of another layout, its file index shifted by `file_base`.
  void forward(std::vector<FormatWrite>& out, FormatWrite w, uint32_t file_base);
  friend class SplitLayout;
  // Rewrites the header (header_every_frames); default: finish()-style patch.
  virtual void rewrite_header(std::vector<FormatWrite>& out) {}

  LayoutOptions opt_;
  uint32_t stored_sample_bytes_;
  uint64_t frames_ = 0;  // frames appended so far

 private:
  std::vector<std::string> names_;
  std::vector<uint64_t> sizes_;
  uint64_t header_bytes_ = 0;
  uint64_t since_header_ = 0;
};

// Builds the layout. Fails (naming the option) when the format cannot hold
// the stream: e.g. WAV with more than 65535 channels, CAF float at 24 bits.
Result<std::unique_ptr<Layout>> make_layout(const LayoutOptions& opt);

// Little-endian / big-endian byte builders for the header code.
struct Bytes {
  std::vector<uint8_t> v;
  Bytes& raw(std::string_view s);
  Bytes& u16le(uint16_t x);
  Bytes& u32le(uint32_t x);
  Bytes& u64le(uint64_t x);
  Bytes& u16be(uint16_t x);
  Bytes& u32be(uint32_t x);
  Bytes& u64be(uint64_t x);
  Bytes& f64be(double x);
  Bytes& zeros(size_t n);
};

}  // namespace sd
