// What a DIE leads to: the DIEs that complete it, and where its code starts
// (private to dwarf/: LLVM types).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

namespace kpp::dwarf {

// The DIE that holds `attribute` for `die`: `die` itself, else one that its
// DW_AT_abstract_origin or DW_AT_specification leads to, breadth first (the
// DIEs LLVM's findRecursively reads). That DIE may lie in another unit: gcc's
// LTO units point at abstract origins in the units their functions were
// compiled in, so an attribute that indexes a unit's tables
// (DW_AT_decl_file, DW_AT_call_file) means something only in the holder's
// unit. Invalid when none holds it. A bounded walk: hostile DWARF can link
// DIEs in a cycle.
llvm::DWARFDie attribute_holder(llvm::DWARFDie die, llvm::dwarf::Attribute attribute);

// The whole path of the file `attribute` (DW_AT_decl_file, DW_AT_call_file)
// of `die` names, read in the unit that holds the attribute (as above) with
// the line tables of `dwarf`; empty when there is none.
std::string source_file_of(llvm::DWARFContext &dwarf, llvm::DWARFDie die, llvm::dwarf::Attribute attribute);

// The DIE at the end of `die`'s DW_AT_abstract_origin and
// DW_AT_specification links: the one all copies of a function share (`die`
// itself when it has no links). Bounded as above.
llvm::DWARFDie origin_root(llvm::DWARFDie die);

// Whether `die` is an inlined copy of the very function whose out-of-line
// body holds it (gcc inlines glibc's __libc_write into its own body). Such a
// copy runs on the same call as that body: it is not a probe site of its own,
// as it is not for perf and gdb.
bool inlined_into_itself(llvm::DWARFDie die);

// Whether `die` is a parameter of an out-of-line function kept in a frame
// slot for the whole function: one location (not a list) that is
// DW_OP_fbreg, as gcc -O0, clang -O0 and rustc at opt-level 0 and 1 describe
// them. The prologue stores the parameter there: before the prologue's end
// the slot holds whatever the stack held (gdb and perf probe after it).
bool in_prologue_slot(llvm::DWARFDie die);

// The innermost function (subprogram or inlined copy) of `unit` whose code
// holds `address` (every DIE of the unit is read first): what LLVM's DWARFUnit::getSubroutineForAddress
// answers, without its map of the whole unit, which reads the ranges of
// every inlined copy (on one of python3.11's LTO units ~35 M instructions,
// most of a warm -D). Only the functions on the way to `address` have their
// ranges read, and the subprograms inside others (a nested function's code
// lies outside its parent's). Invalid when none holds it.
llvm::DWARFDie innermost_function_at(llvm::DWARFUnit &unit, uint64_t address);

// Where the code of a subprogram or inlined copy starts: DW_AT_entry_pc
// (an inlined copy's first instruction, where its parameters are set), else
// DW_AT_low_pc, else the first of its DW_AT_ranges (gcc lists a function's
// hot part first, its .cold part after). nullopt: the DIE has no code.
std::optional<uint64_t> code_entry(llvm::DWARFDie die);

}  // namespace kpp::dwarf
