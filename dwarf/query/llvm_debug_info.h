// The LLVM-backed DebugInfo (private to dwarf/; nothing outside includes it):
// the DWARF of a program, read beside its ELF image (dwarf/elf/elf_image.h),
// which answers the questions of the ELF file itself.
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
#include "dwarf/elf/mapped_object.h"
#include "dwarf/expr/cfa.h"
#include "dwarf/index/function_index.h"
#include "dwarf/index/index_cache.h"
#include "dwarf/index/name_index.h"
#include "dwarf/index/name_search.h"
#include "dwarf/lang/cxx_names.h"
#include "dwarf/lang/go_pclntab.h"
#include "dwarf/raw/die_stream_check.h"
#include "dwarf/raw/raw_unit.h"
#include "dwarf/source/dwarf_problems.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

// The kind and signedness of a DW_TAG_base_type with DW_AT_encoding
// `encoding` (Kind::Other for encodings no fetch type fits).
void set_base_type_kind(TypeInfo &info, uint64_t encoding);

// map_unit_headers_alone() for the .debug_info of `context`, read from the
// file at `path` through `mapping`: called before LLVM reads the unit headers.
// Returns where the units start (kept in the cache as a .units file).
std::vector<UnitStart> map_headers_alone(llvm::DWARFContext &context, const std::string &path, std::string_view mapping,
                                         std::span<const UnitStart> known = {});

class LlvmDebugInfo final : public DebugInfo, private IndexedDwarf {
 public:
  LlvmDebugInfo(ElfImage image, OpenOptions options);

  const std::string &path() const override { return image_.path(); }
  const std::string &debug_path() const override { return debug_path_.empty() ? image_.path() : debug_path_; }
  uint16_t machine() const override { return image_.machine(); }
  bool is_kernel() const override { return image_.is_kernel(); }
  std::string build_id() const override { return image_.build_id(); }
  bool is_shared_library() const override { return image_.is_shared_library(); }

  std::vector<Function> find_functions(const std::string &name, const std::string &file,
                                       InlineCopies inlines) override;
  std::vector<Function> functions_by_symbol(const std::string &name);  // find_functions without DWARF
  std::vector<Function> function_symbols(const std::string &name) override;
  std::vector<std::string> similar_functions(const std::string &name, size_t max) override;
  uint64_t probe_entry(const Function &fn) override;

  std::vector<LineSite> line_sites_in(const Function &fn, int line) override;
  std::vector<int> lines_with_code(const Function &fn) override;
  std::vector<std::pair<LineSite, Function>> file_line_sites(const std::string &file, int line) override;

  std::vector<Variable> variables_at(const Function &fn, uint64_t pc) override;
  std::optional<Variable> variable_at(const Function &fn, uint64_t pc, std::string_view name) override;
  TypeRef return_type(const Function &fn) override;
  std::optional<TypeInfo> scalar_return_type(const Function &fn) override;

  TypeInfo describe(TypeRef type) override;
  std::optional<Enumeration> enumeration(TypeRef type) override;
  std::optional<VariantPart> variant_part(TypeRef type) override;
  std::optional<Member> member(TypeRef aggregate, const std::string &name) override;
  std::vector<Member> members_named(TypeRef aggregate, const std::string &name) override;
  std::vector<std::string> member_names(TypeRef aggregate) override;

  std::vector<std::string_view> function_names() override;
  std::vector<LineSite> line_rows(const Function &fn) override;
  std::string find_source_file(const std::string &suffix) override;
  std::optional<SourcePlace> source_of(uint64_t address) override;
  std::vector<CodeFrame> frames_at(uint64_t address) override;
  bool is_instruction_start(const Function &fn, uint64_t address) override;
  std::string instruction_oracle() override;
  bool is_go_function(const Function &fn) override;  // dwarf/lang/go_functions.cpp
  Result<std::vector<uint64_t>> return_instructions(const Function &fn) override;
  std::vector<Variable> go_results(const Function &fn) override;
  bool returns_at(uint64_t address) override { return image_.returns_at(address); }

  // Questions of the ELF file alone: its image answers them.
  std::optional<uint64_t> address_of_file_offset(uint64_t at) override { return image_.address_of_file_offset(at); }
  Result<uint64_t> file_offset(uint64_t address) override { return image_.file_offset(address); }
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t at) override;  // dwarf/lang/go_table.cpp
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names) override {
    return image_.symbol_addresses(names);
  }
  std::optional<uint64_t> find_read_only_bytes(std::string_view b) override { return image_.find_read_only_bytes(b); }
  std::optional<GotSlot> got_slot_of(uint64_t address) override { return image_.got_slot_of(address); }
  std::vector<uint64_t> function_symbol_addresses(const std::string &name) override {
    return image_.function_symbol_addresses(name);
  }
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address) override {
    return image_.unique_function_symbol_before(address);
  }

  // Whether the file has a .debug_info (its units are not read yet).
  bool has_debug_info() const;
  bool has_dwarf() const override { return no_dwarf_note_.empty(); }
  std::string dwarf_note() const override { return no_dwarf_note_; }
  std::string awaited_debug_file() const override { return awaited_build_id_; }
  // Gives back the pages of the files' mappings read so far (see
  // dwarf/elf/mapped_object.h): after open, after the index scan.
  void drop_mapped_pages() override {
    image_.drop_mapped_pages();
    drop_pages(debug_mapping_, debug_mapping_);
    drop_pages(inflated_.mapping, inflated_.mapping);
  }
  // For a program without DWARF: finds its separate debug file (build-id,
  // .gnu_debuglink) and reads the DWARF from it (dwarf/source/separate_debug.cpp).
  // The error lists every path tried; dwarf_note() names them after a failure.
  Status attach_separate_debug();
  // The debug file of `build_id` from debuginfod: here, or in the background
  // (OpenOptions::debuginfod_background: an error while it is pending).
  Result<std::string> fetch_from_debuginfod(const std::string &build_id);

  // The CFA rule at `pc`, from .eh_frame, else .debug_frame (dwarf/expr/cfa.cpp).
  Result<CfaRule> cfa_at(uint64_t pc);

  IndexSource index_source() const override { return function_index_.source(); }
  std::string index_note() const override {
    std::string note = function_index_.note();
    // Why the cache is not used, unless the index's note says it already.
    if (!cache_refused_.empty() && note.find(cache_refused_) == std::string::npos)
      note = note.empty() ? cache_refused_ : cache_refused_ + "\n  " + note;
    return note;
  }
  std::vector<std::string> dwarf_problems() const override { return problems_.messages(); }
  std::string missing_split_dwarf() override;
  std::string split_dwarf_source() override;
  std::string unread_supplementary() override;  // dwarf/source/supplementary.cpp
  bool demangles() const override { return open_options_.demangle; }

 private:
  void make_frame_tables();
  std::optional<Function> function_from_die(llvm::DWARFDie die);
  // The whole path of the file `attribute` (DW_AT_decl_file, DW_AT_call_file) of `die` names, read in
  // the unit that holds the attribute (dwarf/die_origin.h); empty when there is none.
  std::string source_file_of(llvm::DWARFDie die, llvm::dwarf::Attribute attribute);
  // A function scan_for() found, as find_functions() keeps or drops it: the
  // Function, its linkage name and whether it is a copy inlined into its own
  // body (die_links.h). From an LLVM DIE (found_function()), or an inlined
  // copy read raw (dwarf/query/inlined_copies.cpp), without LLVM reading the copy's
  // unit: its name, declaration and linkage name are then its origin's, which
  // LLVM reads once for all the copies of a function (`origins`).
  struct FoundFunction {
    Function function;
    std::string linkage_name;
    bool inlined_into_itself = false;
    size_t position = 0;  // read raw: how many DIEs scan_for() found before it (the index's order)
  };
  std::optional<FoundFunction> found_function(llvm::DWARFDie die);
  // scan_for()'s functions, DIEs and copies read raw, in the index's order.
  std::vector<FoundFunction> functions_found(const std::string &name, bool subprograms, bool inline_copies);
  struct OriginFacts {
    bool valid = false;  // LLVM reads a DIE there
    std::string name, linkage_name, decl_file;
    int decl_line = 0;
    uint64_t root = 0;  // origin_root()'s offset
  };
  using OriginCache = std::unordered_map<uint64_t, OriginFacts>;
  std::optional<FoundFunction> copy_read_raw(uint64_t offset, OriginCache &origins);
  bool origin_elsewhere(uint64_t offset);
  const OriginFacts &origin_facts(uint64_t offset, OriginCache &origins);
  bool links_reach(uint64_t body, std::optional<uint64_t> first_link, uint64_t root);
  const RawUnit *raw_unit_holding(uint64_t offset);
  std::unordered_map<uint64_t, std::optional<RawUnit>> raw_units_;  // by unit offset
  // Subprograms with code (and, when asked, inlined copies) named `name`, as function_index_
  // finds them, else by LLVM's walk of every unit; with `instances`, also those named
  // `name<...>` (a template's instances). With `read_raw`, the copies the index gives
  // that can be read raw go there, as Functions, instead.
  std::vector<llvm::DWARFDie> scan_for(const std::string &name, bool subprograms, bool inline_copies,
                                       bool instances = false, std::vector<FoundFunction> *read_raw = nullptr);
  // find_functions for a C++ name (cxx_names.h): symbols and DIEs by their demangled names.
  std::vector<Function> find_cxx_functions(const CxxQuery &query, const std::string &file, InlineCopies inlines);
  // The function a symbol table knows alone: its symbol's extent, no DWARF.
  static Function function_of_symbol(const ElfSymbol &sym, const std::string &name);
  // Where this run keeps cache files of `binary` (path(), or the DWARF's
  // file): the directory and the binary's key; nullopt with --no-cache or
  // without a directory.
  struct CacheHome {
    std::string directory;
    IndexKey key;
    uint64_t max_bytes = 0;
  };
  std::optional<CacheHome> cache_home(const std::string &binary) const;
  // What function_index_ reads (dwarf/index/function_index.h): the raw sections, the
  // DWARF's file open for its searches' pread(2) (closed with this object).
  DwarfBytes raw_dwarf() override;
  MappedFile searched_file() override;
  std::vector<UnitSpan> unit_spans() override;
  UniqueFd searched_fd_;
  bool searched_fd_opened_ = false;
  // The units whose line tables may name `file` (a path suffix), as
  // function_index_ answers (else every compile unit). `search`: by the byte
  // search, whatever the cache.
  std::vector<llvm::DWARFUnit *> units_naming(const std::string &file, bool search = false);
  // file_line_sites() over `units`.
  std::vector<std::pair<LineSite, Function>> file_line_sites_in(const std::vector<llvm::DWARFUnit *> &units,
                                                                const std::string &file, int line);
  // The line-table rows of the unit that holds `fn`, restricted to its ranges and its file.
  struct LineRow { uint64_t address; int line; bool is_stmt; bool prologue_end; bool same_file; bool seq_start; };
  std::vector<LineRow> rows_of(const Function &fn);
  std::string file_of_row(llvm::DWARFUnit *unit, const llvm::DWARFDebugLine::LineTable *table, uint64_t file_index);
  // The index of the row of `table` that covers `address` (UnknownRowIndex:
  // none), in the section the layout put it in for a .ko.
  uint32_t row_at(const llvm::DWARFDebugLine::LineTable &table, uint64_t address);
  // The functions whose code is at `address`, outermost first: the
  // out-of-line subprogram, then each inlined copy that holds the address
  // (dwarf/query/source_places.cpp). Empty when no subprogram covers it.
  std::vector<llvm::DWARFDie> function_chain_at(uint64_t address);
  // Which of `chain` has `line` of `file` in its source text; nullopt: none.
  std::optional<size_t> line_owner(const std::vector<llvm::DWARFDie> &chain, const std::string &file, int line);
  // The function whose source line starts at `address`, and that line
  // (0: none of the functions there has a line there): what source_of()
  // and file_line_sites() describe an address by.
  struct AddressOwner {
    llvm::DWARFDie function;
    int line = 0;
  };
  std::optional<AddressOwner> owner_of_address(uint64_t address);
  // Where the variable described by `die` lives at `pc`.
  // `block_entry` is the entry of the (possibly inlined) function whose body declares it.
  Result<Place> locate(llvm::DWARFDie die, llvm::DWARFDie function, uint64_t pc, uint64_t block_entry);
  // variables_at(), or only the variable named `only` when it is not empty.
  std::vector<Variable> variables_in_scope(const Function &fn, uint64_t pc, std::string_view only);
  // The address ranges inside `scope` where `die` has a location.
  std::vector<AddressRange> available_ranges(llvm::DWARFDie die, llvm::DWARFDie scope);
  // DIE handles (split_handle.h) and the split units they name (dwarf/source/split_units.cpp).
  llvm::DWARFDie die_at(uint64_t handle);
  uint64_t handle_of(llvm::DWARFDie die);
  // The split unit (.dwo, or a .dwp's) of the skeleton at `index` among the
  // compile units, loaded on first use; null when the unit is not a skeleton
  // or its split unit is nowhere to be found.
  llvm::DWARFUnit *split_unit(uint64_t index);
  std::optional<uint64_t> skeleton_index(const llvm::DWARFUnit *unit);
  // Every split unit's bytes, for the name index; `skeletons` counts the skeleton units.
  std::vector<SplitUnitBytes> split_unit_bytes(size_t &skeletons) override;
  // The function DIE at `address` and its unit, from the split unit when
  // there is one (BlockDIE is not looked for).
  llvm::DWARFContext::DIEsForAddress dies_at(uint64_t address);
  // The compile unit whose code holds `address` (dwarf/source/split_units.cpp).
  llvm::DWARFCompileUnit *unit_at(uint64_t address);
  // dies_at() in a relocatable object (a .ko), whose .debug_aranges LLVM
  // misreads: the units found by their own ranges (dwarf/query/relocatable_units.cpp).
  llvm::DWARFContext::DIEsForAddress relocatable_dies_at(uint64_t address);
  llvm::DWARFCompileUnit *relocatable_unit_at(uint64_t address);
  struct UnitRange {
    uint64_t begin, end;
    llvm::DWARFCompileUnit *unit;
  };
  std::optional<std::vector<UnitRange>> relocatable_units_;  // sorted by begin; made on first use
  TypeRef type_of(llvm::DWARFDie die);
  // A Go program without function symbols (linked with -ldflags=-s -w):
  // Go's own function table, read on first use (dwarf/lang/go_table.cpp);
  // null for other files, or when the table is damaged (go_table_error_ says how).
  const GoFunctionTable *go_table();
  std::optional<GoFunctionTable> go_table_;
  bool go_table_read_ = false;
  std::string go_table_error_;
  std::optional<Place> go_result_place(llvm::DWARFDie die, size_t &next_int, size_t &next_float, std::string &why);
  // Calls `visit` on each named member of an aggregate, with the offset of
  // the aggregate (base class, anonymous member) that holds it, until it
  // returns true (then so does this).
  using MemberVisit = std::function<bool(const llvm::DWARFDie &member, int64_t base)>;
  bool walk_members(TypeRef aggregate, const MemberVisit &visit);
  Member member_at(const llvm::DWARFDie &member, const std::string &name);
  std::string type_name(llvm::DWARFDie type, int depth = 0);

  // The separate debug file the DWARF comes from (empty: the program has it).
  std::string debug_path_;
  llvm::object::OwningBinary<llvm::object::ObjectFile> debug_binary_;
  std::string_view debug_mapping_;  // debug_binary_'s bytes when file-mapped
  // The program's ELF image. Declared after debug_binary_, whose symbol
  // table it may have adopted, so that it is destroyed first.
  ElfImage image_;
  // The DWARF's file with its compressed sections inflated (dwarf/elf/inflated_image.h),
  // made by context() when they are: a cache file, or a memfd (inflated_fd_) with --no-cache.
  MappedObject inflated_;
  std::string inflated_path_;
  UniqueFd inflated_fd_;
  void inflate_dwarf();
  // The mapping the DWARF is read from (empty when it is not a file mapping), and its file.
  std::string_view dwarf_mapping() const {
    return inflated_.binary.getBinary() ? inflated_.mapping : debug_path_.empty() ? image_.mapping() : debug_mapping_;
  }
  const std::string &dwarf_file() const { return inflated_path_.empty() ? debug_path() : inflated_path_; }
  std::unique_ptr<llvm::DWARFContext> context_;  // context(), made on first use
  DwarfProblems problems_;  // what LLVM's handlers of context_ report
  // Made on first use, none of its DIEs checked: for the raw readers (the
  // name index's scan, .debug_aranges) and the accessors below.
  llvm::DWARFContext &context();
  // context(), its unit headers isolated (isolate_headers) before the first
  // query makes LLVM read them all: a probe that needs no DWARF (FUNC%return,
  // -F) never maps them.
  llvm::DWARFContext &mapped_dwarf();
  bool headers_mapped_ = false;
  // Which units LLVM may read (dwarf/raw/unit_checks.cpp); each throws
  // DamagedDwarf when it meets a damaged unit. dwarf(): every unit checked.
  // unit_dwarf(): the unit headers and unit DIEs checked; a unit's other
  // DIEs once enter() has checked it (or, when it names DIEs elsewhere, every unit).
  llvm::DWARFContext &dwarf();
  llvm::DWARFContext &unit_dwarf();
  void enter(const llvm::DWARFUnit &unit);
  void check_every_unit();
  [[noreturn]] void refuse(Error damage);  // throws DamagedDwarf, and every later query too
  bool dies_from_cached_image() const;
  std::string dies_file() const;  // the file LLVM reads the DIEs from, for messages
  enum class Verdict { None, UnitDies, EveryDie };  // what an earlier run found sound
  Verdict cached_verdict();  // also names verdict_file_, where a new verdict goes
  void look_up_verdict();
  Verdict verdict_ = Verdict::None;
  bool all_dies_checked_ = false, verdict_looked_up_ = false;
  std::optional<UnitGate> gate_;
  std::optional<Error> damaged_;  // what was found: every later query meets it too
  std::string verdict_file_;
  IndexKey verdict_key_;
  uint64_t verdict_max_bytes_ = 0;
  std::string awaited_build_id_;  // its debug file is being fetched in the background
  std::string no_dwarf_note_;  // set when no DWARF was found: where it was looked for
  const OpenOptions open_options_;
  // Where functions by name and units by source file are (after the
  // symbol table): index, byte search, or nothing (walk every unit).
  FunctionIndex function_index_;  // made with the object, from its ELF facts
  std::optional<std::string> function_list_;  // function_names(), one per line
  std::string function_list();                // made from the symbol table
  mutable std::string cache_refused_;  // why cache_home() found no usable directory (for -v)
  bool frame_tables_made_ = false;
  std::unordered_map<uint64_t, llvm::DWARFUnit *> split_units_;           // by skeleton index; null: none found
  std::unordered_map<std::string, std::string> split_files_refused_;  // places split units may be read from: why not ("": may)
  std::unordered_map<const llvm::DWARFUnit *, uint64_t> skeleton_indexes_;  // every compile unit's index
  std::unique_ptr<FrameTable> eh_frames_, debug_frames_;  // null when the section is absent
};

}  // namespace kpp::dwarf
