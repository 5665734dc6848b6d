// How a probe point's source file is written in perf syntax ("walk:5@FILE").
#pragma once

#include <cstdint>
#include <string>

#include "dwarf/debug_info.h"

namespace kpp {

// "@" plus the file as perf probe shows it: the whole path when it is at
// most 30 characters, else what follows the first '/' of its last 30
// (synthesize_perf_probe_point in perf), so that --list lines match perf's.
// Empty for an empty path.
std::string perf_file_suffix(const std::string &path);

// The probe point at `address` as perf writes it from DWARF: the function
// alone at its entry, else "func:RLN" (the line counted from the function's
// first line) when the line is known, then "@file" and "%return". What
// --list shows and what --add says of a line probe, so that the two agree.
std::string perf_point(const dwarf::SourcePlace &place, uint64_t address, bool is_return);

}  // namespace kpp
