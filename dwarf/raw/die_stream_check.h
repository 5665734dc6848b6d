// Every unit's DIE stream checked against its abbreviations before LLVM
// reads it (issue 12 item 4). LLVM 19 skips an attribute's value by adding
// its size to the offset without comparing it with the section's end
// (DWARFFormValue::skipValue, DWARFDebugInfoEntry::extractFast); the next
// LEB128 it decodes then runs through memory past the section: a SIGSEGV
// on a damaged unit (tests/fuzz/regressions/tool/skipvalue_segv_*). Here
// every DIE of every unit is walked with LLVM's sizes for each form: every
// abbreviation code is defined, every form is one LLVM knows, and every
// value ends inside its unit. A file that fails is refused whole, with the
// unit, the DIE and the attribute named: its other units may be fine, but
// LLVM reads units it was not asked about (an address lookup without
// .debug_aranges reads them all).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/debug_info.h"
#include "util/result.h"

namespace llvm {
class DWARFContext;
class DWARFObject;
struct DWARFSection;
}

namespace kpp::dwarf {

// Units one after the other, as in .debug_info or .debug_types (or one
// .dwp contribution of them), and the abbreviations their headers' offsets
// count from.
struct DieStream {
  std::string_view info;
  std::string_view abbrev;
  bool type_units = false;  // .debug_types: DWARF 4 headers carry a signature and a type offset
  std::string_view name;    // the section, for messages (".debug_info")
  uint64_t base = 0;        // where `info` starts in that section, for messages
  // The value of the `size`-byte field at `offset` of `info` after the
  // section's relocations (a kernel module's units name their abbreviations
  // through one); null: the bytes as they are.
  std::function<uint64_t(uint64_t offset, unsigned size)> relocated;
};

// `section` of `object` (units of .debug_info, .debug_types or a .dwo's) as
// LLVM holds it: decompressed, its header fields read through the section's
// relocations as LLVM reads a .ko's. `name` must outlive the stream.
DieStream section_stream(const llvm::DWARFObject &object, const llvm::DWARFSection &section, std::string_view abbrev,
                         bool type_units, std::string_view name);

// Ok when LLVM can read every DIE of `stream` without leaving its unit.
// The error names `file`, the section, the unit and the DIE (offsets in hex).
Status check_die_stream(const DieStream &stream, const std::string &file,
                        const std::function<void(std::string_view)> &done_with = {});

// check_die_stream over every unit `context` holds (.debug_info,
// .debug_types, and a .dwo's), as LLVM holds them: decompressed.
// `done_with`, when given, is called with bytes the check has finished
// reading (each unit once checked, the headers' walk as it goes): the
// caller may give their pages back (dwarf/elf/mapped_object.h).
Status check_context_dies(const llvm::DWARFContext &context, const std::string &file,
                          const std::function<void(std::string_view)> &done_with = {});
// The same, throwing DamagedDwarf (dwarf/debug_info.h) for the first unit that fails.
void refuse_damaged_dies(const llvm::DWARFContext &context, const std::string &file,
                         const std::function<void(std::string_view)> &done_with = {});

// One stream's units checked as LLVM comes to read them, for queries that
// read few of a file's units: a function probe on a vmlinux reads one unit
// of ~2,170 (a few hundred KB of 160 MB of DIEs), and checking them all
// cost it 0.4 s of CPU on every run without the cache.
class UnitGate {
 public:
  // A unit as LLVM read its header (LLVM reads them all to find a unit).
  struct Unit {
    uint64_t offset = 0, dies = 0, end = 0;  // of its header, its first DIE, its end, in the stream
    uint64_t abbrev_offset = 0;
    unsigned address_size = 8, offset_size = 4, version = 4;
  };
  // The gate over `units` of `stream`; with `unit_dies`, each unit's first
  // DIE is checked here: LLVM reads the unit DIE of each unit that
  // .debug_aranges leaves out, to learn its addresses (false: an earlier
  // run found them sound). The headers are not read again: their pages
  // are the ones dwarf/elf/mapped_object.h mapped alone.
  static Result<UnitGate> open(DieStream stream, std::string file, const std::vector<Unit> &units, bool unit_dies = true);
  // Checks the unit whose header is at `offset` whole, the first time.
  // True: LLVM may read it. False: its DIEs name DIEs of other units
  // (DW_FORM_ref_addr, DW_FORM_ref_sig8), which LLVM reads unchecked when a
  // query follows them, or no unit starts there: check every unit instead.
  Result<bool> enter(uint64_t offset);

  UnitGate(UnitGate &&) noexcept;
  UnitGate &operator=(UnitGate &&) noexcept;
  ~UnitGate();

 private:
  struct State;
  explicit UnitGate(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// check_die_stream over the units of a .dwp package `package` (a context
// made on it alone), each row of its unit indexes with the abbreviations
// of its own contribution. Ok for a file without indexes.
Status check_package_dies(llvm::DWARFContext &package, const std::string &file);

}  // namespace kpp::dwarf
