// Which of the DWARF's units LLVM may read (private to dwarf/; how, in
// unit_checks.cpp): LLVM 19 reads past a damaged unit's end, so the units
// are checked (dwarf/raw/die_stream_check.h) before LLVM reads their DIEs.
// Each way in throws DamagedDwarf when it meets a damaged unit, and so does
// every later query.
#pragma once

#include <optional>
#include <string>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/raw/die_stream_check.h"
#include "dwarf/source/dwarf_files.h"

namespace kpp::dwarf {

class UnitChecks {
 public:
  // `files` outlives this.
  explicit UnitChecks(DwarfFiles &files) : files_(files) {}

  // Every unit checked.
  llvm::DWARFContext &dwarf();
  // The unit headers and unit DIEs checked; a unit's other DIEs once
  // enter() has checked it (or, when it names DIEs elsewhere, every unit).
  llvm::DWARFContext &unit_dwarf();
  void enter(const llvm::DWARFUnit &unit);

 private:
  void check_every_unit();
  [[noreturn]] void refuse(Error damage);  // throws DamagedDwarf, and every later query too
  enum class Verdict { None, UnitDies, EveryDie };  // what an earlier run found sound
  Verdict cached_verdict();  // also names verdict_file_, where a new verdict goes
  void look_up_verdict();

  DwarfFiles &files_;
  Verdict verdict_ = Verdict::None;
  bool all_dies_checked_ = false, verdict_looked_up_ = false;
  std::optional<UnitGate> gate_;
  std::optional<Error> damaged_;  // what was found: every later query meets it too
  std::string verdict_file_;
  IndexKey verdict_key_;
  uint64_t verdict_max_bytes_ = 0;
};

}  // namespace kpp::dwarf
