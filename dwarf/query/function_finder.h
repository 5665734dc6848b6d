// The functions of a file found by name, and the names of them all:
// DebugInfo's find_functions(), function_symbols(), similar_functions() and
// function_names(). By ELF symbol first (a name to an address is cheap),
// then the DWARF subprogram that covers that address; inlined copies and
// functions without a symbol by the function index (functions.cpp); C++ and
// Rust names by their demangled forms; -F's list (listing.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>

#include "dwarf/debug_info.h"
#include "dwarf/index/function_index.h"
#include "dwarf/lang/cxx_names.h"
#include "dwarf/query/go_code.h"
#include "dwarf/query/inlined_copies.h"
#include "dwarf/query/line_tables.h"
#include "dwarf/query/units_at.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class FunctionFinder {
 public:
  // The parts this reads, all of them outliving it; `demangle`: names are
  // shown demangled (OpenOptions::demangle).
  struct Parts {
    DwarfFiles &files;
    UnitChecks &checks;
    SplitUnits &split;
    UnitsAt &units_at;
    InlinedCopies &inlined_copies;
    LineTables &lines;
    GoCode &go;
    FunctionIndex &index;
    bool demangle;
  };
  explicit FunctionFinder(const Parts &p)
      : files_(p.files), image_(p.files.image()), checks_(p.checks), split_(p.split), units_at_(p.units_at),
        inlined_copies_(p.inlined_copies), lines_(p.lines), go_(p.go), function_index_(p.index),
        demangle_(p.demangle) {}

  // DebugInfo's questions of functions by name (dwarf/debug_info.h).
  std::vector<Function> find_functions(const std::string &name, const std::string &file, InlineCopies inlines);
  std::vector<Function> function_symbols(const std::string &name);
  std::vector<std::string> similar_functions(const std::string &name, size_t max);
  std::vector<std::string_view> function_names();
  // The Function a subprogram or inlined copy's DIE describes; nullopt when
  // it has no code.
  std::optional<Function> function_from_die(llvm::DWARFDie die);

 private:
  std::optional<FoundFunction> found_function(llvm::DWARFDie die);
  // scan_for()'s functions, DIEs and copies read raw, in the index's order.
  std::vector<FoundFunction> functions_found(const std::string &name, bool subprograms, bool inline_copies);
  // Subprograms with code (and, when asked, inlined copies) named `name`, as the function index
  // finds them, else by LLVM's walk of every unit; with `instances`, also those named
  // `name<...>` (a template's instances). With `read_raw`, the copies the index gives
  // that can be read raw go there, as Functions, instead.
  std::vector<llvm::DWARFDie> scan_for(const std::string &name, bool subprograms, bool inline_copies,
                                       bool instances = false, std::vector<FoundFunction> *read_raw = nullptr);
  // find_functions for a C++ name (cxx_names.h): symbols and DIEs by their demangled names.
  std::vector<Function> find_cxx_functions(const CxxQuery &query, const std::string &file, InlineCopies inlines);
  // find_functions without DWARF: by symbol, else by demangled symbol.
  std::vector<Function> functions_by_symbol(const std::string &name);
  // The function a symbol table knows alone: its symbol's extent, no DWARF.
  static Function function_of_symbol(const ElfSymbol &sym, const std::string &name);
  std::string function_list();  // function_names(), one per line, made from the symbol table

  DwarfFiles &files_;
  ElfImage &image_;
  UnitChecks &checks_;
  SplitUnits &split_;
  UnitsAt &units_at_;
  InlinedCopies &inlined_copies_;
  LineTables &lines_;
  GoCode &go_;
  FunctionIndex &function_index_;
  const bool demangle_;
  std::optional<std::string> function_list_;
};

}  // namespace kpp::dwarf
