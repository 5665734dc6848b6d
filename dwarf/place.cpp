#include "dwarf/place.h"

namespace kpp::dwarf {

FetchExpr value_of(const Place &place) {
  FetchExpr v;
  switch (place.kind) {
    case Place::Kind::Register:
      v.root = FetchExpr::Root::Register;
      v.dwarf_reg = place.dwarf_reg;
      return v;
    case Place::Kind::Constant:
      v.root = FetchExpr::Root::Constant;
      v.constant = place.constant;
      return v;
    case Place::Kind::Memory:
      break;
  }
  if (!place.base) {
    v.root = FetchExpr::Root::GlobalMemory;
    v.address = static_cast<uint64_t>(place.offset);
    return v;
  }
  v = *place.base;
  v.loads.push_back(place.offset);
  return v;
}

std::optional<Place> offset_into(const Place &place, int64_t offset) {
  if (place.kind != Place::Kind::Memory) {
    if (offset == 0) return place;
    return std::nullopt;
  }
  Place p = place;
  p.offset += offset;
  return p;
}

Place pointee(const Place &place, int64_t offset) { return Place::at(value_of(place), offset); }

}  // namespace kpp::dwarf
