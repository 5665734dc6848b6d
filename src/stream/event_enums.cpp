#include "src/stream/event_enums.h"

namespace kpp {

void EventEnums::add(const std::string &event, const std::string &field, Enumeration type) {
  types_[event][field] = std::move(type);
}

void EventEnums::name(Event &event) const {
  if (types_.empty()) return;
  key_.assign(event.system).append(1, ':').append(event.name);
  auto it = types_.find(key_);
  if (it == types_.end()) return;
  for (Field &f : event.fields) {
    if (f.value.kind != FieldKind::Enum || f.value.absent) continue;  // an absent optional has no number to name
    auto type = it->second.find(f.name);
    if (type == it->second.end()) continue;
    const Enumeration &e = type->second;
    unsigned shift = e.size >= 8 || e.size == 0 ? 0 : static_cast<unsigned>(64 - e.size * 8);
    uint64_t bits = shift ? f.value.u << shift : f.value.u;
    f.value.u = e.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(bits) >> shift) : bits >> shift;
    f.value.i = static_cast<int64_t>(f.value.u);
    f.value.text = enumeration_text(e, f.value.u);
  }
}

}  // namespace kpp
