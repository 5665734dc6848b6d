#include "src/probes/refctr_clash.h"

#include <sys/stat.h>

#include "src/util/same_file.h"
#include "src/util/strings.h"

namespace kpp {

namespace {

std::string counter_text(const TraceDefinition &def) {
  return def.ref_ctr_offset ? "reference counter " + hex(*def.ref_ctr_offset) : "no reference counter";
}

}  // namespace

std::string reference_counter_clash(const TraceDefinition &refused, const std::vector<TraceDefinition> &listed) {
  if (refused.kind != TraceDefinition::Kind::Uprobe) return {};
  for (const TraceDefinition &other : listed) {
    bool one_file = other.path == refused.path || same_file(other.path, refused.path);
    if (other.kind != TraceDefinition::Kind::Uprobe || other.offset != refused.offset ||
        other.ref_ctr_offset == refused.ref_ctr_offset || !one_file)
      continue;
    return "the kernel allows one reference counter per probed place (it logs \"Reference counter offset "
           "mismatch\"), and " + other.qualified_name() + " (perhaps another tool's) is already at " +
           refused.path + ":" + hex(refused.offset) + " with " + counter_text(other) + ", where this probe has " +
           counter_text(refused);
  }
  return {};
}

}  // namespace kpp
