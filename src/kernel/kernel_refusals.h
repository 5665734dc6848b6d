// What the running kernel refuses to probe, checked before anything is
// written, so that a refusal names its reason instead of the kernel's bare
// EINVAL and leaves kprobe_events untouched.
#pragma once

#include <vector>

#include "src/definition/probe_builder.h"
#include "src/definition/trace_definition.h"
#include "src/kernel/kallsyms.h"
#include "src/kernel/kprobe_lists.h"
#include "util/result.h"

namespace kpp {

// What an install plans for (src/plan/plan.h) before kernel probes are
// written: every site placed on the running kernel with `kallsyms` (place_on_running_kernel,
// which may re-anchor a definition), and none in the kprobe blacklist, which
// is refused here with the reason rather than by the kernel's bare EINVAL
// half-way through the adds. Without kallsyms addresses, the blacklist is
// matched by name (`kallsyms` null). On a kernel whose configuration refuses notrace functions,
// a site in a function without an ftrace location is refused too
// (src/kernel/notrace_refusal.h).
Status check_running_kernel(std::vector<ResolvedSpec> &resolved, const Kallsyms *kallsyms);

// Places every site on the running kernel: the anchor's address in
// `kallsyms` gives the KASLR shift; _text (for the vmlinux) must have moved
// by that same shift, and the function the site is in must be listed where
// it puts it (else the debug file is not the running kernel's).
// A name the vmlinux holds once but the running kernel more than once (a
// module has one too) is re-anchored on _text, rewriting its definition.
// A site from BTF (no placement) whose name kallsyms holds more than once is
// refused. Returns the runtime address of each site, 0 for a BTF site or a
// module that is not loaded (the kernel places those when it loads).
Result<std::vector<uint64_t>> place_on_running_kernel(std::vector<KernelSite> &sites, const Kallsyms &kallsyms);

// Error for the first runtime address inside a blacklist range, naming the
// range's function (and the definition that reached it); a site whose
// address is 0 (unknown) is matched by its symbol's name instead.
Status check_addresses_not_blacklisted(const std::vector<KernelSite> &sites, const std::vector<uint64_t> &addresses,
                                       const std::vector<BlacklistEntry> &blacklist);

}  // namespace kpp
