#include "src/probes/definition_shapes.h"

#include "util/strings.h"

namespace kpp {

std::vector<ProbeShape> probe_shapes(const std::vector<TraceDefinition> &definitions) {
  std::vector<ProbeShape> out;
  for (const TraceDefinition &d : definitions) {
    ProbeShape s;
    s.system = d.group;
    s.event = d.event;
    s.is_return = d.is_return;
    if (!d.args.empty()) s.first_field = d.args.front().name;
    if (d.kind == TraceDefinition::Kind::Uprobe) {
      s.binary = d.path;
      s.site = d.path + ":" + hex(d.offset);
    } else {
      size_t colon = d.symbol.find(':');
      s.binary = colon == std::string::npos ? "kernel" : d.symbol.substr(0, colon);
      s.site = d.symbol + "+" + std::to_string(d.offset);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kpp
