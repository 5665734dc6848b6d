// Variables in scope at an address: walk from the function down through the
// lexical blocks and inlined bodies that contain it, then the unit's globals.
#include <set>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/query/die_links.h"
#include "dwarf/query/variables.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

bool die_contains(const DWARFDie &die, uint64_t pc) {
  auto ranges = die.getAddressRanges();
  if (!ranges) {
    consumeError(ranges.takeError());
    return false;
  }
  for (const auto &r : *ranges)
    if (pc >= r.LowPC && pc < r.HighPC) return true;
  return false;
}

bool is_variable(llvm::dwarf::Tag tag) { return tag == llvm::dwarf::DW_TAG_variable || tag == llvm::dwarf::DW_TAG_formal_parameter; }

// `function`, then each lexical block and inlined copy inside it that holds `pc`, outermost first.
std::vector<DWARFDie> scopes_at(const DWARFDie &function, uint64_t pc) {
  std::vector<DWARFDie> scopes{function};
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const DWARFDie &child : scopes.back().children()) {
      auto tag = child.getTag();
      if ((tag == llvm::dwarf::DW_TAG_lexical_block || tag == llvm::dwarf::DW_TAG_inlined_subroutine) && die_contains(child, pc)) {
        scopes.push_back(child);
        deeper = true;
        break;
      }
    }
  }
  return scopes;
}

// The index in `scopes` of the innermost function, inlined or not: inside
// an inlined copy the caller's locals are out of scope, as in C.
size_t innermost_function(const std::vector<DWARFDie> &scopes) {
  size_t innermost = 0;
  for (size_t i = 0; i < scopes.size(); ++i)
    if (scopes[i].getTag() == llvm::dwarf::DW_TAG_inlined_subroutine || scopes[i].getTag() == llvm::dwarf::DW_TAG_subprogram)
      innermost = i;
  return innermost;
}

}  // namespace

std::vector<Variable> Variables::variables_at(const Function &fn, uint64_t pc) { return variables_in_scope(fn, pc, {}); }

std::optional<Variable> Variables::variable_at(const Function &fn, uint64_t pc, std::string_view name) {
  if (name.empty()) return std::nullopt;
  std::vector<Variable> found = variables_in_scope(fn, pc, name);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::vector<Variable> Variables::variables_in_scope(const Function &fn, uint64_t pc, std::string_view only) {
  std::vector<Variable> result;
  DWARFDie function = split_.die_at(fn.die_offset);
  if (!function.isValid()) return result;

  std::vector<DWARFDie> scopes = scopes_at(function, pc);

  std::set<std::string, std::less<>> seen;  // an inner variable hides an outer one of the same name
  uint64_t block_entry = fn.entry;  // of the innermost function scope, set below
  auto add = [&](const DWARFDie &die, DWARFDie frame_function, const DWARFDie *scope) {
    const char *name = die.getName(DINameKind::ShortName);
    if (!name || (!only.empty() && only != name) || !seen.insert(name).second) return;
    Variable var;
    var.name = name;
    var.is_parameter = die.getTag() == llvm::dwarf::DW_TAG_formal_parameter;
    var.is_global = scope == nullptr;
    var.prologue_slot = in_prologue_slot(die);
    if (scope) var.available = available_ranges(die, *scope);
    var.type = types_.type_of(die);
    auto place = locate(die, frame_function, pc, block_entry);
    if (place)
      var.place = *place;
    else
      var.unavailable_why = place.error().message;
    result.push_back(std::move(var));
  };
  // The frame base of an inlined copy is that of the function it was inlined into.
  DWARFDie frame_function = function;
  while (frame_function.isValid() && frame_function.getTag() != llvm::dwarf::DW_TAG_subprogram)
    frame_function = frame_function.getParent();
  // The walk outward stops at the innermost function, inlined or not.
  size_t innermost = innermost_function(scopes);
  if (innermost > 0) {
    // An inlined copy inside `fn`: its entry is its entry_pc, else its low pc.
    block_entry = code_entry(scopes[innermost]).value_or(block_entry);
  } else if (!fn.inlined) {
    block_entry = fn.frame_entry;  // the out-of-line function's first instruction
  }
  for (size_t i = scopes.size(); i-- > innermost;)
    for (const DWARFDie &child : scopes[i].children())
      if (!child.isValid()) break;
      else if (is_variable(child.getTag())) add(child, frame_function, &scopes[i]);
  if (!only.empty() && !result.empty()) return result;  // a local of that name hides any global

  // Then the globals and file statics of this unit.
  // A unit LLVM could not read whole yields an invalid DIE among its
  // children, and LLVM 19 dereferences null on it (found by tests/fuzz).
  DWARFDie unit_die = function.getDwarfUnit()->getUnitDIE();
  if (!unit_die.isValid()) return result;
  for (const DWARFDie &child : unit_die.children())
    if (!child.isValid()) break;
    else if (child.getTag() == llvm::dwarf::DW_TAG_variable &&
        (child.find(llvm::dwarf::DW_AT_location) || child.find(llvm::dwarf::DW_AT_const_value)))
      add(child, frame_function, nullptr);
  return result;
}

TypeRef Variables::return_type(const Function &fn) { return types_.type_of(split_.die_at(fn.die_offset)); }

}  // namespace kpp::dwarf
