// Which symbol a kernel definition names. The kernel finds "SYM+off" by
// looking SYM up in kallsyms, so a SYM that names several functions (same-
// named statics in different files) is refused as ambiguous by recent
// kernels (EADDRNOTAVAIL, "Target symbol is not unique" in error_log) and
// put on whichever copy kallsyms finds first by older ones. Such a site is
// anchored on a symbol that is unique instead: `_text` for the vmlinux (as
// perf probe does for every kernel probe), the nearest unique function
// symbol before it in the same section for a module.
#pragma once

#include <cstdint>
#include <string>

#include "dwarf/debug_info.h"
#include "util/result.h"

namespace kpp {

// Where a kernel definition points, in link-time addresses of the vmlinux or
// module, so that the running kernel can be checked before it is written
// (place_on_running_kernel in src/kernel/kernel_refusals.h).
struct KernelPlacement {
  std::string module;           // "" for the vmlinux
  std::string anchor;           // the symbol the definition names: "vfs_read", "_text"
  uint64_t anchor_address = 0;  // its link-time address
  std::string symbol;           // the function symbol that contains the site
  uint64_t symbol_address = 0;
  uint64_t address = 0;         // the site
  uint64_t text_address = 0;    // the vmlinux's _text (0: a module, or no _text)
  bool anchored() const { return anchor != symbol; }
  // The definition's "[MOD:]SYM" and offset.
  std::string definition_symbol() const { return module.empty() ? anchor : module + ":" + anchor; }
  uint64_t offset() const { return address - anchor_address; }
};

// The placement of a kernel probe at link-time `address` of `debug` (the
// vmlinux, or the module `module`). An error names the symbol and why no
// unique anchor exists. `entry_symbol`, when it is a function symbol that
// starts at `address`, names the site among the aliases there (the name
// the user asked for: __x64_sys_pause, not the __do_sys_pause it shares
// its address with), as perf probe writes it.
Result<KernelPlacement> place_kernel_probe(dwarf::ElfFacts &debug, uint64_t address, const std::string &module,
                                           const std::string &entry_symbol = {});

// `placement` (of the vmlinux) re-anchored on its `_text`: what a name that
// is unique in the vmlinux but not in the running kernel (a module has a
// function of that name too) is written as.
KernelPlacement anchored_on_text(KernelPlacement placement);

}  // namespace kpp
