// Trace readers: each turns one format into an OpList (ops.h). Errors are
// values (STYLE.md 7) and name the file and line: "trace.txt:12: ...".
//
//   native        models/trace.h CSV ("# streamdisk-trace 1")
//   fio-iolog     fio's write_iolog output, version 2 (no times) or 3 (usec)
//   strace        `strace -f -tt -T -e trace=openat,write,pwrite64,lseek,
//                 fsync,fdatasync,close,ftruncate,fallocate[,dup2,dup3,fcntl]`
#pragma once
#include <istream>
#include <string>

#include "models/status.h"
#include "replay/ops.h"

namespace sd {

enum class TraceFormat { Auto, Native, FioIolog, Strace };

// "auto", "native", "fio", "strace"; nullopt-like error for anything else.
Result<TraceFormat> trace_format_from_name(const std::string& s);
// Guesses the format from the first non-empty lines; an error names the
// formats it knows and the --format option.
Result<TraceFormat> detect_trace_format(std::istream& in, const std::string& name);

Result<OpList> read_native_ops(std::istream& in, const std::string& name);
Result<OpList> read_fio_iolog(std::istream& in, const std::string& name);
Result<OpList> read_strace(std::istream& in, const std::string& name);

// Opens `path`, detects the format if `fmt` is Auto, and reads it.
Result<OpList> read_ops_file(const std::string& path, TraceFormat fmt = TraceFormat::Auto);

}  // namespace sd
