// DwarfProvenance (dwarf/dwarf_provenance.h) as the parts of LlvmDebugInfo
// know it: the files the DWARF is read from (dwarf/source/dwarf_files.h),
// the split units (dwarf/source/split_units.h), the function index
// (dwarf/index/function_index.h).
#pragma once

#include "dwarf/dwarf_provenance.h"
#include "dwarf/index/function_index.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"

namespace kpp::dwarf {

class FileProvenance final : public DwarfProvenance {
 public:
  // The parts outlive this.
  FileProvenance(DwarfFiles &files, SplitUnits &split, const FunctionIndex &index)
      : files_(files), split_(split), index_(index) {}

  const std::string &debug_path() const override { return files_.debug_path(); }
  std::string dwarf_note() const override { return files_.no_dwarf_note(); }
  std::string awaited_debug_file() const override { return files_.awaited_build_id(); }
  IndexSource index_source() const override { return index_.source(); }
  std::string index_note() const override {
    std::string note = index_.note();
    // Why the cache is not used, unless the index's note says it already.
    const std::string &refused = files_.cache_refused();
    if (!refused.empty() && note.find(refused) == std::string::npos)
      note = note.empty() ? refused : refused + "\n  " + note;
    return note;
  }
  std::vector<std::string> dwarf_problems() const override { return files_.problems(); }
  std::string missing_split_dwarf() override { return split_.missing(); }
  std::string split_dwarf_source() override { return split_.source(); }
  std::string unread_supplementary() override { return files_.unread_supplementary(); }

 private:
  DwarfFiles &files_;
  SplitUnits &split_;
  const FunctionIndex &index_;
};

}  // namespace kpp::dwarf
