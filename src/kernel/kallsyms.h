// The running kernel's symbols (/proc/kallsyms): where each vmlinux and
// module symbol is now, after KASLR moved them. Kernel probes are checked
// against it before they are written (src/kernel/kernel_refusals.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kpp {

struct KallsymsEntry {
  uint64_t address = 0;
  char type = 't';
  std::string name;
  std::string module;  // "" for the vmlinux
};

class Kallsyms {
 public:
  // "ffffffff81000000 T _text\nffffffffc0a01000 t lo_ioctl\t[loop]\n"
  static Kallsyms parse(const std::string &text);
  // /proc/kallsyms; nullopt when it cannot be read or hides the addresses
  // (all zero: not root, or kptr_restrict).
  static std::optional<Kallsyms> read();

  // The addresses of `name` in `module` ("" for the vmlinux).
  std::vector<uint64_t> addresses_of(const std::string &name, const std::string &module) const;
  // How many symbols of that name the kernel holds, vmlinux and modules.
  size_t count(const std::string &name) const;
  // Whether any symbol of `module` is listed (a module that is not loaded has none).
  bool has_module(const std::string &module) const;
  // The nearest vmlinux or module code symbol (t, T) at or before `address`, and the offset.
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address) const;
  // The code symbol symbolize() names, with its module; null when none.
  const KallsymsEntry *code_symbol_at(uint64_t address) const;
  // symbolize() of the address `offset` past the vmlinux's _text: the
  // function a definition anchored on "_text+offset" is in.
  std::optional<std::pair<std::string, uint64_t>> at_text_offset(uint64_t offset) const;
  // The code symbol (t, T) holding `address` as [start, end): end is the next
  // higher address kallsyms lists, the size the kernel itself gives a symbol.
  std::optional<std::pair<uint64_t, uint64_t>> function_range(uint64_t address) const;
  bool addresses_hidden() const;

 private:
  std::vector<KallsymsEntry> entries_;  // sorted by address
};

}  // namespace kpp
