// Split DWARF (-gsplit-dwarf): the program's .debug_info holds only skeleton
// units (a name, the address ranges, the line table); each unit's DIEs are in
// a .dwo file named by DW_AT_dwo_name (DW_AT_GNU_dwo_name in gcc's DWARF 4
// extension) relative to DW_AT_comp_dir, or in a .dwp package that dwp or
// llvm-dwp made from them, next to the program as <program>.dwp. LLVM reads
// both once asked (getNonSkeletonUnitDIE); here we ask, name the split units'
// DIEs by handles (split_handle.h), and say what is missing when they are not
// found.
#include <sys/stat.h>

#include <set>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/Support/Path.h>

#include "dwarf/raw/die_stream_check.h"
#include "dwarf/source/split_handle.h"
#include "dwarf/source/split_units.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// Whether `unit` can be a skeleton. Looking for DW_AT_dwo_name in every
// unit DIE makes LLVM parse every unit's abbreviations (~100 MB on a
// vmlinux, its DWARF 5 units each with a table of its own): a DWARF 5
// skeleton says so in its header, and a DWARF 4 one (GNU extension) reaches
// its code's addresses through .debug_addr, which the file then has.
bool may_be_skeleton(DWARFUnit &unit) {
  if (unit.getVersion() >= 5) return unit.getUnitType() == llvm::dwarf::DW_UT_skeleton;
  return !unit.getContext().getDWARFObj().getAddrSection().Data.empty();
}

// The .dwo a skeleton unit names, or empty for a unit that is not a skeleton.
std::string dwo_name_of(DWARFUnit &unit) {
  if (!may_be_skeleton(unit)) return {};
  DWARFDie die = unit.getUnitDIE();
  if (!die.isValid()) return {};
  auto name = die.find({llvm::dwarf::DW_AT_dwo_name, llvm::dwarf::DW_AT_GNU_dwo_name});
  std::optional<const char *> text = llvm::dwarf::toString(name);
  return text && *text ? *text : "";
}

// Where LLVM looks for the DWO of `skeleton`: the package first, then the
// name from the unit (under its DW_AT_comp_dir when relative), then `alternative`.
std::vector<std::string> places_tried(DWARFUnit &skeleton, const std::string &dwo_name, const std::string &package,
                                      const std::string &alternative) {
  std::vector<std::string> places{package};
  SmallString<256> path;
  const char *dir = skeleton.getCompilationDir();
  if (sys::path::is_relative(dwo_name) && dir && *dir) sys::path::append(path, dir);
  sys::path::append(path, dwo_name);
  places.push_back(std::string(path));
  if (alternative != places.back()) places.push_back(alternative);
  return places;
}

std::string_view view(StringRef s) { return {s.data(), s.size()}; }

// LLVM reads a .dwo or .dwp whole: a name in hostile DWARF that leads to a
// FIFO or a device (/dev/zero) would block it or never end, and it trusts
// the headers of what it reads (a .dwp's unit index, compressed sizes). Only
// nothing, or a regular file whose headers hold (open_mapped_object checks
// them, dwarf/elf/elf_bounds.h), may be there.
// Returns why `path` must not be read, or "" when it may.
std::string unsafe_to_read(const std::string &path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  auto opened = open_mapped_object(path);
  if (!opened) return opened.error().message;
  // Its units, before LLVM reads them (dwarf/raw/die_stream_check.h).
  // Its sections as they are: a split file's DWARF needs no relocation.
  auto context = DWARFContext::create(*opened->binary.getBinary(), DWARFContext::ProcessDebugRelocations::Ignore, nullptr,
                                      "", [](llvm::Error e) { consumeError(std::move(e)); },
                                      [](llvm::Error e) { consumeError(std::move(e)); });
  Status dies = check_context_dies(*context, path);
  if (dies) dies = check_package_dies(*context, path);
  return dies ? "" : dies.error().message;
}

}  // namespace

// A program that moved away from its build tree keeps its .dwo files beside
// it: that is the place tried when DW_AT_comp_dir's is not there.
static std::string beside_program(const std::string &program, const std::string &dwo_name) {
  SmallString<256> path(sys::path::parent_path(program));
  sys::path::append(path, sys::path::filename(dwo_name));
  return std::string(path);
}

std::optional<uint64_t> SplitUnits::skeleton_index(const DWARFUnit *unit) {
  if (skeleton_indexes_.empty()) {
    DWARFContext &units = checks_.unit_dwarf();
    for (uint32_t i = 0; i < units.getNumCompileUnits(); ++i) skeleton_indexes_[units.getUnitAtIndex(i)] = i;
  }
  auto it = skeleton_indexes_.find(unit);
  if (it == skeleton_indexes_.end()) return std::nullopt;
  return it->second;
}

DWARFUnit *SplitUnits::split_unit(uint64_t index) {
  auto [it, fresh] = split_units_.try_emplace(index, nullptr);
  // The skeleton's unit DIE alone is read here (unit_dwarf() checked it).
  if (!fresh || index >= checks_.unit_dwarf().getNumCompileUnits()) return it->second;
  DWARFUnit *skeleton = checks_.unit_dwarf().getUnitAtIndex(static_cast<uint32_t>(index));
  std::string name = dwo_name_of(*skeleton);
  if (name.empty()) return nullptr;
  std::string alternative = beside_program(program_, name);
  for (const std::string &place : places_tried(*skeleton, name, program_ + ".dwp", alternative)) {
    auto [checked, first_time] = files_refused_.try_emplace(place);
    if (first_time) checked->second = unsafe_to_read(place);  // a .dwp serves every unit: checked once
    if (!checked->second.empty()) return nullptr;
  }
  DWARFDie die = skeleton->getNonSkeletonUnitDIE(true, alternative);
  // A unit LLVM could not read whole answers nothing (tests/fuzz found
  // null DIEs in units whose unit DIE is unreadable).
  if (die.isValid() && die.getDwarfUnit()->isDWOUnit()) it->second = die.getDwarfUnit();
  return it->second;
}

DWARFDie SplitUnits::die_at(uint64_t handle) {
  if (!is_split_handle(handle)) {
    // Its compile unit alone is checked when no other is needed (a type unit's DIE: all are).
    DWARFCompileUnit *unit = checks_.unit_dwarf().getCompileUnitForOffset(handle);
    if (!unit) return checks_.dwarf().getDIEForOffset(handle);
    checks_.enter(*unit);
    return unit->getDIEForOffset(handle);
  }
  DWARFUnit *unit = split_unit(split_skeleton_index(handle));
  if (!unit) return {};
  return unit->getDIEForOffset(unit->getOffset() + split_offset_in_unit(handle));
}

uint64_t SplitUnits::handle_of(DWARFDie die) {
  if (!die.isValid()) return 0;
  DWARFUnit *unit = die.getDwarfUnit();
  if (!unit->isDWOUnit()) return die.getOffset();
  std::optional<uint64_t> index = skeleton_index(unit->getLinkedUnit());
  return index ? split_handle(*index, die.getOffset() - unit->getOffset()) : 0;
}

std::vector<SplitUnitBytes> SplitUnits::unit_bytes(size_t &skeletons) {
  std::vector<SplitUnitBytes> units;
  skeletons = 0;
  for (uint32_t i = 0; i < checks_.unit_dwarf().getNumCompileUnits(); ++i) {
    if (dwo_name_of(*checks_.unit_dwarf().getUnitAtIndex(i)).empty()) continue;
    ++skeletons;
    DWARFUnit *unit = split_unit(i);
    if (!unit) continue;
    const DWARFObject &dwo = unit->getContext().getDWARFObj();
    SplitUnitBytes s;
    s.bytes.info = view(unit->getInfoSection().Data);
    s.bytes.abbrev = view(dwo.getAbbrevDWOSection());
    s.bytes.str = view(unit->getStringSection());
    s.bytes.str_offsets = view(unit->getStringOffsetSection().Data);
    s.unit_offset = unit->getOffset();
    s.abbrev_offset = unit->getAbbreviationsOffset();
    if (auto contribution = unit->getStringOffsetsTableContribution()) s.str_offsets_base = contribution->Base;
    s.handle_base = split_handle(i, 0);
    units.push_back(s);
  }
  return units;
}

std::string SplitUnits::source() {
  size_t skeletons = 0, found = 0;
  std::set<std::string> files;
  for (uint32_t i = 0; i < checks_.unit_dwarf().getNumCompileUnits(); ++i) {
    if (dwo_name_of(*checks_.unit_dwarf().getUnitAtIndex(i)).empty()) continue;
    ++skeletons;
    if (DWARFUnit *unit = split_unit(i)) {
      ++found;
      files.insert(unit->getContext().getDWARFObj().getFileName().str());
    }
  }
  if (skeletons == 0) return {};
  std::string text = "split DWARF: " + std::to_string(found) + " of " + std::to_string(skeletons) + " units";
  if (files.size() == 1) return text + " from '" + *files.begin() + "'";
  return files.empty() ? text : text + " from " + std::to_string(files.size()) + " .dwo files";
}

std::string SplitUnits::missing() {
  std::string package = program_ + ".dwp";
  size_t skeletons = 0, missing = 0;
  std::string listed;
  for (uint32_t i = 0; i < checks_.unit_dwarf().getNumCompileUnits(); ++i) {
    DWARFUnit *skeleton = checks_.unit_dwarf().getUnitAtIndex(i);
    std::string name = dwo_name_of(*skeleton);
    if (name.empty()) continue;
    ++skeletons;
    if (split_unit(i)) continue;
    if (++missing > 3) continue;  // the first few name the problem well enough
    listed += "\n    '" + name + "'; tried:";
    const char *separator = " ";
    for (const std::string &place : places_tried(*skeleton, name, package, beside_program(program_, name))) {
      listed += separator + place;
      if (auto refused = files_refused_.find(place); refused != files_refused_.end() && !refused->second.empty())
        listed += " (not read: " + refused->second + ")";
      separator = ", ";
    }
  }
  if (missing == 0) return {};
  std::string text = "the debug information of " + std::to_string(missing) + " of " + std::to_string(skeletons) +
                     " units of '" + program_ + "' is in split DWARF files that were not found:" + listed;
  if (missing > 3) text += "\n    (and " + std::to_string(missing - 3) + " more)";
  // The skeletons give line tables and address ranges but no function
  // DIEs, and every probe starts from one: only the symbol table is left.
  return text + "\n  without them only -F works (it reads the program's symbol table); put the .dwo files where "
                "DW_AT_comp_dir says or beside the program, or make '" + package + "' with llvm-dwp or dwp";
}

}  // namespace kpp::dwarf
