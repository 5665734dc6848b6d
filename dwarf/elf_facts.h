// ElfFacts: what one ELF file says apart from its DWARF, as the probe
// resolver asks it: the file and its machine, its build-id, its symbols,
// the file offsets uprobes take, the GOT, its read-only data. DebugInfo
// (dwarf/debug_info.h) adds the DWARF questions on top; code that needs only
// these facts can take an ElfFacts. No LLVM type appears here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kpp::dwarf {

class ElfFacts {
 public:
  virtual ~ElfFacts() = default;

  virtual const std::string &path() const = 0;  // the program, library, vmlinux or .ko
  virtual uint16_t machine() const = 0;         // ELF e_machine
  virtual bool is_kernel() const = 0;           // a vmlinux (has linux_banner)
  virtual std::string build_id() const = 0;     // hex, empty when absent
  // A shared library (ET_DYN without a program interpreter): it runs only inside a program.
  virtual bool is_shared_library() const { return false; }

  // The link-time address at file offset `offset` (the inverse of file_offset).
  virtual std::optional<uint64_t> address_of_file_offset(uint64_t offset) = 0;
  // Converts a link-time address to the file offset uprobes take.
  virtual Result<uint64_t> file_offset(uint64_t address) = 0;
  // The ELF symbol that contains `address`, and the offset into it.
  virtual std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address) = 0;

  // The link-time address of `bytes` in the program's read-only data (a
  // string literal the compiler also keeps as a variable's constant value),
  // or nullopt: a uprobe can read a constant string only from the program.
  virtual std::optional<uint64_t> find_read_only_bytes(std::string_view bytes) {
    (void)bytes;
    return std::nullopt;
  }
  // For a global the program's code reaches through the GOT (an exported
  // variable of a shared library, which the executable may have copied into
  // its own data by a copy relocation): the link-time address of its GOT
  // slot and `address`'s offset into the variable. nullopt for the others.
  struct GotSlot {
    uint64_t slot = 0;
    uint64_t offset = 0;
  };
  virtual std::optional<GotSlot> got_slot_of(uint64_t address) {
    (void)address;
    return std::nullopt;
  }

  // Whether a return instruction is at `address`: where a Go function's
  // FUNC%return puts its probes (latency pairs take such a probe for a return).
  virtual bool returns_at(uint64_t address) {
    (void)address;
    return false;
  }

  // The link-time addresses of those of `names` that are symbols of any type
  // (section markers such as __noinstr_text_start included).
  virtual std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names) {
    (void)names;
    return {};
  }
  // The link-time addresses of every function symbol named `name`: more
  // than one for a static function whose name other files also use (the
  // kernel refuses such a name as ambiguous). Empty when unknown.
  virtual std::vector<uint64_t> function_symbol_addresses(const std::string &name) {
    (void)name;
    return {};
  }
  // The nearest function symbol at or before `address`, in the same section,
  // whose name no other function symbol has, and `address`'s offset from it:
  // what a module probe on a non-unique name is anchored on.
  virtual std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address) {
    (void)address;
    return std::nullopt;
  }
};

}  // namespace kpp::dwarf
