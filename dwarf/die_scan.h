// A fast scan of every unit's DIEs for the functions that have code, on
// all cores. LLVM's DWARFContext materialises every DIE of every unit it
// touches (seconds and ~700 MB on a vmlinux); this reads the raw sections,
// decodes only the attributes it needs and jumps over type subtrees by their
// DW_AT_sibling. It works on linked files (executables, shared objects, a
// vmlinux): a relocatable object's DWARF holds unrelocated values, and the
// caller uses LLVM for those.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "src/util/result.h"

namespace kpp::dwarf {

// The raw bytes of the sections the scan reads (empty when absent).
struct DwarfBytes {
  std::string_view info, abbrev, str, line_str, str_offsets;
};

// A DIE with code: an out-of-line subprogram (named directly, or through its
// DW_AT_abstract_origin or DW_AT_specification) or an inlined copy.
struct ScannedFunction {
  std::string_view name;  // points into `DwarfBytes::str` (or .debug_info for DW_FORM_string)
  uint64_t die_offset = 0;
  bool inlined = false;
};

// Every such DIE, ordered by offset, found with `threads` threads.
// Errors: a malformed unit header, abbreviation table or DIE (with its offset).
Result<std::vector<ScannedFunction>> scan_functions(const DwarfBytes &bytes, unsigned threads);

}  // namespace kpp::dwarf
