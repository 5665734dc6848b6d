// What the function index reads of the DWARF (dwarf/index/function_index.h),
// given by the parts that hold it: the files (the raw sections, the file for
// pread(2) searches), the unit checks (the units' spans) and the split
// units. The index asks these parts, not the LlvmDebugInfo that owns it.
#pragma once

#include "dwarf/index/function_index.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class IndexInputs final : public IndexedDwarf {
 public:
  // The parts outlive this.
  IndexInputs(DwarfFiles &files, UnitChecks &checks, SplitUnits &split)
      : files_(files), checks_(checks), split_(split) {}

  DwarfBytes raw_dwarf() override { return files_.raw_dwarf(); }
  MappedFile searched_file() override { return files_.searched_file(); }
  std::vector<UnitSpan> unit_spans() override;
  std::vector<SplitUnitBytes> split_unit_bytes(size_t &skeletons) override { return split_.unit_bytes(skeletons); }
  void drop_mapped_pages() override { files_.drop_mapped_pages(); }

 private:
  DwarfFiles &files_;
  UnitChecks &checks_;
  SplitUnits &split_;
};

}  // namespace kpp::dwarf
