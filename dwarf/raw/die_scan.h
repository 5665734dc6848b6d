// A fast scan of every unit's DIEs for the functions that have code, on
// all cores. LLVM's DWARFContext materialises every DIE of every unit it
// touches (seconds and ~700 MB on a vmlinux); this reads the raw sections,
// decodes only the attributes it needs and jumps over type subtrees by their
// DW_AT_sibling. It works on linked files (executables, shared objects, a
// vmlinux): a relocatable object's DWARF holds unrelocated values, and the
// caller uses LLVM for those. The bytes are read with the raw reader
// (raw_*.h), which also serves single-unit reads (raw_unit.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "dwarf/raw/raw_sections.h"
#include "util/result.h"

namespace kpp::dwarf {

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

// A compilation unit of the file and the last path components of the files
// its line table names (its sources, headers, and every DW_AT_decl_file
// target), so that `SRC:ALN` parses only the line tables of units that name
// SRC. A skeleton unit (-gsplit-dwarf) is one: its split unit's lines are
// in its line table.
struct ScannedUnit {
  uint64_t offset = 0;                  // of the unit in .debug_info
  std::vector<std::string_view> files;  // sorted, unique; point into the sections
  bool files_known = true;              // false: the line table header could not be read (any file may match)
};

struct ScanResult {
  std::vector<ScannedFunction> functions;  // ordered by offset, then split units' by skeleton
  std::vector<ScannedUnit> units;          // compile units of `bytes` (not type units), ordered by offset
};

// Every such DIE of `bytes` (skeleton units' skipped) and of `split`, and
// every unit's file names, found with `threads` threads. `done_with`, when
// given, is called (on the scanning threads) with the bytes of each unit of
// `bytes` and of its line table header once they have been read: the caller
// may give their pages back (dwarf/elf/mapped_object.h). The names in the result
// may still point into them.
// Errors: a malformed unit header, abbreviation table or DIE (with its offset).
Result<ScanResult> scan_functions(const DwarfBytes &bytes, const std::vector<SplitUnitBytes> &split, unsigned threads,
                                  const std::function<void(std::string_view)> &done_with = {});
inline Result<ScanResult> scan_functions(const DwarfBytes &bytes, unsigned threads) {
  return scan_functions(bytes, {}, threads);
}

// scan_functions over the units of `bytes` at `unit_offsets` alone (none split).
Result<ScanResult> scan_functions_in(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets, unsigned threads,
                                     const std::function<void(std::string_view)> &done_with = {});

// Where a unit of .debug_info lies, as its header says.
struct UnitSpan {
  uint64_t offset = 0;
  uint64_t end = 0;
  uint8_t offset_size = 4;  // 8: 64-bit DWARF
  uint8_t version = 0;
  bool skeleton = false;  // a DWARF 5 skeleton unit (-gsplit-dwarf): its DIEs are elsewhere
  uint64_t abbrev_offset = 0;  // of its abbreviation table in .debug_abbrev
};

}  // namespace kpp::dwarf
