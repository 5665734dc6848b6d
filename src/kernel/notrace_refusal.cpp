#include "src/kernel/notrace_refusal.h"

#include <sys/utsname.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "src/tracefs/tracefs.h"
#include "util/files.h"
#include "util/strings.h"

namespace kpp {

namespace {

std::optional<std::string> read_text_file(const std::string &path) {
  Result<std::string> text = read_whole_file(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

std::optional<std::string> read_gzip_file(const std::string &path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return std::nullopt;
  std::string out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  if (n < 0 || out.empty()) return std::nullopt;
  return out;
}

// "[loop]" -> "loop"; anything else -> "".
std::string bracketed(const std::string &word) {
  if (word.size() > 2 && word.front() == '[' && word.back() == ']') return word.substr(1, word.size() - 2);
  return {};
}

bool function_traceable(const std::string &symbol, const std::string &module, uint64_t address,
                        const TraceableFunctions &traceable, const Kallsyms *kallsyms) {
  if (address && kallsyms && traceable.has_addresses())
    if (auto range = kallsyms->function_range(address)) return traceable.has_address_in(range->first, range->second);
  return traceable.has_name(symbol, module);
}

// The site's function and module: the placement's, else (from BTF) the
// "[MOD:]SYM" the definition names.
std::pair<std::string, std::string> module_and_function(const KernelSite &site) {
  const KernelPlacement &p = site.placement;
  if (!p.symbol.empty()) return {p.module, p.symbol};
  const std::string &written = site.definition->symbol;
  size_t colon = written.find(':');
  if (colon == std::string::npos) return {"", written};
  return {written.substr(0, colon), written.substr(colon + 1)};
}

std::string qualified(const std::string &module, const std::string &symbol) {
  return module.empty() ? symbol : module + ":" + symbol;
}

}  // namespace

bool config_refuses_notrace(const std::string &config_text) {
  std::istringstream lines(config_text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "# CONFIG_KPROBE_EVENTS_ON_NOTRACE is not set") return true;
  }
  return false;
}

std::optional<std::string> read_running_kernel_config() {
  if (auto text = read_gzip_file("/proc/config.gz")) return text;
  struct utsname u;
  if (uname(&u) != 0) return std::nullopt;
  return read_text_file(std::string("/boot/config-") + u.release);
}

TraceableFunctions TraceableFunctions::parse(const std::string &functions, const std::string &addresses) {
  TraceableFunctions t;
  std::istringstream lines(functions);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, module;
    if (!(words >> name)) continue;
    words >> module;
    t.names_.insert({bracketed(module), name});
  }
  std::istringstream addr_lines(addresses);
  for (std::string line; std::getline(addr_lines, line);) {
    std::istringstream words(line);
    std::string address;
    if (!(words >> address)) continue;
    uint64_t a = std::strtoull(address.c_str(), nullptr, 16);
    if (a) t.addresses_.push_back(a);  // all zero when the reader may not see addresses
  }
  std::sort(t.addresses_.begin(), t.addresses_.end());
  return t;
}

std::optional<TraceableFunctions> TraceableFunctions::read() {
  for (const Tracefs &tracefs : Tracefs::usual_places()) {
    std::string functions = tracefs.read("available_filter_functions");
    // An unmounted tracefs reads as an empty directory; a kernel lists thousands.
    if (functions.empty()) continue;
    return parse(functions, tracefs.read("available_filter_functions_addrs"));
  }
  return std::nullopt;
}

bool TraceableFunctions::has_name(const std::string &name, const std::string &module) const {
  return names_.count({module, name}) > 0;
}

bool TraceableFunctions::has_module(const std::string &module) const {
  auto it = names_.lower_bound({module, ""});
  return it != names_.end() && it->first == module;
}

bool TraceableFunctions::has_address_in(uint64_t start, uint64_t end) const {
  auto it = std::lower_bound(addresses_.begin(), addresses_.end(), start);
  return it != addresses_.end() && *it < end;
}

bool refused_as_notrace(const std::string &symbol, const std::string &module, uint64_t address,
                        const TraceableFunctions &traceable, const Kallsyms *kallsyms) {
  if (function_traceable(symbol, module, address, traceable, kallsyms)) return false;
  // The kernel retries foo.isra.0 as foo: looked up by name (vmlinux first,
  // then modules), refused when there is no foo.
  size_t dot = symbol.find('.');
  if (dot == std::string::npos || dot == 0) return true;
  std::string cut = symbol.substr(0, dot);
  if (kallsyms) {
    for (const std::string &where : {std::string(), module}) {
      auto found = kallsyms->addresses_of(cut, where);
      if (!found.empty()) return !function_traceable(cut, where, found.front(), traceable, kallsyms);
    }
    return true;
  }
  return !traceable.has_name(cut, "") && !traceable.has_name(cut, module);
}

Status check_sites_traceable(const std::vector<KernelSite> &sites, const std::vector<uint64_t> &addresses,
                             const TraceableFunctions &traceable, const Kallsyms *kallsyms) {
  for (size_t i = 0; i < sites.size(); ++i) {
    uint64_t address = i < addresses.size() ? addresses[i] : 0;
    auto [module, symbol] = module_and_function(sites[i]);
    // A module that is not loaded yet: the kernel checks when it loads.
    if (!module.empty() && (kallsyms ? !kallsyms->has_module(module) : !traceable.has_module(module))) continue;
    if (!refused_as_notrace(symbol, module, address, traceable, kallsyms)) continue;
    const TraceDefinition &def = *sites[i].definition;
    std::string at = address ? " (" + hex(address) + ")" : "";
    return Error("cannot probe " + qualified(module, symbol) + at + " for " + def.qualified_name() + ": " + symbol +
                     " is a notrace function (it has no ftrace location: tracefs available_filter_functions does "
                     "not list it), and this kernel, built without CONFIG_KPROBE_EVENTS_ON_NOTRACE, refuses kprobe "
                     "events in notrace functions",
                 "probe its caller instead, or use a kernel built with CONFIG_KPROBE_EVENTS_ON_NOTRACE=y");
  }
  return Ok{};
}

Error explain_failed_registration(Error error, const std::vector<KernelSite> &sites) {
  if (error.message.find("Failed to register probe event") == std::string::npos) return error;
  auto traceable = TraceableFunctions::read();
  if (!traceable) return error;
  return explain_failed_registration(std::move(error), sites, *traceable);
}

Error explain_failed_registration(Error error, const std::vector<KernelSite> &sites,
                                  const TraceableFunctions &traceable) {
  if (error.message.find("Failed to register probe event") == std::string::npos) return error;
  for (const KernelSite &site : sites) {
    // The refused definition is the one the error names.
    if (error.message.find(site.definition->qualified_name() + " (") == std::string::npos) continue;
    auto [module, symbol] = module_and_function(site);
    if (refused_as_notrace(symbol, module, 0, traceable, nullptr)) {
      std::string why = "likely because " + symbol +
                        " is a notrace function (not in tracefs available_filter_functions), which a kernel built "
                        "without CONFIG_KPROBE_EVENTS_ON_NOTRACE refuses (dmesg: 'Could not probe notrace "
                        "function'); probe its caller instead";
      error.hint = error.hint.empty() ? why : why + "; " + error.hint;
      return error;
    }
  }
  return error;
}

}  // namespace kpp
