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
    case Place::Kind::Pieces:  // callers narrow a split place first; the first piece is the best guess
      if (!place.pieces.empty() && !place.pieces.front().place.empty()) return value_of(place.pieces.front().place.front());
      return v;
    case Place::Kind::Value:
      return *place.base;
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
  if (place.kind == Place::Kind::Pieces) {
    uint64_t start = 0;
    for (const Piece &piece : place.pieces) {
      if (offset >= 0 && static_cast<uint64_t>(offset) < start + piece.size) {
        if (piece.place.empty()) return std::nullopt;
        return offset_into(piece.place.front(), offset - static_cast<int64_t>(start));
      }
      start += piece.size;
    }
    return std::nullopt;
  }
  if (place.kind != Place::Kind::Memory) {
    if (offset == 0) return place;
    return std::nullopt;
  }
  Place p = place;
  p.offset += offset;
  return p;
}

std::optional<Place> whole(const Place &place, uint64_t size) {
  if (place.kind != Place::Kind::Pieces) return place;
  if (place.pieces.empty() || place.pieces.front().place.empty() || place.pieces.front().size < size)
    return std::nullopt;
  return place.pieces.front().place.front();
}

Place pointee(const Place &place, int64_t offset) { return Place::at(value_of(place), offset); }

}  // namespace kpp::dwarf
