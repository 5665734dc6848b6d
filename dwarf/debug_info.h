// DebugInfo: what the probe resolver needs to know about one ELF file and its
// DWARF, in plain data: the DWARF questions here, the facts of the ELF file
// itself (symbols, file offsets, the GOT) in the ElfFacts that elf() hands
// out (dwarf/elf_facts.h). This is the only interface to dwarf/; no LLVM
// type appears here, and nothing here knows register names or fetch-arg
// syntax (arch/ and src/definition do).
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/dwarf_provenance.h"
#include "dwarf/elf_facts.h"
#include "dwarf/place.h"
#include "util/result.h"

namespace kpp::dwarf {

class DebuginfodBackground;  // dwarf/source/debuginfod_background.h

struct AddressRange {
  uint64_t begin = 0;
  uint64_t end = 0;  // exclusive
  bool contains(uint64_t a) const { return a >= begin && a < end; }
};

// One function body: an out-of-line definition or an inlined copy.
struct Function {
  std::string name;              // source name ("walk")
  std::string symbol;            // ELF symbol that starts the body ("walk.isra.0"), may be empty
  std::string decl_file;         // the whole path, the unit's directory joined when relative
  int decl_line = 0;
  uint64_t entry = 0;            // link-time address of the first instruction
  std::vector<AddressRange> ranges;
  uint64_t die_offset = 0;       // identifies the DIE for later queries
  bool optimized = false;        // built with optimization: no prologue to skip
  bool inlined = false;          // an inlined copy (DW_TAG_inlined_subroutine) inside another function
  uint64_t frame_entry = 0;      // the entry of the out-of-line function whose frame this runs in
};

enum class InlineCopies { Include, Exclude };

// An address where a source line begins (a probe site).
struct LineSite {
  uint64_t address = 0;
  std::string file;  // the whole path of the line's file, as the line table names it
  int line = 0;
};

// A variable visible at some address, with where its value lives there.
struct Variable {
  std::string name;
  bool is_parameter = false;
  bool is_global = false;        // a global or file static, not a local
  std::optional<Place> place;    // empty when no location covers the address
  std::string unavailable_why;   // set when `place` is empty
  TypeRef type;
  // Where, inside the scope that declares it, the variable can be read
  // (its location-list entries, or the whole scope); empty for globals.
  std::vector<AddressRange> available;
  // A parameter kept in a frame slot that the function's prologue fills
  // (one DW_OP_fbreg location): valid only from probe_entry() on.
  bool prologue_slot = false;
};

// A code address described in source terms, for --list.
struct SourcePlace {
  std::string function;
  uint64_t function_entry = 0;
  int function_line = 0;  // the function's declaration line
  std::string file;       // as DWARF names the function's file
  int line = 0;           // the line at the address (0 when unknown)
};

// One frame of the code at an address, for stacks: the function whose code
// it is and the source line there. Inlining makes several frames of one
// address: the innermost (inlined) function at its line, then each caller
// at the line of its call.
struct CodeFrame {
  std::string function;
  std::string file;  // the whole path, as DWARF names it; empty when unknown
  int line = 0;      // 0 when unknown
  bool inlined = false;  // an inlined copy (its caller is the next frame)
};

// The error of a file whose DWARF LLVM must not read, thrown by the code
// that would hand it to LLVM when it cannot return one (a DWARFContext is
// made on first use, deep inside queries). Caught where commands are run
// (src/cli/main.cpp, the fuzz targets): the command ends with the message
// and status 1; nothing has been written to tracefs by then (definitions
// are planned before anything is written).
class DamagedDwarf : public std::exception {
 public:
  explicit DamagedDwarf(Error error) : error_(std::move(error)) {}
  const Error &error() const { return error_; }
  const char *what() const noexcept override { return error_.message.c_str(); }

 private:
  Error error_;
};

// How queries that must look at every unit get their name index (see
// dwarf/index/index_cache.h): built once per binary, cached on disk.
struct OpenOptions {
  bool use_cache = true;        // false (--no-cache): build in memory, read and write no cache file
  std::string cache_directory;  // empty: $XDG_CACHE_HOME/kprobe-probe, else ~/.cache/kprobe-probe
  bool demangle = true;         // C++ names demangled in function_names() and similar_functions()
  bool use_index = true;        // false: whole-file queries walk every unit with LLVM (tests compare the two)
  // false: this run reads no variable's location (-L, probes without
  // arguments), so DWARF inflated in memory (--no-cache) leaves the location
  // lists out; a location asked for anyway reads as unavailable.
  bool reads_locations = true;
  // Set: a debug file that must come from debuginfod and is not in its
  // cache is fetched there, off this thread, and the file opens without
  // DWARF meanwhile (awaited_debug_file() says so): for readers that must
  // not wait for the network (stack frames). Not owned. Null: fetched here.
  DebuginfodBackground *debuginfod_background = nullptr;
  // false: a debug file from debuginfod is taken only when its cache has it,
  // no server is asked (readers of probes already added -- -l, the sites
  // of trace's events -- whose --add fetched it: none of them may wait for
  // the network).
  bool debuginfod_fetch = true;
};

class DebugInfo {
 public:
  // Opens an ELF file and its DWARF. A file without .debug_info has its
  // DWARF read from a separate debug file when one is found (build-id or
  // .gnu_debuglink, under $KPP_DEBUG_ROOT or /usr/lib/debug: see
  // dwarf/source/debug_link.h); when none is, the file is opened without DWARF
  // (has_dwarf()): its symbol tables still name functions. `options` hold
  // for the object's whole life (the command line's --no-cache and
  // --no-demangle reach it only this way). Errors: unreadable file, not ELF.
  static Result<std::unique_ptr<DebugInfo>> open(const std::string &path, const OpenOptions &options = {});
  // A symbol as messages show it: demangled ("b(int)" for "_Z1bi") unless
  // this file was opened not to (--no-demangle).
  std::string display_symbol(const std::string &symbol) const;
  // Whether names are shown demangled (OpenOptions::demangle).
  virtual bool demangles() const { return true; }
  virtual ~DebugInfo() = default;

  // The facts of the ELF file itself, apart from its DWARF: its path,
  // machine and build-id, symbols, file offsets, the GOT. Code that needs
  // only those takes the ElfFacts.
  virtual ElfFacts &elf() = 0;
  virtual const ElfFacts &elf() const = 0;

  // Where the DWARF came from and how it read, for messages and -v: the
  // debug file, why there is none, the name index's source, what is missing
  // (dwarf/dwarf_provenance.h).
  virtual DwarfProvenance &provenance() = 0;
  virtual const DwarfProvenance &provenance() const = 0;

  // Whether the file (or its separate debug file) has DWARF. Without it
  // only the symbol tables answer: find_functions() gives their function
  // symbols, and the queries of lines, variables and types find nothing
  // (provenance().dwarf_note() says where it was looked for).
  virtual bool has_dwarf() const { return true; }

  // The out-of-line definitions of `name` (several for same-named statics)
  // and, with InlineCopies::Include, every copy inlined into other functions
  // (found by a scan of all units). `file` (a path suffix) narrows them when
  // not empty. Sorted by address.
  virtual std::vector<Function> find_functions(const std::string &name, const std::string &file,
                                               InlineCopies inlines) = 0;
  // The out-of-line bodies of `name` as the symbol table alone knows them:
  // no declaration file or line, ranges from the symbols' sizes. Enough for
  // a return probe without arguments, which then reads no DWARF at all.
  virtual std::vector<Function> function_symbols(const std::string &name) = 0;
  // Up to `max` function names closest to `name`, for "did you mean".
  virtual std::vector<std::string> similar_functions(const std::string &name, size_t max) = 0;

  // The address a probe on the function's entry uses: past the prologue when
  // the function was compiled without optimization (its frame-based variables
  // are valid only there), else the entry itself, as perf probe does.
  virtual uint64_t probe_entry(const Function &fn) = 0;

  // Every address inside `fn` where source line `line` (absolute) begins.
  virtual std::vector<LineSite> line_sites_in(const Function &fn, int line) = 0;
  // The lines of `fn` that have code, for "did you mean" on a line without code.
  virtual std::vector<int> lines_with_code(const Function &fn) = 0;
  // Every address where `line` of a file whose path ends with `file` begins,
  // with the function source_of() names there: the one whose source text
  // has the line (an inlined copy when the line's code was inlined, under
  // LTO often into another file's function), or the caller at an inlined
  // copy's first instruction.
  virtual std::vector<std::pair<LineSite, Function>> file_line_sites(const std::string &file, int line) = 0;

  // Variables and parameters visible at `pc` inside `fn`, innermost scope first.
  virtual std::vector<Variable> variables_at(const Function &fn, uint64_t pc) = 0;
  // The one named `name` of them, if any: what reading one variable needs,
  // without locating and typing the rest (an LTO unit's globals number
  // thousands, and a function inlined 20 times is looked at 20 times).
  virtual std::optional<Variable> variable_at(const Function &fn, uint64_t pc, std::string_view name) = 0;
  // The return type of `fn` (void when it has none).
  virtual TypeRef return_type(const Function &fn) = 0;
  // The same, described, when it is void or a scalar (an integer, char,
  // bool, enum, float or pointer, through typedefs and qualifiers) that the
  // raw DWARF of `fn`'s unit gives without the rest of the file: what
  // FUNC%return $retval needs, fast. `fn` may come from function_symbols().
  // nullopt otherwise (return_type() and describe() answer then); the
  // description has no name.
  virtual std::optional<TypeInfo> scalar_return_type(const Function &fn) {
    (void)fn;
    return std::nullopt;
  }

  // Type queries, on the handles that Variable::type and these return.
  virtual TypeInfo describe(TypeRef type) = 0;
  // The enumerators of an enumeration type (through typedefs and
  // qualifiers), as gdb names them; nullopt for any other type, or a
  // handle that names no DIE (it may come from a definition on disk).
  virtual std::optional<Enumeration> enumeration(TypeRef type) {
    (void)type;
    return std::nullopt;
  }
  // The variants of a Rust enum type (through typedefs); nullopt for any
  // other type, or one whose variants are chosen by ranges of values
  // (DW_AT_discr_list), which the readers of these values do not decode.
  virtual std::optional<VariantPart> variant_part(TypeRef type) {
    (void)type;
    return std::nullopt;
  }
  // A member of a struct/union (searching anonymous members), with its byte
  // offset and, for bitfields, bit position; nullopt when there is none.
  virtual std::optional<Member> member(TypeRef aggregate, const std::string &name) = 0;
  virtual std::vector<std::string> member_names(TypeRef aggregate) = 0;
  // Every member named `name`, in member() order: base classes can each
  // have one (std::tuple's _M_head_impl, libstdc++'s unique_ptr).
  virtual std::vector<Member> members_named(TypeRef aggregate, const std::string &name) {
    if (auto m = member(aggregate, name)) return {*m};
    return {};
  }

  // The names of the functions with code (from the symbol table, compiler
  // suffixes cut), sorted and unique, for -F.
  // The views stay valid while this object lives; the list is cached
  // beside the name index.
  virtual std::vector<std::string_view> function_names() = 0;
  // The whole recorded path of the first source file whose path ends with
  // `suffix` (as line tables name it), or empty.
  virtual std::string find_source_file(const std::string &suffix) = 0;
  // Every statement row of `fn`'s own file in its ranges, by address, for -L and -V --range.
  virtual std::vector<LineSite> line_rows(const Function &fn) = 0;

  // The function and line at `address`, when DWARF covers it: of the
  // functions whose code is there (inlined copies too), the one whose source
  // text has the first statement the line table starts there (at the first
  // instruction of an inlined copy, the call in its caller, as perf and gdb
  // say); line 0 when none of them has a line there.
  virtual std::optional<SourcePlace> source_of(uint64_t address) = 0;
  // The frames of the code at `address`, innermost first (see CodeFrame):
  // the line-table row that covers the address, then the call site of each
  // inlined copy that holds it. Empty when no subprogram covers it.
  virtual std::vector<CodeFrame> frames_at(uint64_t address) {
    (void)address;
    return {};
  }


  // Whether an instruction starts at `address` inside `fn`: the function's
  // entry, a line-table row's address, or (when a disassembler is linked in)
  // where decoding from the start of its range lands. (A kprobe in
  // the middle of an instruction would corrupt it; the kernel's own check
  // exists only on some architectures.)
  virtual bool is_instruction_start(const Function &fn, uint64_t address) {
    (void)fn;
    (void)address;
    return true;
  }
  // What is_instruction_start() goes by, for messages: "the line table", or
  // "the line table and the disassembler" (builds with KPP_X86_DISASSEMBLER).
  virtual std::string instruction_oracle() { return "the line table"; }
  // Go code (dwarf/query/go_functions.cpp). Whether `fn` is Go's: its unit
  // was made by Go's compiler ("Go cmd/compile"), or no DWARF covers it in
  // a Go program (the runtime's assembly, a program built with -ldflags=-s
  // -w). Go's runtime reads and rewrites return addresses on a goroutine's
  // stack, so a uretprobe there can kill the program: its returns are
  // probed on its return instructions instead.
  virtual bool is_go_function(const Function &fn) {
    (void)fn;
    return false;
  }
  // The addresses of `fn`'s return instructions, by the disassembler; an
  // error that says why when they cannot all be known (no disassembler,
  // code that does not decode, a tail call that leaves without one).
  virtual Result<std::vector<uint64_t>> return_instructions(const Function &fn) {
    return Error("no instruction decoder reads " + fn.name + "'s code");
  }
  // `fn`'s results (Go's "~r0" or named results, DW_AT_variable_parameter),
  // in order, each with where Go's register ABI puts it at a return
  // instruction, or why it cannot be read there. Empty without DWARF.
  virtual std::vector<Variable> go_results(const Function &fn) {
    (void)fn;
    return {};
  }

};

}  // namespace kpp::dwarf
