// Whole files read into memory: the one reader for small files the tool
// reads at once (tracefs and procfs files, BTF, kallsyms, build-id notes).
#pragma once

#include <string>

#include "util/result.h"

namespace kpp {

// The bytes of the file at `path`, read with read(2) to its end (a procfs or
// tracefs file's size says nothing). Errors: "cannot read PATH: REASON".
Result<std::string> read_whole_file(const std::string &path);

// The same, "" when the file cannot be read (a file whose absence means
// "nothing there": a tracefs file of a feature the kernel lacks).
std::string read_file_or_empty(const std::string &path);

}  // namespace kpp
