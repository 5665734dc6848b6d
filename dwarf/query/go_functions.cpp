// Go functions (the LLVM-backed DebugInfo's Go questions): which functions
// are Go code, where they return, and where Go's register ABI puts their
// results at a return instruction.
//
// Go's runtime reads and rewrites the return addresses on a goroutine's
// stack: to grow (copy) the stack, to collect garbage, to unwind a panic.
// A uretprobe replaces a return address with its trampoline's, and the
// program dies ("unexpected return pc", golang/go#22008, bcc#1320). So a
// return probe on Go code is a probe on each of its return instructions,
// which changes no return address.
//
// Results (Go's ABIInternal, src/cmd/compile/abi-internal.md): since Go
// 1.17 on amd64 the results are assigned, in order, to the integer
// registers RAX, RBX, RCX, RDI, RSI, R8, R9, R10, R11 and the float
// registers X0-X14, each result split into its basic values (a string is a
// pointer and a length, a slice three words, an interface two, a struct its
// fields); a result that does not fit in the registers left, or holds an
// array of more than one element, goes to the stack instead.
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/query/go_code.h"
#include "util/strings.h"

namespace kpp::dwarf {

using llvm::DWARFDie;
namespace dw = llvm::dwarf;

namespace {

// The DWARF numbers of Go's integer result registers on x86-64, in order.
constexpr int go_amd64_int_registers[] = {0 /*rax*/, 3 /*rbx*/, 2 /*rcx*/, 5 /*rdi*/, 4 /*rsi*/,
                                          8,         9,         10,        11};
constexpr size_t go_amd64_float_registers = 15;  // X0-X14

bool is_go_producer(const DWARFDie &unit_die) {
  std::optional<const char *> producer = dw::toString(unit_die.find(dw::DW_AT_producer));
  return producer && *producer && std::string_view(*producer).starts_with("Go cmd/compile");
}

// One basic value of a result: `size` bytes at `offset` into it.
struct Word {
  uint64_t offset = 0, size = 0;
  bool is_float = false;
};

DWARFDie stripped(DWARFDie type) {
  for (int hops = 0; hops < 16 && type.isValid(); ++hops) {
    dw::Tag tag = type.getTag();
    if (tag != dw::DW_TAG_typedef && tag != dw::DW_TAG_const_type && tag != dw::DW_TAG_volatile_type) return type;
    type = type.getAttributeValueAsReferencedDie(dw::DW_AT_type);
  }
  return {};
}

uint64_t size_of(const DWARFDie &type) { return dw::toUnsigned(type.find(dw::DW_AT_byte_size), 0); }

// Appends the basic values of a value of `type` at `offset`; false when
// the ABI puts such a value on the stack (an array of 2 or more) or the
// type is not one Go's DWARF describes.
bool split_words(DWARFDie type, uint64_t offset, std::vector<Word> &words, int depth) {
  type = stripped(type);
  if (!type.isValid() || depth > 16 || words.size() > 64) return false;
  switch (type.getTag()) {
    case dw::DW_TAG_base_type: {
      uint64_t size = size_of(type), encoding = dw::toUnsigned(type.find(dw::DW_AT_encoding), 0);
      if (encoding == dw::DW_ATE_complex_float) {
        words.push_back({offset, size / 2, true});
        words.push_back({offset + size / 2, size / 2, true});
      } else if (size > 0) {
        words.push_back({offset, size, encoding == dw::DW_ATE_float});
      }
      return size <= 8 || encoding == dw::DW_ATE_complex_float;
    }
    case dw::DW_TAG_pointer_type:
    case dw::DW_TAG_subroutine_type:
      words.push_back({offset, 8, false});
      return true;
    case dw::DW_TAG_structure_type:
      for (DWARFDie member : type.children()) {
        if (member.getTag() != dw::DW_TAG_member) continue;
        uint64_t at = dw::toUnsigned(member.find(dw::DW_AT_data_member_location), 0);
        if (!split_words(member.getAttributeValueAsReferencedDie(dw::DW_AT_type), offset + at, words, depth + 1))
          return false;
      }
      return true;
    case dw::DW_TAG_array_type: {
      uint64_t size = size_of(type);
      DWARFDie element = type.getAttributeValueAsReferencedDie(dw::DW_AT_type);
      if (size == 0) return true;
      return size_of(stripped(element)) == size && split_words(element, offset, words, depth + 1);
    }
    default:
      return false;
  }
}

}  // namespace

bool GoCode::is_go_function(const Function &fn) {
  if (files_.no_dwarf_note().empty()) {  // it has DWARF
    DWARFDie die = fn.die_offset ? split_.die_at(fn.die_offset) : DWARFDie();
    llvm::DWARFUnit *unit = die.isValid() ? die.getDwarfUnit() : static_cast<llvm::DWARFUnit *>(units_at_.unit_at(fn.entry));
    if (unit) return is_go_producer(unit->getUnitDIE());
  }
  // No DWARF covers it: Go's runtime and every function of a stripped Go program.
  return files_.image().is_go_program();
}

Result<std::vector<uint64_t>> GoCode::return_instructions(const Function &fn) {
  if (!files_.image().decodes_instructions())
    return Error("this kprobe-probe was built without an instruction decoder (cmake -DKPP_X86_DISASSEMBLER=ON), "
                 "which finding " + fn.name + "'s return instructions needs");
  std::vector<uint64_t> returns;
  for (const AddressRange &range : fn.ranges) {
    std::optional<InstructionDecoder::Exits> exits = files_.image().exits_of(range.begin, range.end);
    if (!exits) return Error("the code of " + fn.name + " (" + hex(range.begin) + "-" + hex(range.end) + ") is not in the file");
    if (exits->undecodable)
      return Error("the code of " + fn.name + " does not decode at " + hex(*exits->undecodable) +
                   ", so its return instructions cannot all be found");
    if (exits->jumps_out)
      return Error(fn.name + " also leaves by a jump at " + hex(*exits->jumps_out) +
                   " (a tail call): probes on its return instructions would miss those returns");
    returns.insert(returns.end(), exits->returns.begin(), exits->returns.end());
  }
  if (returns.empty()) return Error(fn.name + " has no return instruction: it never returns");
  return returns;
}

std::vector<Variable> GoCode::go_results(const Function &fn) {
  std::vector<Variable> results;
  DWARFDie die = fn.die_offset ? split_.die_at(fn.die_offset) : DWARFDie();
  if (!die.isValid()) return results;
  bool amd64 = files_.image().machine() == llvm::ELF::EM_X86_64;
  size_t next_int = 0, next_float = 0;
  for (DWARFDie child : die.children()) {
    if (child.getTag() != dw::DW_TAG_formal_parameter || !dw::toUnsigned(child.find(dw::DW_AT_variable_parameter), 0))
      continue;
    Variable result;
    const char *name = child.getName(llvm::DINameKind::ShortName);
    result.name = name ? name : "";
    result.is_parameter = true;
    result.type = types_.type_of(child);
    if (amd64) result.place = result_place(child, next_int, next_float, result.unavailable_why);
    else result.unavailable_why = "Go's result registers are known for x86-64 only";
    results.push_back(std::move(result));
  }
  return results;
}

// Where the result `die` is at a return instruction, taking its registers
// from those left (`next_int`, `next_float`); nullopt with `why` when it
// cannot be read there.
std::optional<Place> GoCode::result_place(DWARFDie die, size_t &next_int, size_t &next_float,
                                           std::string &why) {
  DWARFDie type = die.getAttributeValueAsReferencedDie(dw::DW_AT_type);
  std::vector<Word> words;
  size_t ints = 0, floats = 0;
  bool in_registers = split_words(type, 0, words, 0);
  for (const Word &w : words) (w.is_float ? floats : ints)++;
  if (!in_registers || next_int + ints > std::size(go_amd64_int_registers) ||
      next_float + floats > go_amd64_float_registers) {
    why = "Go's ABI returns it on the stack, which is not read yet";
    return std::nullopt;
  }
  size_t first_int = next_int;
  next_int += ints;
  next_float += floats;
  if (floats > 0) {
    why = "Go's ABI returns it in xmm registers, which uprobes cannot read";
    return std::nullopt;
  }
  if (words.size() == 1 && words[0].offset == 0 && words[0].size == size_of(stripped(type)))
    return Place::in_register(go_amd64_int_registers[first_int]);
  // Several words (a string, a slice, a struct): one register piece each, padding between them.
  Place place;
  place.kind = Place::Kind::Pieces;
  uint64_t at = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].offset > at) place.pieces.push_back(Piece{words[i].offset - at, {}});
    place.pieces.push_back(Piece{words[i].size, {Place::in_register(go_amd64_int_registers[first_int + i])}});
    at = words[i].offset + words[i].size;
  }
  return place;
}

}  // namespace kpp::dwarf
