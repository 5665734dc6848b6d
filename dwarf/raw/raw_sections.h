// The DWARF sections the raw reader (raw_*.h) and the function scan
// (die_scan.h) read, as bytes: they need no LLVM and no object file.
#pragma once

#include <string_view>

namespace kpp::dwarf {

// The raw bytes of the sections the scan reads (empty when absent).
struct DwarfBytes {
  std::string_view info, abbrev, str, line_str, str_offsets, line;
  std::string_view rnglists;  // DWARF 5's address ranges (dwarf/raw/raw_inlined_copy.h)
};

}  // namespace kpp::dwarf
