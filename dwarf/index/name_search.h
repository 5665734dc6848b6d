// Which units of a file can name a function, found by searching bytes
// instead of reading DIEs.
//
// A DIE names a function with DW_FORM_strp (an offset into .debug_str) or
// DW_FORM_string (the name's bytes inline). So every unit that holds a DIE
// named `name` (its body, a declaration, the abstract origin an inlined copy
// points to) holds either the name's bytes or one of the offsets at which
// .debug_str holds them. One search of .debug_str finds those offsets, one
// search of .debug_info finds the units: on a vmlinux (156 MB of
// .debug_info) ~15 ms on two cores, where reading every unit's DIEs takes
// ~250 ms. The units found are a superset (an offset's bytes can occur in
// other data); the caller reads their DIEs.
//
// It answers only for DWARF a byte search sees whole: not for string
// indexes (DW_FORM_strx, .debug_str_offsets: clang's DWARF 5), 64-bit
// DWARF, or references between units (LTO's DW_FORM_ref_addr origins: an
// inlined copy can then be in a unit that never names the function).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/raw/die_scan.h"

namespace kpp::dwarf {

// The file the sections are mapped from: a pass over a large section reads
// it with pread(2), cheaper than faulting the mapping in. fd < 0, or a
// section outside `mapping` (a decompressed copy): searched in memory.
struct MappedFile {
  int fd = -1;
  std::string_view mapping;
};

// A name as units_that_may_name looks for it: the name itself, or with
// `prefix` any name that starts with it ("max<" for max's instances).
struct NameSpelling {
  std::string name;
  bool prefix = false;
};

// The offsets of the units (of `units`, in order) whose bytes may name one
// of `spellings`, in order; nullopt when the file's DWARF is of a kind the
// search cannot answer for (the caller reads every unit) or `file` cannot be
// read. All spellings are looked for in one pass over each section.
// `done_with` is called with the bytes searched in memory, as
// scan_functions() does.
std::optional<std::vector<uint64_t>> units_that_may_name(const DwarfBytes &bytes, const std::vector<UnitSpan> &units,
                                                         const std::vector<NameSpelling> &spellings, unsigned threads,
                                                         const MappedFile &file = {},
                                                         const std::function<void(std::string_view)> &done_with = {});
// One spelling: `name` (with `prefix`, any name that starts with it).
inline std::optional<std::vector<uint64_t>> units_that_may_name(const DwarfBytes &bytes, const std::vector<UnitSpan> &units,
                                                                std::string_view name, bool prefix, unsigned threads,
                                                                const MappedFile &file = {},
                                                                const std::function<void(std::string_view)> &done_with = {}) {
  return units_that_may_name(bytes, units, {NameSpelling{std::string(name), prefix}}, threads, file, done_with);
}

// The positions in .debug_line where a line table's header may name a file
// whose last path component is `component` ("read_write.c"): its bytes, or
// an offset of a path ending with it in .debug_line_str or .debug_str; in
// order. The caller maps them to the tables that hold them. nullopt as
// units_that_may_name(); `units` (every unit of .debug_info) say which
// abbreviation tables that looks at.
std::optional<std::vector<uint64_t>> line_positions_naming(const DwarfBytes &bytes, const std::vector<UnitSpan> &units,
                                                           std::string_view component, unsigned threads,
                                                           const MappedFile &file = {});

// Every position in `section` where one of `needles` starts, in order, on
// `threads` threads taking 1 MB chunks in turn (a hit belongs to the chunk
// it starts in). A section inside `file.mapping` is read with pread(2) into
// each thread's buffer: mapping 156 MB of .debug_info page by page cost
// more than the search itself (faults, and giving the pages back), and a
// pass over a symbol table should not leave it all resident. nullopt when
// the file cannot be read. `done_with` is called with the bytes searched in
// memory.
std::optional<std::vector<uint64_t>> find_in_section(std::string_view section, const std::vector<std::string> &needles,
                                                     unsigned threads, const MappedFile &file,
                                                     const std::function<void(std::string_view)> &done_with = {});

// Every position in `haystack` where `needle` (at least one byte) starts,
// in order.
std::vector<uint64_t> find_all(std::string_view haystack, std::string_view needle);

}  // namespace kpp::dwarf
