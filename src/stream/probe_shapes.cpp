#include "src/stream/probe_shapes.h"

#include <traceevent/event-parse.h>

#include <string_view>

namespace kpp {

std::vector<ProbeShape> probe_shapes_of(tep_handle *tep) {
  std::vector<ProbeShape> out;
  if (!tep) return out;
  tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
  if (!events) return out;
  for (tep_event **e = events; *e; ++e) {
    bool entry = tep_find_field(*e, "__probe_ip") != nullptr;
    bool ret = tep_find_field(*e, "__probe_func") != nullptr;
    if (!entry && !ret) continue;
    ProbeShape shape;
    shape.system = (*e)->system ? (*e)->system : "";
    shape.event = (*e)->name ? (*e)->name : "";
    shape.is_return = ret;
    // The first value field: after the kernel's own __probe_* fields.
    for (tep_format_field *f = (*e)->format.fields; f; f = f->next)
      if (f->name && std::string_view(f->name).rfind("__probe_", 0) != 0) {
        shape.first_field = f->name;
        break;
      }
    out.push_back(std::move(shape));
  }
  return out;
}

}  // namespace kpp
