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
  uint64_t die_offset = 0;  // in .debug_info, or a split unit's DIE handle
  bool inlined = false;
};

// A split unit (-gsplit-dwarf): its DIEs are in a .dwo file or a .dwp
// package, which LLVM finds and whose contributions it knows; the scan reads
// them like any other unit. Its DIEs are named by handles (split_handle.h):
// `handle_base` plus the DIE's offset inside the unit.
struct SplitUnitBytes {
  DwarfBytes bytes;               // the .dwo sections of the file that holds it (info, abbrev, str, str_offsets)
  uint64_t unit_offset = 0;       // of its header in `bytes.info`
  uint64_t abbrev_offset = 0;     // of its abbreviation table (a .dwp's contribution is added)
  uint64_t str_offsets_base = 0;  // of its string offsets (split units have no DW_AT_str_offsets_base)
  uint64_t handle_base = 0;
};

// Every such DIE of `bytes` (skeleton units skipped) and of `split`, ordered
// by offset then by split unit, found with `threads` threads.
// Errors: a malformed unit header, abbreviation table or DIE (with its offset).
Result<std::vector<ScannedFunction>> scan_functions(const DwarfBytes &bytes, const std::vector<SplitUnitBytes> &split,
                                                    unsigned threads);
inline Result<std::vector<ScannedFunction>> scan_functions(const DwarfBytes &bytes, unsigned threads) {
  return scan_functions(bytes, {}, threads);
}

}  // namespace kpp::dwarf
