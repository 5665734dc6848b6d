// Functions the running kernel will not put a kprobe event in: a kernel
// built without CONFIG_KPROBE_EVENTS_ON_NOTRACE (Debian's default) refuses
// any address whose function has no ftrace location (a notrace function, such
// as all of kernel/trace/), with only "Failed to register probe event" in
// tracefs error_log ("Could not probe notrace function" goes to dmesg).
// Checked before anything is written, so the refusal names the function and
// why. Parsers and the decision take text, so tests need no kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/definition/probe_builder.h"
#include "src/kernel/kallsyms.h"
#include "util/result.h"

namespace kpp {

// Whether a kernel configuration (the text of /proc/config.gz or
// /boot/config-RELEASE) makes the kernel refuse notrace functions: only when
// it says "# CONFIG_KPROBE_EVENTS_ON_NOTRACE is not set". Kernels before the
// option existed (4.20) do not check at all, and =y turns the check off.
bool config_refuses_notrace(const std::string &config_text);

// The running kernel's configuration: /proc/config.gz, else
// /boot/config-$(uname -r); nullopt when neither can be read.
std::optional<std::string> read_running_kernel_config();

// The functions ftrace can trace (those with an ftrace location), from tracefs
// available_filter_functions ("name" or "name [module]") and, on 6.5 and
// later, available_filter_functions_addrs ("ffffffff8113a3e0 name [module]"),
// whose addresses tell apart functions that share a name.
class TraceableFunctions {
 public:
  static TraceableFunctions parse(const std::string &functions, const std::string &addresses);
  // Both files from the mounted tracefs; nullopt when the list cannot be read.
  static std::optional<TraceableFunctions> read();

  bool has_name(const std::string &name, const std::string &module) const;
  // Whether any function of `module` is listed (none when it is not loaded).
  bool has_module(const std::string &module) const;
  bool has_addresses() const { return !addresses_.empty(); }
  // Whether an ftrace location lies in [start, end).
  bool has_address_in(uint64_t start, uint64_t end) const;

 private:
  std::set<std::pair<std::string, std::string>> names_;  // {module, name}
  std::vector<uint64_t> addresses_;                      // sorted
};

// Whether the kernel's notrace check refuses a site in function `symbol` of
// `module` ("" for the vmlinux). `address` is the site's runtime address (0:
// unknown); with kallsyms and the filter addresses, the function holding it
// is matched by address, else by name. As the kernel does, a name with a '.'
// suffix (foo.isra.0, foo.cold) that is not traceable is retried as the name
// cut at its first '.'.
bool refused_as_notrace(const std::string &symbol, const std::string &module, uint64_t address,
                        const TraceableFunctions &traceable, const Kallsyms *kallsyms);

// The first site the kernel would refuse as notrace, as an error naming its
// function, the reason and what to do instead. Sites of modules that are not
// loaded (address 0 with a placement) are the kernel's to check when they load.
Status check_sites_traceable(const std::vector<KernelSite> &sites, const std::vector<uint64_t> &addresses,
                             const TraceableFunctions &traceable, const Kallsyms *kallsyms);

// `error` from an add the kernel refused with a bare "Failed to register
// probe event" (the notrace check is one cause that error_log does not name):
// when a kernel site's function is not in available_filter_functions, the
// hint says that this is the likely reason.
Error explain_failed_registration(Error error, const std::vector<KernelSite> &sites);
// The same with the filter list given.
Error explain_failed_registration(Error error, const std::vector<KernelSite> &sites,
                                  const TraceableFunctions &traceable);

}  // namespace kpp
