// What the running kernel refuses to probe, checked before anything is
// written, so that a refusal names its reason instead of the kernel's bare
// EINVAL and leaves kprobe_events untouched.
#pragma once

#include <vector>

#include "src/definition/probe_builder.h"
#include "src/definition/trace_definition.h"
#include "src/kernel/kallsyms.h"
#include "src/kernel/kprobe_lists.h"
#include "src/util/result.h"

namespace kpp {

// Error for the first kernel definition whose symbol is in `blacklist`: the
// check by name, for when the running kernel's addresses cannot be read.
Status check_not_blacklisted(const std::vector<TraceDefinition> &definitions,
                             const std::vector<BlacklistEntry> &blacklist);

// Places every site on the running kernel: the anchor's address in
// `kallsyms` gives the KASLR shift; _text (for the vmlinux) must have moved
// by that same shift, and the function the site is in must be listed where
// it puts it (else the debug file is not the running kernel's).
// A name the vmlinux holds once but the running kernel more than once (a
// module has one too) is re-anchored on _text, rewriting its definition.
// Returns the runtime address of each site, 0 for a module that is not
// loaded (the kernel places those when it loads).
Result<std::vector<uint64_t>> place_on_running_kernel(std::vector<KernelSite> &sites, const Kallsyms &kallsyms);

// Error for the first runtime address inside a blacklist range, naming the
// range's function (and the definition that reached it).
Status check_addresses_not_blacklisted(const std::vector<KernelSite> &sites, const std::vector<uint64_t> &addresses,
                                       const std::vector<BlacklistEntry> &blacklist);

}  // namespace kpp
