#include "src/kernel/kernel_refusals.h"

#include "src/util/strings.h"

namespace kpp {

Status check_not_blacklisted(const std::vector<TraceDefinition> &definitions,
                             const std::vector<BlacklistEntry> &blacklist) {
  for (const TraceDefinition &def : definitions) {
    if (def.kind != TraceDefinition::Kind::Kprobe) continue;
    size_t colon = def.symbol.find(':');
    std::string module = colon == std::string::npos ? "" : def.symbol.substr(0, colon);
    std::string symbol = colon == std::string::npos ? def.symbol : def.symbol.substr(colon + 1);
    auto entry = blacklisted(blacklist, module, symbol);
    if (!entry) continue;
    std::string range = entry->start ? " (" + hex(entry->start) + "-" + hex(entry->end) + ")" : "";
    return Error("cannot probe " + def.symbol + ": the kernel's kprobe blacklist lists it" + range,
                 "kprobes may not be placed in code that kprobes themselves run (see debugfs kprobes/blacklist); "
                 "probe its caller instead");
  }
  return Ok{};
}

}  // namespace kpp
