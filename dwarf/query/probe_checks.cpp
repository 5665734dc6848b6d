// Where probes go: a function's probe entry (past the prologue when its
// variables need it, past Go's stack check), and whether a kernel probe's
// address starts an instruction: the line table says so where it has a
// row, else the ELF image's disassembler (dwarf/elf/elf_sections.cpp)
// decodes up to it.
#include "dwarf/query/die_links.h"
#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

using llvm::DWARFDie;

// Whether a parameter of `function` lives in a frame slot that its prologue
// fills (die_links.h): optimized code can do that too (rustc at opt-level=1).
static bool has_prologue_slot_parameters(const DWARFDie &function) {
  if (!function.isValid()) return false;
  for (const DWARFDie &child : function.children())
    if (child.isValid() && in_prologue_slot(child)) return true;
  return false;
}

// The address after Go's stack check at `fn`'s entry (MachineCode's
// after_go_stack_check), or the entry when it has none or no decoder reads it.
static uint64_t past_go_stack_check(ElfImage &image, const Function &fn) {
  for (const AddressRange &range : fn.ranges)
    if (range.begin == fn.entry) return image.code().after_go_stack_check(range.begin, range.end).value_or(fn.entry);
  return fn.entry;
}

uint64_t LlvmDebugInfo::probe_entry(const Function &fn) {
  // An inlined copy has no prologue: its entry_pc is where its parameters are set.
  if (fn.inlined) return fn.entry;
  // Go's prologue checks the stack's room and, when it must grow, has the
  // runtime copy the stack and start the function again from its entry: a
  // probe there would count that call twice. Go marks where the prologue
  // ends (prologue_end), optimized or not, and the arguments are still in
  // their registers there. Without DWARF (a stripped program) the decoder
  // finds the end of the stack check (the same address); a function
  // without one (NOSPLIT) is never started again, and without a decoder
  // the entry is all there is (the manual says so).
  if (go_.is_go_function(fn)) {
    if (has_dwarf())
      for (const LineTables::Row &row : lines_.rows_of(fn))
        if (row.prologue_end && row.address >= fn.entry) return row.address;
    return past_go_stack_check(image_, fn);
  }
  // Optimized code is probed at its entry, as perf probe does, unless a
  // parameter is read from a frame slot, valid only past the prologue (as
  // gdb breaks).
  if (fn.optimized && (fn.die_offset == 0 || !has_prologue_slot_parameters(split_.die_at(fn.die_offset)))) return fn.entry;
  // The prologue ends where the line table starts its second statement:
  // clang marks it prologue_end, gcc starts a new row there (on the same
  // line when the whole function is on one line).
  for (const LineTables::Row &row : lines_.rows_of(fn)) {
    if (row.address == fn.entry && row.prologue_end) return fn.entry;  // no prologue at all
    if (row.address > fn.entry && (row.prologue_end || row.is_stmt)) return row.address;
  }
  return fn.entry;
}


bool LlvmDebugInfo::is_instruction_start(const Function &fn, uint64_t address) {
  if (address == fn.entry) return true;
  for (const LineTables::Row &row : lines_.rows_of(fn))
    if (row.address == address) return true;
  // No row there: decode the instructions from the start of the range that
  // holds it (the function's entry when that range has it), as the kernel's
  // own x86 check decodes from the symbol's start.
  if (!image_.code().decodes_instructions()) return false;
  for (const AddressRange &r : fn.ranges) {
    if (!r.contains(address)) continue;
    uint64_t start = r.contains(fn.entry) ? fn.entry : r.begin;
    return image_.code().starts_instruction(start, r.end, address).value_or(false);
  }
  return false;
}

std::string LlvmDebugInfo::instruction_oracle() {
  return image_.code().decodes_instructions() ? "the line table and the disassembler" : "the line table";
}

}  // namespace kpp::dwarf
