#include "dwarf/raw/raw_unit.h"

#include "dwarf/raw/raw_abbrev.h"
#include "dwarf/raw/raw_unit_header.h"

namespace kpp::dwarf {

using namespace raw;

namespace {

// The attributes a type chain needs of the DIE at `offset` of unit `u`
// (whose abbreviations are `abbrev`), decoded where it lies.
std::optional<RawDie> die_in(const UnitHeader &u, const std::vector<Abbrev> &abbrev, uint64_t offset) {
  Cursor c{nullptr, nullptr};
  const Abbrev *a = abbrev_of_die(u, abbrev, offset, c);
  if (!a) return std::nullopt;
  RawDie die;
  die.tag = a->tag;
  for (const Attr &attr : a->attrs) {
    uint16_t form = attr.form == FORM_indirect ? static_cast<uint16_t>(c.uleb()) : attr.form;
    auto constant = [&]() -> std::optional<uint64_t> {
      switch (form) {
        case FORM_implicit_const: return static_cast<uint64_t>(attr.implicit_const);
        case FORM_data1: return c.fixed(1);
        case FORM_data2: return c.fixed(2);
        case FORM_data4: return c.fixed(4);
        case FORM_data8: return c.fixed(8);
        case FORM_udata: return c.uleb();
        default: skip_form(c, form, u); return std::nullopt;
      }
    };
    switch (attr.at) {
      case AT_type:
      case AT_abstract_origin:
      case AT_specification: {
        bool local = form == FORM_ref1 || form == FORM_ref2 || form == FORM_ref4 || form == FORM_ref8 || form == FORM_ref_udata;
        uint64_t target = reference(c, form, u);
        if (!local) return std::nullopt;  // another unit's DIE: not followed here
        (attr.at == AT_type ? die.type : die.origin) = target;
        break;
      }
      case AT_low_pc:
        if (form == FORM_addr) die.low_pc = c.fixed(u.address_size);
        else skip_form(c, form, u);
        break;
      case AT_byte_size: die.byte_size = constant(); break;
      case AT_encoding: die.encoding = constant(); break;
      default: skip_form(c, form, u);
    }
    if (!c.ok) return std::nullopt;
  }
  return die;
}

// The offset of the subprogram DIE of unit `u` whose DW_AT_low_pc is
// `address`: a walk of the unit that jumps over type subtrees.
std::optional<uint64_t> subprogram_in(const UnitHeader &u, const std::vector<Abbrev> &abbrev, uint64_t address) {
  const uint8_t *base = bytes_of(u.bytes->info);
  Cursor c{base + u.dies, base + u.end};
  while (c.p < c.end && c.ok) {
    uint64_t die = c.p - base;
    uint64_t code = c.uleb();
    if (code == 0) continue;
    if (code >= abbrev.size() || abbrev[code].tag == 0) return std::nullopt;
    const Abbrev &a = abbrev[code];
    uint64_t sibling = 0;
    std::optional<uint64_t> low_pc;
    for (const Attr &attr : a.attrs) {
      uint16_t form = attr.form == FORM_indirect ? static_cast<uint16_t>(c.uleb()) : attr.form;
      if (form == FORM_implicit_const) continue;
      if (attr.at == AT_sibling) sibling = reference(c, form, u);
      else if (attr.at == AT_low_pc && form == FORM_addr) low_pc = c.fixed(u.address_size);
      else skip_form(c, form, u);
    }
    if (!c.ok) return std::nullopt;
    if (a.tag == TAG_subprogram && low_pc == address) return die;
    if (a.skippable && a.children && sibling > die && sibling <= u.end) c.p = base + sibling;
  }
  return std::nullopt;
}

// The unit's DW_AT_stmt_list, from its unit DIE alone.
std::optional<uint64_t> stmt_list(const UnitHeader &u) {
  std::optional<uint64_t> found;
  find_attribute(u, u.dies, AT_stmt_list, [&](Cursor &c, uint16_t form) {
    if (form == FORM_sec_offset || form == FORM_data4 || form == FORM_data8)
      found = c.fixed(form == FORM_sec_offset ? u.offset_size : form == FORM_data4 ? 4 : 8);
    if (!c.ok) found.reset();
  });
  return found;
}

}  // namespace

bool find_attribute(const UnitHeader &u, uint64_t offset, uint16_t attribute,
                    const std::function<void(Cursor &, uint16_t)> &read) {
  const DwarfBytes &b = *u.bytes;
  if (u.abbrev_offset >= b.abbrev.size() || offset < u.dies || offset >= u.end) return false;
  const uint8_t *base = bytes_of(b.info);
  Cursor c{base + offset, base + u.end};
  uint64_t code = c.uleb();
  if (!c.ok || code == 0) return false;
  Cursor a = cursor_at(b.abbrev, u.abbrev_offset);
  while (a.ok) {
    uint64_t have = a.uleb();
    if (have == 0 || !a.ok) return false;
    a.skip_leb();  // tag
    a.skip(1);     // children
    for (;;) {
      uint16_t at = static_cast<uint16_t>(a.uleb());
      uint16_t form = static_cast<uint16_t>(a.uleb());
      if (!a.ok || (at == 0 && form == 0)) break;
      if (form == FORM_implicit_const) {
        a.skip_leb();
        continue;
      }
      if (have != code) continue;
      if (form == FORM_indirect) form = static_cast<uint16_t>(c.uleb());
      if (at == attribute) {
        if (!c.ok) return false;
        read(c, form);
        return true;
      }
      skip_form(c, form, u);
    }
    if (have == code) return false;
  }
  return false;
}

const Abbrev *abbrev_of_die(const UnitHeader &u, const std::vector<Abbrev> &abbrevs, uint64_t offset, Cursor &c) {
  if (offset < u.dies || offset >= u.end) return nullptr;
  const uint8_t *base = bytes_of(u.bytes->info);
  c = Cursor{base + offset, base + u.end};
  uint64_t code = c.uleb();
  if (!c.ok || code == 0 || code >= abbrevs.size() || abbrevs[code].tag == 0) return nullptr;
  return &abbrevs[code];
}

struct RawUnit::Parts {
  UnitHeader header;
  std::vector<Abbrev> abbrev;
};

std::optional<RawUnit> RawUnit::open(const DwarfBytes &bytes, uint64_t unit_offset) {
  auto header = read_unit_header(bytes, unit_offset);
  if (!header || !header->has_code_dies) return std::nullopt;
  RawUnit unit;
  unit.bytes_ = bytes;
  unit.parts_ = std::make_shared<Parts>();
  unit.parts_->header = *header;
  unit.parts_->header.bytes = &unit.bytes_;
  std::string_view read;
  auto abbrev = read_abbrevs(bytes, unit.parts_->header.abbrev_offset, read);
  if (!abbrev) return std::nullopt;
  unit.parts_->abbrev = std::move(*abbrev);
  return unit;
}

std::optional<RawDie> RawUnit::die_at(uint64_t offset) const {
  parts_->header.bytes = &bytes_;  // this copy's (a RawUnit may have been moved)
  return die_in(parts_->header, parts_->abbrev, offset);
}

std::optional<uint64_t> RawUnit::subprogram_at(uint64_t address) const {
  parts_->header.bytes = &bytes_;
  return subprogram_in(parts_->header, parts_->abbrev, address);
}

uint8_t RawUnit::address_size() const { return parts_->header.address_size; }

const raw::UnitHeader &RawUnit::header() const {
  parts_->header.bytes = &bytes_;
  return parts_->header;
}

const std::vector<raw::Abbrev> &RawUnit::abbrevs() const { return parts_->abbrev; }

std::vector<std::pair<uint64_t, uint64_t>> unit_line_tables(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets) {
  std::vector<std::pair<uint64_t, uint64_t>> tables;
  std::vector<UnitHeader> units;
  for (uint64_t at : unit_offsets) {
    auto u = read_unit_header(bytes, at);
    if (!u) return tables;  // a malformed header: no table is known
    units.push_back(*u);
  }
  for (const UnitHeader &u : units)
    if (auto stmt = u.has_code_dies ? stmt_list(u) : std::nullopt) tables.emplace_back(*stmt, u.offset);
  return tables;
}

}  // namespace kpp::dwarf
