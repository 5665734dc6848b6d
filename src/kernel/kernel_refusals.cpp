#include "src/kernel/kernel_refusals.h"

#include "src/kernel/notrace_refusal.h"
#include "util/strings.h"

namespace kpp {

namespace {

Error blacklist_error(const std::string &what, const BlacklistEntry &entry) {
  std::string range = entry.start ? " (" + hex(entry.start) + "-" + hex(entry.end) + ")" : "";
  std::string listed = entry.module.empty() ? entry.symbol : entry.module + ":" + entry.symbol;
  return Error("cannot probe " + what + ": the kernel's kprobe blacklist lists " + listed + range,
               "kprobes may not be placed in code that kprobes themselves run (see debugfs kprobes/blacklist); "
               "probe its caller instead");
}

std::string placement_name(const KernelPlacement &p) {
  return p.module.empty() ? p.symbol : p.module + ":" + p.symbol;
}

}  // namespace

Status check_running_kernel(std::vector<ResolvedSpec> &resolved, const Kallsyms *kallsyms) {
  std::vector<KernelSite> sites = all_kernel_sites(resolved);
  std::vector<uint64_t> addresses(sites.size(), 0);
  if (kallsyms) {
    auto placed = place_on_running_kernel(sites, *kallsyms);
    if (!placed) return std::move(placed).error();
    addresses = std::move(*placed);
  }
  if (auto text = read_kprobes_debugfs("blacklist"))
    if (Status s = check_addresses_not_blacklisted(sites, addresses, parse_kprobe_blacklist(*text)); !s) return s;
  // Without the kernel's configuration, no way to know whether it checks.
  auto config = read_running_kernel_config();
  if (!config || !config_refuses_notrace(*config)) return Ok{};
  auto traceable = TraceableFunctions::read();
  if (!traceable) return Ok{};
  return check_sites_traceable(sites, addresses, *traceable, kallsyms);
}

Result<std::vector<uint64_t>> place_on_running_kernel(std::vector<KernelSite> &sites, const Kallsyms &kallsyms) {
  std::vector<uint64_t> addresses;
  for (KernelSite &site : sites) {
    KernelPlacement &p = site.placement;
    if (p.anchor.empty()) {
      // From BTF: no link-time addresses, so no way to name one copy of a
      // name the kernel holds more than once (it would refuse the name).
      const std::string &name = site.definition->symbol;
      if (name.find(':') == std::string::npos && kallsyms.count(name) > 1)
        return Error("'" + name + "' names " + std::to_string(kallsyms.count(name)) +
                         " symbols in the running kernel, and without a DWARF vmlinux kprobe-probe cannot tell "
                         "which one is meant",
                     "give the vmlinux with -k, or probe a caller whose name is unique");
      addresses.push_back(0);
      continue;
    }
    if (!p.module.empty() && !kallsyms.has_module(p.module)) {
      addresses.push_back(0);  // a module not loaded yet: the kernel places it when it loads
      continue;
    }
    auto anchors = kallsyms.addresses_of(p.anchor, p.module);
    std::string where = p.module.empty() ? "the running kernel" : "module " + p.module;
    if (anchors.size() != 1)
      return Error("cannot place " + placement_name(p) + " on " + where + ": its kallsyms lists " +
                       std::to_string(anchors.size()) + " symbols named " + p.anchor + ", the debug file one",
                   "the debug file is not the one of the running kernel (or module)");
    // KASLR moves the whole vmlinux by one shift: _text must move with the anchor.
    uint64_t shift = anchors[0] - p.anchor_address;
    if (p.module.empty() && p.text_address) {
      auto text = kallsyms.addresses_of("_text", "");
      if (text.size() != 1 || text[0] - p.text_address != shift)
        return Error("cannot place " + p.symbol + " on the running kernel: kallsyms has " + p.anchor + " at " +
                         hex(anchors[0]) + " and _text at " + (text.size() == 1 ? hex(text[0]) : "no one place") +
                         ", which the debug file's addresses do not match",
                     "the debug file is not the one of the running kernel");
    }
    uint64_t symbol_now = p.symbol_address + shift;
    bool listed = false;
    for (uint64_t a : kallsyms.addresses_of(p.symbol, p.module)) listed = listed || a == symbol_now;
    if (!listed)
      return Error("cannot place " + placement_name(p) + " on " + where + ": kallsyms has no " + p.symbol + " at " +
                       hex(symbol_now) + ", where the debug file puts it (" + p.anchor + " is at " + hex(anchors[0]) +
                       ")",
                   "the debug file is not the one of the running kernel (or module)");
    // The kernel counts modules' symbols too when it checks that a name is unique.
    if (p.module.empty() && !p.anchored() && p.text_address && kallsyms.count(p.symbol) > 1) {
      p = anchored_on_text(p);
      site.definition->symbol = p.definition_symbol();
      site.definition->offset = p.offset();
    }
    addresses.push_back(p.address + shift);
  }
  return addresses;
}

Status check_addresses_not_blacklisted(const std::vector<KernelSite> &sites, const std::vector<uint64_t> &addresses,
                                       const std::vector<BlacklistEntry> &blacklist) {
  for (size_t i = 0; i < sites.size() && i < addresses.size(); ++i) {
    const KernelPlacement &p = sites[i].placement;
    const std::string &written = sites[i].definition->symbol;
    size_t colon = written.find(':');
    // Without link-time addresses (BTF), the symbol is the one the definition names.
    std::string module = p.symbol.empty() ? (colon == std::string::npos ? "" : written.substr(0, colon)) : p.module;
    std::string symbol = p.symbol.empty() ? written.substr(colon == std::string::npos ? 0 : colon + 1) : p.symbol;
    std::string what = p.symbol.empty() ? written : placement_name(p) + "+" + std::to_string(p.address - p.symbol_address);
    if (addresses[i]) what += " (" + hex(addresses[i]) + ")";
    for (const BlacklistEntry &e : blacklist) {
      bool hit = addresses[i] && e.start ? e.start <= addresses[i] && addresses[i] < e.end
                                         // Addresses unknown: by name.
                                         : e.symbol == symbol && e.module == module;
      if (hit) return blacklist_error(what, e);
    }
  }
  return Ok{};
}

}  // namespace kpp
