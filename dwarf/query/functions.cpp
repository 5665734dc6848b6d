// Finding functions (FunctionFinder, function_finder.h): by ELF symbol
// first (a name to an address is cheap), then the DWARF subprogram that
// covers that address.
#include <algorithm>
#include <set>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>

#include "dwarf/names.h"
#include "dwarf/query/die_links.h"
#include "dwarf/query/function_finder.h"
#include "dwarf/raw/optimized_code.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

DWARFDie enclosing_subprogram(DWARFDie die) {
  while (die.isValid() && die.getTag() != llvm::dwarf::DW_TAG_subprogram) die = die.getParent();
  return die;
}

// A location that is a list (it changes along the code) or a bare register:
// only optimized code describes variables that way; code built without
// optimization keeps them in frame slots, valid once the prologue has run.
bool has_optimized_location(const DWARFDie &die) {
  auto loc = die.find(llvm::dwarf::DW_AT_location);
  if (!loc) return false;
  if (!loc->isFormClass(DWARFFormValue::FC_Exprloc) && !loc->isFormClass(DWARFFormValue::FC_Block)) return true;
  auto block = loc->getAsBlock();
  if (!block || block->empty()) return false;
  uint8_t op = (*block)[0];
  return (op >= llvm::dwarf::DW_OP_reg0 && op <= llvm::dwarf::DW_OP_reg31) || op == llvm::dwarf::DW_OP_regx;
}

bool has_optimized_variables(const DWARFDie &die) {
  for (const DWARFDie &child : die.children()) {
    auto tag = child.getTag();
    if ((tag == llvm::dwarf::DW_TAG_formal_parameter || tag == llvm::dwarf::DW_TAG_variable) &&
        has_optimized_location(child))
      return true;
    if ((tag == llvm::dwarf::DW_TAG_lexical_block || tag == llvm::dwarf::DW_TAG_inlined_subroutine) &&
        has_optimized_variables(child))
      return true;
  }
  return false;
}

// Whether `die`'s unit was built with optimization (dwarf/raw/optimized_code.h).
bool producer_says_optimized(const DWARFDie &die) {
  DWARFDie unit = die.getDwarfUnit()->getUnitDIE();
  auto language = unit.find(llvm::dwarf::DW_AT_language);
  std::optional<const char *> text = llvm::dwarf::toString(unit.find(llvm::dwarf::DW_AT_producer));
  return unit_says_optimized(language ? language->getAsUnsignedConstant() : std::nullopt,
                             text && *text ? std::optional<std::string_view>(*text) : std::nullopt);
}

std::string linkage_name(const DWARFDie &die) {
  const char *n = die.getName(DINameKind::LinkageName);
  return n ? n : "";
}

}  // namespace

// The file that `attribute` (DW_AT_decl_file, DW_AT_call_file) of `die`
// names: an index into the line table of the unit that holds the attribute,
// which for a concrete copy is its abstract origin's unit, another one under
// LTO. (DWARFDie::getDeclFile() in LLVM 19 reads the index against the
// wrong unit there, and returns "" for some subprograms of gcc 12's DWARF 5.)
std::optional<Function> FunctionFinder::function_from_die(DWARFDie die) {
  std::optional<uint64_t> low = code_entry(die);
  if (!low) return std::nullopt;
  Function fn;
  fn.inlined = die.getTag() == llvm::dwarf::DW_TAG_inlined_subroutine;
  fn.frame_entry = *low;
  // Entry values are those of the function the copy was inlined into.
  if (fn.inlined) fn.frame_entry = code_entry(enclosing_subprogram(die)).value_or(*low);
  const char *name = die.getSubroutineName(DINameKind::ShortName);
  fn.name = name ? name : "";
  fn.decl_file = source_file_of(checks_.unit_dwarf(), die, llvm::dwarf::DW_AT_decl_file);
  fn.decl_line = static_cast<int>(die.getDeclLine());
  fn.entry = *low;
  if (auto ranges = die.getAddressRanges()) {
    for (const auto &r : *ranges) fn.ranges.push_back({r.LowPC, r.HighPC});
  } else {
    consumeError(ranges.takeError());
  }
  if (auto sym = go_.symbolize(*low); sym && sym->second == 0 && !fn.inlined) fn.symbol = sym->first;
  fn.die_offset = split_.handle_of(die);
  fn.optimized = producer_says_optimized(die) || has_optimized_variables(die);
  // Go (1.19) gives its functions no DW_AT_decl_line: the line of the
  // entry's row is the `func` line, what FUNC:RLN counts from.
  if (fn.decl_line == 0 && !fn.inlined)
    for (const LineTables::Row &row : lines_.rows_of(fn))
      if (row.address == fn.entry && row.line > 0) {
        fn.decl_line = row.line;
        break;
      }
  return fn;
}

std::vector<DWARFDie> FunctionFinder::scan_for(const std::string &name, bool subprograms, bool inline_copies,
                                              bool instances, std::vector<FoundFunction> *read_raw) {
  std::vector<DWARFDie> found;
  std::string instance_prefix = name + "<";
  auto named = [&](const char *n) { return n && (name == n || (instances && std::string_view(n).starts_with(instance_prefix))); };
  if (auto answer = function_index_.find(name, instances)) {
    // Only the units that hold the named DIEs get parsed by LLVM, and not
    // those of the copies that are read raw.
    InlinedCopies::Origins origins;
    for (const IndexedDie &entry : answer->dies) {
      if (entry.inlined ? !inline_copies : !subprograms) continue;
      if (auto copy = entry.inlined && read_raw ? inlined_copies_.read(entry.die_offset, origins) : std::nullopt) {
        // From the cache, as below: a copy of that name, else the index is made again.
        if (answer->cached && !named(copy->function.name.c_str())) {
          function_index_.distrust("the DIE at " + std::to_string(entry.die_offset) + " is not the '" + name + "' it lists");
          read_raw->clear();
          return scan_for(name, subprograms, inline_copies, instances, read_raw);
        }
        copy->position = found.size();
        read_raw->push_back(std::move(*copy));
        continue;
      }
      DWARFDie die = split_.die_at(entry.die_offset);
      // From the cache, each DIE must be what the index says it is: a
      // subprogram or inlined copy of that name; else the index is made again.
      auto tag = die.isValid() ? die.getTag() : llvm::dwarf::DW_TAG_null;
      bool as_said = entry.inlined ? tag == llvm::dwarf::DW_TAG_inlined_subroutine : tag == llvm::dwarf::DW_TAG_subprogram;
      if (answer->cached && (!as_said || !named(die.getName(DINameKind::ShortName)))) {
        function_index_.distrust("the DIE at " + std::to_string(entry.die_offset) + " is not the '" + name + "' it lists");
        if (read_raw) read_raw->clear();
        return scan_for(name, subprograms, inline_copies, instances, read_raw);
      }
      if (die.isValid()) found.push_back(die);
    }
    return found;
  }
  for (uint32_t i = 0; i < checks_.dwarf().getNumCompileUnits(); ++i) {
    DWARFUnit *unit = checks_.dwarf().getUnitAtIndex(i);
    if (DWARFUnit *split = split_.split_unit(i)) unit = split;
    for (const auto &entry : unit->dies()) {
      auto tag = entry.getTag();
      bool wanted = (subprograms && tag == llvm::dwarf::DW_TAG_subprogram) ||
                    (inline_copies && tag == llvm::dwarf::DW_TAG_inlined_subroutine);
      if (!wanted) continue;
      DWARFDie die(unit, &entry);
      // An inlined copy is named by its abstract origin; getName follows it.
      if (!named(die.getName(DINameKind::ShortName))) continue;
      if (tag == llvm::dwarf::DW_TAG_subprogram && !die.find(llvm::dwarf::DW_AT_low_pc) &&
          !die.find(llvm::dwarf::DW_AT_ranges))
        continue;
      found.push_back(die);
    }
  }
  return found;
}

std::optional<FoundFunction> FunctionFinder::found_function(DWARFDie die) {
  if (!die.isValid()) return std::nullopt;
  auto fn = function_from_die(die);
  if (!fn) return std::nullopt;
  return FoundFunction{std::move(*fn), linkage_name(die), inlined_into_itself(die)};
}

std::vector<FoundFunction> FunctionFinder::functions_found(const std::string &name, bool subprograms, bool inline_copies) {
  std::vector<FoundFunction> read_raw, out;
  std::vector<DWARFDie> dies = scan_for(name, subprograms, inline_copies, false, &read_raw);
  size_t next_raw = 0;
  for (size_t i = 0; i <= dies.size(); ++i) {
    for (; next_raw < read_raw.size() && read_raw[next_raw].position == i; ++next_raw)
      out.push_back(std::move(read_raw[next_raw]));
    if (i == dies.size()) break;
    if (auto found = found_function(dies[i])) out.push_back(std::move(*found));
  }
  return out;
}

// Without DWARF the symbol tables are all there is: by name, else (a C++
// name) by demangled name.
std::vector<Function> FunctionFinder::functions_by_symbol(const std::string &name) {
  std::vector<Function> found = function_symbols(name);
  if (found.empty() && is_cxx_query(name)) {
    CxxQuery query = parse_cxx_query(name);
    const auto &demangled = image_.demangled().all();
    const std::vector<ElfSymbol> &functions = image_.symbols().functions();
    for (size_t i = 0; i < functions.size(); ++i)
      if (demangled[i] && cxx_name_matches(query, *demangled[i])) found.push_back(function_of_symbol(functions[i], name));
  }
  return found;
}

std::vector<Function> FunctionFinder::find_functions(const std::string &name, const std::string &file,
                                                    InlineCopies inlines) {
  // FUNC@VERSION ("memcpy@GLIBC_2.14", parsed as FUNC@SRC): a versioned
  // symbol when no source file can be meant.
  if (!file.empty() && file.find('/') == std::string::npos && !image_.symbols().functions_named(name + "@" + file).empty())
    return find_functions(name + "@" + file, "", inlines);
  if (!files_.no_dwarf_note().empty()) return file.empty() ? functions_by_symbol(name) : std::vector<Function>{};
  std::vector<Function> result;
  std::set<uint64_t> seen;
  // `symbol_at`: the address of the symbol named `name` that led to it.
  auto add = [&](std::optional<FoundFunction> found, std::optional<uint64_t> symbol_at = std::nullopt) {
    if (!found || found->inlined_into_itself || !seen.insert(found->function.die_offset).second) return;
    const Function &fn = found->function;
    // By source name, or (C++) by the mangled name the symbol table shows,
    // or by an alias: a symbol of that name where the function starts
    // (glibc's malloc is __libc_malloc's).
    if (fn.name != name && fn.symbol != name && found->linkage_name != name && fn.entry != symbol_at) return;
    if (!file.empty() && !path_ends_with(fn.decl_file, file)) return;
    result.push_back(std::move(found->function));
  };
  std::vector<ElfSymbol> symbols = image_.symbols().functions_named(name);
  for (const ElfSymbol &sym : symbols) add(found_function(enclosing_subprogram(units_at_.dies_at(sym.address).FunctionDIE)), sym.address);
  // The symbol table finds out-of-line bodies cheaply; inlined copies, and
  // functions without a symbol (a stripped symbol table), need a scan.
  bool need_subprograms = result.empty();
  bool need_inlines = inlines == InlineCopies::Include;
  // Inlined copies are named by their origin's short name, never by a C++
  // linkage name: for "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base" the
  // copies of the body its symbol led to are looked up as
  // "_Rb_tree_increment", and add() keeps those whose linkage name it is.
  std::string scan_name = name;
  if (!need_subprograms && name.starts_with("_Z") && !result.front().name.empty()) scan_name = result.front().name;
  // A path ("names::price") names no DIE as it is: find_cxx_functions below
  // looks for its last component.
  if ((need_subprograms || need_inlines) && !is_scoped_path(scan_name))
    for (FoundFunction &found : functions_found(scan_name, need_subprograms, need_inlines)) add(std::move(found));
  // Not a symbol's or a DIE's name as it is: a C++ name ("ns::Cls::f",
  // "max<int>", "f(long)"), or a plain one that may name a template's
  // instances ("biggest" for biggest<int> and biggest<double>) in a program
  // that has C++ functions at all. (Names as they are come first: a Go
  // "main.(*T).Run" is one.)
  if (result.empty()) {
    bool has_cxx = image_.demangled().any();
    if (has_cxx || is_cxx_query(name)) result = find_cxx_functions(parse_cxx_query(name), file, inlines);
  }
  // Symbols first: a function symbol that no DWARF describes (written in
  // assembly, or from a unit built without -g) is still a function; not
  // when its DWARF is in .dwo files that are missing (that is the news).
  if (result.empty() && file.empty()) {
    std::vector<Function> bare = function_symbols(name);
    if (!bare.empty() && split_.missing().empty()) result = std::move(bare);
  }
  std::sort(result.begin(), result.end(), [](const Function &a, const Function &b) { return a.entry < b.entry; });
  return result;
}

Function FunctionFinder::function_of_symbol(const ElfSymbol &sym, const std::string &name) {
  Function fn;
  fn.name = name;
  fn.symbol = sym.name;
  fn.entry = fn.frame_entry = sym.address;
  fn.ranges.push_back({sym.address, sym.address + std::max<uint64_t>(sym.size, 1)});
  fn.optimized = true;  // no prologue to find: a return probe sits on the entry
  return fn;
}

std::vector<Function> FunctionFinder::function_symbols(const std::string &name) {
  std::vector<Function> found;
  for (const ElfSymbol &sym : image_.symbols().functions_named(name)) found.push_back(function_of_symbol(sym, name));
  // A Go program without symbols: Go's own table names its functions.
  if (const GoFunctionTable *table = found.empty() ? go_.table() : nullptr)
    for (const GoFunction &go : table->named(name))
      found.push_back(function_of_symbol(ElfSymbol{go.name, {}, go.entry, go.end - go.entry, 0, true}, name));
  return found;
}

// Every function whose demangled name is what `query` asks for: all the
// overloads and template instances that fit, as perf probes every function
// a plain name matches; a parameter list picks one overload.
std::vector<Function> FunctionFinder::find_cxx_functions(const CxxQuery &query, const std::string &file,
                                                        InlineCopies inlines) {
  std::vector<Function> result;
  std::set<uint64_t> seen;
  // `by_symbol`: found through a symbol whose demangled name matched; its
  // DIE may carry no linkage name to match again (gcc gives none to a
  // constructor in an anonymous namespace or to a member of a local class).
  auto add = [&](DWARFDie die, bool by_symbol = false) {
    if (!die.isValid() || inlined_into_itself(die) || !seen.insert(split_.handle_of(die)).second) return;
    // The linkage name is on the declaration (a method's in its class, an
    // inlined copy's on its abstract origin): getName follows both.
    std::optional<DemangledFunction> have = demangle_function(linkage_name(die));
    if (!have) {
      const char *n = die.getName(DINameKind::ShortName);
      have = DemangledFunction{n ? n : "", {}};
    }
    if (!by_symbol && !cxx_name_matches(query, *have)) return;
    auto fn = function_from_die(die);
    if (!fn || (!file.empty() && !path_ends_with(fn->decl_file, file))) return;
    result.push_back(std::move(*fn));
  };
  const std::vector<ElfSymbol> &functions = image_.symbols().functions();
  // Only the symbols that have the query's word as it is can match: the
  // others are not demangled (a Rust program has thousands). Without such
  // a word every symbol is demangled, once, and kept for the next lookup.
  std::optional<std::string> word = verbatim_word(query);
  if (!word) {
    image_.demangled().all();
    image_.demangled().all_printed();
  }
  std::set<uint64_t> bare_entries;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (word && functions[i].name.find(*word) == std::string::npos) continue;
    std::optional<DemangledFunction> demangled = image_.demangled().of(i);
    std::string printed = image_.demangled().printed(i);
    // A Rust hash asked for is checked by cxx_name_matches alone.
    bool printed_ok = query.rust_hash.empty() && printed_name_matches(query.printed, printed);
    if (!(demangled && cxx_name_matches(query, *demangled)) && !printed_ok) continue;
    DWARFDie die = enclosing_subprogram(units_at_.dies_at(functions[i].address).FunctionDIE);
    if (die.isValid()) add(die, true);
    // No DWARF for it (a thunk gcc writes without a DIE): the symbol alone, as in no-DWARF mode.
    else if (file.empty() && bare_entries.insert(functions[i].address).second)
      result.push_back(function_of_symbol(functions[i], printed));
  }
  bool need_subprograms = result.empty();
  bool need_inlines = inlines == InlineCopies::Include;
  if (need_subprograms || need_inlines)
    for (DWARFDie die : scan_for(query.base, need_subprograms, need_inlines, query.base.find('<') == std::string::npos))
      add(die);
  std::sort(result.begin(), result.end(), [](const Function &a, const Function &b) { return a.entry < b.entry; });
  return result;
}

std::vector<std::string> FunctionFinder::similar_functions(const std::string &name, size_t max) {
  std::set<std::string> names;
  const auto &demangled = image_.demangled().all();
  // A name with a parameter list is compared with the overloads' ("twice(short)": "twice(int)", "twice(long)").
  bool with_params = name.find('(') != std::string::npos;
  const std::vector<ElfSymbol> &functions = image_.symbols().functions();
  for (size_t i = 0; i < functions.size(); ++i) {
    if (demangle_ && demangled[i])
      names.insert(demangled[i]->qualified + (with_params ? demangled[i]->params : ""));
    else
      names.emplace(source_name_of_symbol(functions[i].name));
  }
  if (const GoFunctionTable *table = go_.table())
    for (const GoFunction &go : table->functions()) names.emplace(go.name);
  // The name refused is no suggestion (a name whose symbol exists but was not found).
  names.erase(name);
  return closest_names(name, std::vector<std::string>(names.begin(), names.end()), max);
}

}  // namespace kpp::dwarf
