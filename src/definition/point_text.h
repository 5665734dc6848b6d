// How a probe point's source file is written in perf syntax ("walk:5@FILE").
#pragma once

#include <string>

namespace kpp {

// "@" plus the file as perf probe shows it: the whole path when it is at
// most 30 characters, else what follows the first '/' of its last 30
// (synthesize_perf_probe_point in perf), so that --list lines match perf's.
// Empty for an empty path.
std::string perf_file_suffix(const std::string &path);

}  // namespace kpp
