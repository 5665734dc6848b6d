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
  if (place.kind == Place::Kind::Constant && place.text) {
    // A char of a known constant string (its NUL included).
    if (offset < 0 || static_cast<uint64_t>(offset) > place.text->size()) return std::nullopt;
    return Place::known(static_cast<unsigned char>((*place.text + '\0')[static_cast<size_t>(offset)]));
  }
  if (offset == 0) return place;
  if (place.kind == Place::Kind::Register || place.kind == Place::Kind::Value) {
    FetchExpr v = value_of(place);
    if (offset < 0 || v.post_add != 0 || !v.terms.empty() || !v.program.empty() || static_cast<uint64_t>(offset) * 8 >= v.bit_width)
      return std::nullopt;
    v.bit_offset += static_cast<unsigned>(offset) * 8;
    v.bit_width -= static_cast<unsigned>(offset) * 8;
    return Place::value(std::move(v));
  }
  if (place.kind != Place::Kind::Memory) return std::nullopt;
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

std::optional<Place> pointee(const Place &place, int64_t offset) {
  FetchExpr v = value_of(place);
  if (v.decoder_computed()) return std::nullopt;
  // A pointer DWARF computes as "register + 8" loads at +8 from the register.
  offset += v.post_add;
  v.post_add = 0;
  return Place::at(std::move(v), offset);
}

}  // namespace kpp::dwarf
