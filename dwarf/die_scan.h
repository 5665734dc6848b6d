// A fast scan of every unit's DIEs for the functions that have code, on
// all cores. LLVM's DWARFContext materialises every DIE of every unit it
// touches (seconds and ~700 MB on a vmlinux); this reads the raw sections,
// decodes only the attributes it needs and jumps over type subtrees by their
// DW_AT_sibling. It works on linked files (executables, shared objects, a
// vmlinux): a relocatable object's DWARF holds unrelocated values, and the
// caller uses LLVM for those.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "src/util/result.h"

namespace kpp::dwarf {

// The raw bytes of the sections the scan reads (empty when absent).
struct DwarfBytes {
  std::string_view info, abbrev, str, line_str, str_offsets, line;
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
// may give their pages back (dwarf/mapped_object.h). The names in the result
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

// The line table (DW_AT_stmt_list) of each of the units of `bytes` at
// `unit_offsets` that has one, read from their unit DIEs alone: (line table
// offset, unit offset), in the units' order.
std::vector<std::pair<uint64_t, uint64_t>> unit_line_tables(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets);

// The attributes of one DIE that a type chain needs, read raw.
struct RawDie {
  uint16_t tag = 0;
  std::optional<uint64_t> type;    // DW_AT_type, a DIE of the same unit
  std::optional<uint64_t> origin;  // DW_AT_abstract_origin or DW_AT_specification, the same
  std::optional<uint64_t> low_pc;  // DW_FORM_addr only
  std::optional<uint64_t> byte_size, encoding;
};

// One unit of a linked file, read raw (no LLVM, no other unit): a FUNC%return
// $retval needs one subprogram's type, which LLVM would find only after
// reading every unit header and all of this unit's DIEs. Copies share
// their parsed abbreviations.
class RawUnit {
 public:
  // nullopt for a unit that cannot be read (malformed, a type unit).
  static std::optional<RawUnit> open(const DwarfBytes &bytes, uint64_t unit_offset);
  // The DIE at `offset` (of .debug_info); nullopt outside the unit, or
  // when it refers to another unit.
  std::optional<RawDie> die_at(uint64_t offset) const;
  // The subprogram DIE whose DW_AT_low_pc is `address`.
  std::optional<uint64_t> subprogram_at(uint64_t address) const;
  uint8_t address_size() const;

 private:
  struct Parts;
  DwarfBytes bytes_;
  std::shared_ptr<Parts> parts_;
};

// The offset of the unit whose .debug_aranges entry covers `address`, from
// the raw section; nullopt when none does (or the section is malformed).
std::optional<uint64_t> unit_at_address(std::string_view aranges, uint64_t address);

// Where a unit of .debug_info lies, as its header says.
struct UnitSpan {
  uint64_t offset = 0;
  uint64_t end = 0;
  uint8_t offset_size = 4;  // 8: 64-bit DWARF
  uint8_t version = 0;
  bool skeleton = false;  // a DWARF 5 skeleton unit (-gsplit-dwarf): its DIEs are elsewhere
};

// The last component of `path` ("read_write.c" for "fs/read_write.c").
std::string_view last_path_component(std::string_view path);

}  // namespace kpp::dwarf
