// Writes a dwarf::FetchExpr in the kernel's fetch-arg syntax.
#pragma once

#include <string>

#include "arch/arch.h"
#include "dwarf/debug_info.h"
#include "util/result.h"

namespace kpp {

struct FetchFormatter {
  const arch::Registers &regs;
  dwarf::DebugInfo &debug;
  bool uprobe = false;
  // The probe's own link-time address and file offset: uprobes name globals
  // relative to the probed file (see format()).
  uint64_t probe_address = 0;
  uint64_t probe_file_offset = 0;

  // `expr` in terms this probe can fetch: in a uprobe, the address of a
  // global as a value is the probe's run-time address (%ip) plus the
  // link-time distance from the probe to the global, which the decoder adds
  // (post_add): the program may be loaded anywhere.
  dwarf::FetchExpr lower(const dwarf::FetchExpr &expr) const;

  // "%di", "+8(%di)", "+0(+8(%di))", "@+0x4010", "@jiffies+8", "\\7", "%ip".
  // The bits and post_add of `expr` are not part of the text (the type and
  // the field name carry them). Fails for a register this architecture's
  // kprobes cannot fetch.
  Result<std::string> format(const dwarf::FetchExpr &expr) const;
  // The global at link-time `address`, as fetch-args name memory: through
  // its GOT slot, by file offset (uprobes), by symbol or by address.
  Result<std::string> global_memory(uint64_t address) const;
};

}  // namespace kpp
