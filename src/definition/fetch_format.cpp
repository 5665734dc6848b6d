#include "src/definition/fetch_format.h"

#include "util/strings.h"

namespace kpp {

namespace {
std::string signed_offset(int64_t v) {
  return v < 0 ? "-" + std::to_string(-static_cast<uint64_t>(v)) : "+" + std::to_string(v);
}
}  // namespace

dwarf::FetchExpr FetchFormatter::lower(const dwarf::FetchExpr &expr) const {
  if (expr.root != dwarf::FetchExpr::Root::GlobalAddress || !expr.loads.empty() || !uprobe ||
      regs.instruction_pointer.empty())
    return expr;
  dwarf::FetchExpr ip = expr;
  ip.root = dwarf::FetchExpr::Root::InstructionPointer;
  ip.post_add += static_cast<int64_t>(expr.address - probe_address);
  ip.address = 0;
  return ip;
}

Result<std::string> FetchFormatter::format(const dwarf::FetchExpr &expr) const {
  std::string out;
  if (expr.root == dwarf::FetchExpr::Root::GlobalAddress) {
    // A pointer to a global: loading through it is reading the global.
    if (expr.loads.empty())
      return Error("its value is the address of a global (" + hex(expr.address) +
                   " at link time), which fetch-args can read through but not give as a value",
                   "read what it points to instead: a member, an element, or ':string'");
    dwarf::FetchExpr global = expr;
    global.root = dwarf::FetchExpr::Root::GlobalMemory;
    global.address = expr.address + static_cast<uint64_t>(expr.loads.front());
    global.loads.erase(global.loads.begin());
    return format(global);
  }
  switch (expr.root) {
    case dwarf::FetchExpr::Root::Register:
    case dwarf::FetchExpr::Root::EntryRegister: {  // formatted for the companion probe at the entry
      std::string_view name = regs.fetch_name(static_cast<unsigned>(expr.dwarf_reg));
      if (name.empty()) {
        // A floating-point or vector register: the kernel fetches only
        // pt_regs' general registers, and reading one of those instead
        // would show another value.
        std::string vector = regs.unfetchable_name(static_cast<unsigned>(expr.dwarf_reg));
        if (!vector.empty())
          return Error("it lives in " + vector + " here, a floating-point/vector register, which kernel fetch-args "
                       "cannot read (they read only the general registers)",
                       "probe a line where it is stored in memory, or read it where it is passed in memory");
        return Error("DWARF register " + std::to_string(expr.dwarf_reg) + " has no fetch-arg name on " +
                     std::string(regs.name));
      }
      out = std::string(name);
      break;
    }
    case dwarf::FetchExpr::Root::InstructionPointer:
      if (regs.instruction_pointer.empty())
        return Error("the probe's own address cannot be fetched on " + std::string(regs.name));
      out = std::string(regs.instruction_pointer);
      break;
    case dwarf::FetchExpr::Root::GlobalAddress:  // handled above
    case dwarf::FetchExpr::Root::Constant:
      out = "\\" + std::to_string(expr.constant);
      break;
    case dwarf::FetchExpr::Root::GlobalMemory: {
      auto global = global_memory(expr.address);
      if (!global) return global;
      out = std::move(*global);
      break;
    }
  }
  for (int64_t load : expr.loads) out = signed_offset(load) + "(" + out + ")";
  return out;
}

Result<std::string> FetchFormatter::global_memory(uint64_t address) const {
  if (auto got = uprobe ? debug.elf().got_slot_of(address) : std::nullopt) {
    // Read as the code reads it: the GOT slot holds where the variable
    // really is (the executable's copy, after a copy relocation).
    dwarf::FetchExpr slot;
    slot.root = dwarf::FetchExpr::Root::GlobalMemory;
    slot.address = got->slot;
    auto text = format(slot);
    if (!text) return text;
    return signed_offset(static_cast<int64_t>(got->offset)) + "(" + *text + ")";
  }
  if (uprobe) {
    // "@+OFFSET" is a file offset that the kernel turns into an address
    // by the probe's own mapping: address = OFFSET + (where the probe is
    // mapped - the probe's file offset). Writing the global's link-time
    // address minus the probe's (link address - file offset) therefore
    // lands on the global in every segment, .bss included, and in a PIE.
    return "@+" + hex(address - (probe_address - probe_file_offset));
  }
  // By symbol, so that the definition survives KASLR.
  if (auto sym = debug.elf().symbolize(address)) return "@" + sym->first + (sym->second ? "+" + std::to_string(sym->second) : "");
  return "@" + hex(address);
}

}  // namespace kpp
