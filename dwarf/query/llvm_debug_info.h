// The LLVM-backed DebugInfo (private to dwarf/; nothing outside includes it):
// the DWARF of a program, read beside its ELF image (dwarf/elf/elf_image.h),
// which answers the questions of the ELF file itself (as ImageFacts). Composed of parts with
// one job each: the files the DWARF is read from (dwarf/source/dwarf_files.h),
// which of their units LLVM may read (dwarf/source/unit_checks.h), the split
// units (dwarf/source/split_units.h), the units at an address
// (dwarf/query/units_at.h), the types (dwarf/query/types.h), Go's code
// (dwarf/query/go_code.h), inlined copies read raw
// (dwarf/query/inlined_copies.h), the line tables (dwarf/query/line_tables.h),
// the functions by name (dwarf/query/function_finder.h), addresses in source
// terms (dwarf/query/source_places.h), variables (dwarf/query/variables.h),
// the function index and what it reads
// (dwarf/query/index_inputs.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/Object/ObjectFile.h>

#include "dwarf/debug_info.h"
#include "dwarf/elf/elf_image.h"
#include "dwarf/expr/cfa.h"
#include "dwarf/index/function_index.h"
#include "dwarf/query/file_provenance.h"
#include "dwarf/query/function_finder.h"
#include "dwarf/query/go_code.h"
#include "dwarf/query/image_facts.h"
#include "dwarf/query/index_inputs.h"
#include "dwarf/query/inlined_copies.h"
#include "dwarf/query/line_tables.h"
#include "dwarf/query/source_places.h"
#include "dwarf/query/types.h"
#include "dwarf/query/units_at.h"
#include "dwarf/query/variables.h"
#include "dwarf/index/index_cache.h"
#include "dwarf/index/name_index.h"
#include "dwarf/index/name_search.h"
#include "dwarf/lang/cxx_names.h"
#include "dwarf/lang/go_pclntab.h"
#include "dwarf/raw/die_stream_check.h"
#include "dwarf/raw/raw_unit.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class LlvmDebugInfo final : public DebugInfo {
 public:
  // Reads the DWARF from a separate debug file when the program has none
  // (DwarfFiles::attach_separate_debug).
  LlvmDebugInfo(ElfImage image, OpenOptions options);

  // The facts of the ELF file: its image answers them (dwarf/query/image_facts.h).
  ElfFacts &elf() override { return image_facts_; }
  const ElfFacts &elf() const override { return image_facts_; }
  // Where the DWARF came from: its parts say (dwarf/query/file_provenance.h).
  DwarfProvenance &provenance() override { return provenance_; }
  const DwarfProvenance &provenance() const override { return provenance_; }

  // Functions by name: the FunctionFinder finds them (dwarf/query/function_finder.h).
  std::vector<Function> find_functions(const std::string &name, const std::string &file,
                                       InlineCopies inlines) override {
    return functions_.find_functions(name, file, inlines);
  }
  std::vector<Function> function_symbols(const std::string &name) override { return functions_.function_symbols(name); }
  std::vector<std::string> similar_functions(const std::string &name, size_t max) override {
    return functions_.similar_functions(name, max);
  }
  std::vector<std::string_view> function_names() override { return functions_.function_names(); }
  uint64_t probe_entry(const Function &fn) override;

  // The questions of one function's lines: its line tables answer them (dwarf/query/line_tables.h).
  std::vector<LineSite> line_sites_in(const Function &fn, int line) override { return lines_.line_sites_in(fn, line); }
  std::vector<int> lines_with_code(const Function &fn) override { return lines_.lines_with_code(fn); }
  std::vector<LineSite> line_rows(const Function &fn) override { return lines_.line_rows(fn); }
  std::vector<std::pair<LineSite, Function>> file_line_sites(const std::string &file, int line) override;

  // Variables and return types: the Variables part answers them (dwarf/query/variables.h).
  std::vector<Variable> variables_at(const Function &fn, uint64_t pc) override { return variables_.variables_at(fn, pc); }
  std::optional<Variable> variable_at(const Function &fn, uint64_t pc, std::string_view name) override {
    return variables_.variable_at(fn, pc, name);
  }
  TypeRef return_type(const Function &fn) override { return variables_.return_type(fn); }
  std::optional<TypeInfo> scalar_return_type(const Function &fn) override;

  // The type questions: the Types part answers them (dwarf/query/types.h).
  TypeInfo describe(TypeRef type) override { return types_.describe(type); }
  std::optional<Enumeration> enumeration(TypeRef type) override { return types_.enumeration(type); }
  std::optional<VariantPart> variant_part(TypeRef type) override { return types_.variant_part(type); }
  std::optional<Member> member(TypeRef aggregate, const std::string &name) override {
    return types_.member(aggregate, name);
  }
  std::vector<Member> members_named(TypeRef aggregate, const std::string &name) override {
    return types_.members_named(aggregate, name);
  }
  std::vector<std::string> member_names(TypeRef aggregate) override { return types_.member_names(aggregate); }

  std::string find_source_file(const std::string &suffix) override {
    return lines_.find_source_file(units_naming(suffix), suffix);
  }
  std::optional<SourcePlace> source_of(uint64_t address) override;
  std::vector<CodeFrame> frames_at(uint64_t address) override { return places_.frames_at(address); }
  bool is_instruction_start(const Function &fn, uint64_t address) override;
  std::string instruction_oracle() override;
  // Go's questions: the GoCode part answers them (dwarf/query/go_code.h).
  bool is_go_function(const Function &fn) override { return go_.is_go_function(fn); }
  Result<std::vector<uint64_t>> return_instructions(const Function &fn) override {
    return go_.return_instructions(fn);
  }
  std::vector<Variable> go_results(const Function &fn) override { return go_.go_results(fn); }

  bool has_dwarf() const override { return files_.no_dwarf_note().empty(); }

  // The CFA rule at `pc`, from .eh_frame, else .debug_frame (dwarf/expr/cfa.h).
  Result<CfaRule> cfa_at(uint64_t pc) { return frames_.cfa_at(pc); }

  bool demangles() const override { return open_options_.demangle; }

 private:
  // The units whose line tables may name `file` (a path suffix), as
  // function_index_ answers (else every compile unit). `search`: by the byte
  // search, whatever the cache.
  std::vector<llvm::DWARFUnit *> units_naming(const std::string &file, bool search = false);
  // file_line_sites() over `units`.
  std::vector<std::pair<LineSite, Function>> file_line_sites_in(const std::vector<llvm::DWARFUnit *> &units,
                                                                const std::string &file, int line);

  // The files, declared first: the image (in them) is used by all below.
  DwarfFiles files_;
  ElfImage &image_ = files_.image();
  // Which units LLVM may read (dwarf/source/unit_checks.h): its dwarf() every
  // unit checked, unit_dwarf() the unit headers and unit DIEs, a unit's other
  // DIEs once enter() has checked it. Each throws DamagedDwarf when it meets
  // a damaged unit.
  UnitChecks checks_{files_};
  // The split units, and the DIE handles (dwarf/source/split_handle.h) that
  // may name their DIEs: split_.die_at(), split_.handle_of().
  SplitUnits split_{image_.path(), checks_};
  UnitsAt units_at_{checks_, split_, image_.layout()};  // the unit and function DIE at an address
  Types types_{split_};
  InlinedCopies inlined_copies_{files_, checks_, split_};  // those read raw
  LineTables lines_{files_, checks_, split_};
  SourcePlaces places_{checks_, units_at_, lines_};  // addresses in source terms
  GoCode go_{files_, split_, units_at_, types_};
  ImageFacts image_facts_{image_, go_};
  IndexInputs index_inputs_{files_, checks_, split_};
  const OpenOptions open_options_;
  // Where functions by name and units by source file are (after the
  // symbol table): index, byte search, or nothing (walk every unit).
  FunctionIndex function_index_;  // made with the object, from its ELF facts
  FunctionFinder functions_{{files_, checks_, split_, units_at_, inlined_copies_, lines_, go_, function_index_,
                             open_options_.demangle}};
  FrameTables frames_{files_};
  Variables variables_{files_, split_, types_, frames_};
  FileProvenance provenance_{files_, split_, function_index_};
};

}  // namespace kpp::dwarf
