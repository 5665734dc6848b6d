// Inlined copies read raw (dwarf/raw/raw_inlined_copy.h), without LLVM
// reading the copy's unit, and made Functions as LLVM's DIEs make them
// (inlined_copies.cpp). A copy's own DIE says where its code is and which
// function's frame it runs in; its name, declaration and linkage name are
// its abstract origin's, which LLVM reads once for all the copies of a
// function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "dwarf/debug_info.h"
#include "dwarf/raw/raw_unit.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

// A function a scan by name found, as find_functions() keeps or drops it:
// the Function, its linkage name and whether it is a copy inlined into its
// own body (die_links.h). From an LLVM DIE, or an inlined copy read raw.
struct FoundFunction {
  Function function;
  std::string linkage_name;
  bool inlined_into_itself = false;
  size_t position = 0;  // read raw: how many DIEs the scan found before it (the index's order)
};

class InlinedCopies {
 private:
  struct OriginFacts {
    bool valid = false;  // LLVM reads a DIE there
    std::string name, linkage_name, decl_file;
    int decl_line = 0;
    uint64_t root = 0;  // origin_root()'s offset
  };

 public:
  InlinedCopies(DwarfFiles &files, UnitChecks &checks, SplitUnits &split)  // the parts outlive this
      : files_(files), checks_(checks), split_(split) {}

  // What LLVM read of the origins of the copies read so far in one scan.
  using Origins = std::unordered_map<uint64_t, OriginFacts>;
  // The inlined copy whose DIE is at `offset`, read raw; nullopt when LLVM
  // is to read it: a relocatable object, a big-endian file, a split unit's
  // copy, a copy whose origin is in its own unit, or one not read raw.
  std::optional<FoundFunction> read(uint64_t offset, Origins &origins);

 private:
  bool origin_elsewhere(uint64_t offset);
  const OriginFacts &origin_facts(uint64_t offset, Origins &origins);
  bool links_reach(uint64_t body, std::optional<uint64_t> first_link, uint64_t root);
  const RawUnit *raw_unit_holding(uint64_t offset);

  DwarfFiles &files_;
  UnitChecks &checks_;
  SplitUnits &split_;
  std::unordered_map<uint64_t, std::optional<RawUnit>> raw_units_;  // by unit offset
};

}  // namespace kpp::dwarf
