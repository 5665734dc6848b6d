#include "src/stream/probe_shapes.h"

#include <traceevent/event-parse.h>

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
    out.push_back(std::move(shape));
  }
  return out;
}

}  // namespace kpp
