// The canonical frame address (CFA) rule at a pc, from one .eh_frame or
// .debug_frame section, without parsing the whole section (private to
// dwarf/ and its tests).
//
// LLVM's DWARFDebugFrame decodes every CIE and FDE with their instructions:
// on a distribution vmlinux that is ~1.5 s and ~250 MB for one stack
// variable. Here the first query walks only the entry headers (length, CIE
// id or pointer, pc_begin, pc_range) into a sorted index; a query then
// hands LLVM the one CIE and FDE that cover the pc and lets its UnwindTable
// run their instructions, so the rules are LLVM's own. Rows are cached per FDE.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/TargetParser/Triple.h>

#include "util/result.h"

namespace kpp::dwarf {

// CFA = DWARF register `reg` + `offset`.
struct CfaRule {
  int reg = 0;
  int64_t offset = 0;
  bool operator==(const CfaRule &) const = default;
};

class FrameTable {
 public:
  // `data` reads the section (through a DWARFObject when the section has
  // relocations to apply, as in a .ko); `section_address` is its link-time
  // address, the base of .eh_frame's pc-relative pointers.
  FrameTable(llvm::DWARFDataExtractor data, uint64_t section_address, bool is_eh, llvm::Triple::ArchType arch);

  // The CFA rule at `pc`; nullopt when no FDE of this section covers it (or
  // its rows start after pc). An error when the covering entry cannot be
  // read or its CFA is not a register plus an offset.
  Result<std::optional<CfaRule>> rule_at(uint64_t pc);

  // For tests and -v: how many FDEs the index holds, and how many had their
  // instructions decoded so far.
  size_t fde_count();
  size_t decoded_count() const { return rows_.size(); }

 private:
  // What a CIE header says (enough to read its FDEs' headers and to give LLVM).
  struct Cie {
    bool dwarf64 = false;
    uint64_t offset = 0, length = 0, end = 0;
    uint8_t version = 0;
    std::string augmentation;
    uint8_t address_size = 0, segment_size = 0;
    uint64_t code_align = 0;
    int64_t data_align = 0;
    uint64_t return_register = 0;
    std::string augmentation_data;
    bool has_z = false;  // 'z': FDEs carry an augmentation length
    uint8_t fde_encoding = 0;
    uint8_t lsda_encoding = 0xff;
    std::optional<uint32_t> personality_encoding;
    uint64_t instructions = 0;  // offset of the initial instructions
  };
  struct Fde {
    uint64_t begin = 0, end = 0;  // [pc_begin, pc_begin + pc_range)
    uint64_t offset = 0;          // entry offset in the section
    uint64_t cie = 0;             // its CIE's offset
  };
  // One row of an FDE's table: from `address` on, the CFA is `rule`
  // (or cannot be expressed, `ok` false).
  struct Row {
    uint64_t address = 0;
    bool ok = false;
    CfaRule rule;
  };

  void build_index();
  Result<const Cie *> cie_at(uint64_t offset);
  Result<std::vector<Row>> decode(const Fde &fde);
  std::optional<uint64_t> read_pointer(uint64_t &offset, uint8_t encoding, uint8_t address_size, bool relative);

  llvm::DWARFDataExtractor data_;
  uint64_t section_address_;
  bool is_eh_;
  llvm::Triple::ArchType arch_;

  bool indexed_ = false;
  std::string index_error_;           // why the walk stopped early, when it did
  std::vector<Fde> fdes_;             // sorted by begin, then by section offset
  uint64_t longest_ = 0;              // the largest pc_range, to bound the backward scan
  std::map<uint64_t, Cie> cies_;      // by offset, read as FDEs name them
  std::unordered_map<uint64_t, std::vector<Row>> rows_;  // by FDE offset
};

class DwarfFiles;  // dwarf/source/dwarf_files.h

// A program's call frame information: .eh_frame (read from the program
// itself when its DWARF is in a separate file), then .debug_frame, as the
// full parse did before; the tables are made on first use.
class FrameTables {
 public:
  explicit FrameTables(DwarfFiles &files) : files_(files) {}  // `files` outlives this

  // The CFA rule at `pc`, from .eh_frame, else .debug_frame.
  Result<CfaRule> cfa_at(uint64_t pc);

 private:
  void make();

  DwarfFiles &files_;
  bool made_ = false;
  std::unique_ptr<FrameTable> eh_frames_, debug_frames_;  // null when the section is absent
};

}  // namespace kpp::dwarf
