// What the trace-cmd installed on this machine can read, asked of the
// program itself (`trace-cmd list -c`): its libtracecmd is linked into it,
// so the library kprobe-probe links says nothing about it. Debian 12's
// trace-cmd 3.1.6 lists only zstd, so a zlib version 7 file written here
// would not open in it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kpp::tracedat {

// The compression names `trace-cmd list -c` prints ("zstd", ...), or nothing
// when trace-cmd cannot be run (not installed, or it failed). Reads at most
// 64 KiB of its output.
std::optional<std::vector<std::string>> trace_cmd_compressions();

// "the trace-cmd installed here cannot read zlib-compressed trace.dat files
// (it reads: zstd)" when trace-cmd is installed and does not list
// `compression`; empty otherwise (also for "none" and "", which every
// version 7 reader opens).
std::string unreadable_compression_warning(const std::string &compression);

}  // namespace kpp::tracedat
