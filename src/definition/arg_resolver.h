// Probe arguments (p->name, $retval, %di, ...) to fetch-args at one site.
#pragma once

#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "src/definition/fetch_format.h"
#include "src/definition/trace_definition.h"
#include "src/spec/probe_spec.h"

namespace kpp {

struct ArgSite {
  dwarf::DebugInfo &debug;
  const dwarf::Function &function;
  uint64_t pc = 0;           // link-time address of the probe
  bool is_return = false;
  const FetchFormatter &formatter;
  std::string where;         // "walk:5 (walk+0x1e)", for messages
  // A return probed on a return instruction (Go: never a uretprobe):
  // $retval and the results are read from where Go's ABI puts them there.
  bool at_return_instruction = false;
  // How many elements of a sequence (a slice, Vec, std::vector) are fetched (1-64).
  unsigned max_items = 8;
  // Whether an enum's field carries its type's handle, for the names to be
  // looked up when events are shown: a program's probes only (a kernel
  // event shows numbers, and keeps perf's field name: `mode`, not `mode__kq...`).
  bool names_enums = true;
};

// Every argument of `spec` as fetch-args at `site`, named as perf names them.
// Errors say which argument, where, and why; they point at the argument in
// the spec text.
Result<std::vector<FetchArg>> resolve_args(const ProbeSpec &spec, const ArgSite &site);

}  // namespace kpp
