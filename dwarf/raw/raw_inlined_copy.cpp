#include "dwarf/raw/raw_inlined_copy.h"

#include "dwarf/raw/optimized_code.h"
#include "dwarf/raw/raw_forms.h"

namespace kpp::dwarf {

using namespace raw;

namespace {

enum : uint16_t {
  AT_high_pc = 0x12, AT_producer = 0x25, AT_decl_file = 0x3a, AT_decl_line = 0x3b, AT_entry_pc = 0x52,
  AT_linkage_name = 0x6e, AT_MIPS_linkage_name = 0x2007,
};
enum : uint8_t {  // DW_RLE_*
  RLE_end_of_list = 0, RLE_offset_pair = 4, RLE_base_address = 5, RLE_start_end = 6, RLE_start_length = 7,
};

// What one DIE says of the attributes a copy, its body and its unit DIE
// are read for. `unreadable`: a value in a form this reader does not take
// where LLVM would take it; the caller then asks LLVM.
struct DieAttrs {
  uint16_t tag = 0;
  std::optional<uint64_t> origin, specification;  // DIEs of any unit
  std::optional<uint64_t> entry_pc, low_pc, high_pc, high_pc_offset, ranges;
  bool names_itself = false;  // a name, linkage name or declaration of its own
  bool unreadable = false;
  // Of a unit DIE: what optimized_code.h decides by, and the base address
  // of its range lists (DW_AT_low_pc or DW_AT_entry_pc, the first it has,
  // as LLVM takes it).
  std::optional<uint64_t> language;
  std::optional<std::string_view> producer;
  std::optional<uint64_t> base;
  bool base_seen = false;
};

bool is_unit_reference(uint16_t form) {
  return form == FORM_ref1 || form == FORM_ref2 || form == FORM_ref4 || form == FORM_ref8 || form == FORM_ref_udata ||
         form == FORM_ref_addr;
}

// An address attribute: DW_FORM_addr's value; indexed addresses are LLVM's to read.
std::optional<uint64_t> address(Cursor &c, uint16_t form, const UnitHeader &u, bool &unreadable) {
  if (form == FORM_addr) return c.fixed(u.address_size);
  if (form == FORM_addrx || form == FORM_addrx1 || form == FORM_addrx2 || form == FORM_addrx3 || form == FORM_addrx4 ||
      form == FORM_GNU_addr_index)
    unreadable = true;
  skip_form(c, form, u);
  return std::nullopt;
}

// A constant LLVM's getAsUnsignedConstant() gives; nullopt for DW_FORM_sdata, as there.
std::optional<uint64_t> unsigned_constant(Cursor &c, const Attr &attr, uint16_t form, const UnitHeader &u,
                                          bool &unreadable) {
  switch (form) {
    case FORM_data1: return c.fixed(1);
    case FORM_data2: return c.fixed(2);
    case FORM_data4: return c.fixed(4);
    case FORM_data8: return c.fixed(8);
    case FORM_udata: return c.uleb();
    case FORM_implicit_const: return static_cast<uint64_t>(attr.implicit_const);
    case FORM_sdata: c.skip_leb(); return std::nullopt;
    default:
      unreadable = true;
      skip_form(c, form, u);
      return std::nullopt;
  }
}

std::optional<DieAttrs> attrs_at(const RawUnit &unit, uint64_t offset) {
  const UnitHeader &u = unit.header();
  Cursor c{nullptr, nullptr};
  const Abbrev *a = abbrev_of_die(u, unit.abbrevs(), offset, c);
  if (!a) return std::nullopt;
  DieAttrs d;
  d.tag = a->tag;
  for (const Attr &attr : a->attrs) {
    uint16_t form = attr.form == FORM_indirect ? static_cast<uint16_t>(c.uleb()) : attr.form;
    switch (attr.at) {
      case AT_abstract_origin:
      case AT_specification: {
        if (!is_unit_reference(form)) d.unreadable = true;  // another file's DIE, or a type signature
        uint64_t target = reference(c, form, u);
        (attr.at == AT_abstract_origin ? d.origin : d.specification) = target;
        break;
      }
      case AT_entry_pc:
        if (!d.base_seen) d.base_seen = true, d.base = address(c, form, u, d.unreadable), d.entry_pc = d.base;
        else d.entry_pc = address(c, form, u, d.unreadable);
        break;
      case AT_low_pc:
        if (!d.base_seen) d.base_seen = true, d.base = address(c, form, u, d.unreadable), d.low_pc = d.base;
        else d.low_pc = address(c, form, u, d.unreadable);
        break;
      case AT_high_pc:
        if (form == FORM_addr || form == FORM_addrx || form == FORM_addrx1 || form == FORM_addrx2 ||
            form == FORM_addrx3 || form == FORM_addrx4 || form == FORM_GNU_addr_index)
          d.high_pc = address(c, form, u, d.unreadable);
        else
          d.high_pc_offset = unsigned_constant(c, attr, form, u, d.unreadable);
        break;
      case AT_ranges:
        // DWARF 5's .debug_rnglists by offset; an index (rnglistx) or
        // DWARF 4's .debug_ranges is LLVM's to read.
        if (form == FORM_sec_offset && u.version >= 5) d.ranges = c.fixed(u.offset_size);
        else d.unreadable = true, skip_form(c, form, u);
        break;
      case AT_language: d.language = unsigned_constant(c, attr, form, u, d.unreadable); break;
      case AT_producer:
        if (form == FORM_string || form == FORM_strp || form == FORM_line_strp) d.producer = string_of(c, form, u, 0);
        else d.unreadable = true, skip_form(c, form, u);  // an indexed string needs the unit's base, read after it
        break;
      case AT_name:
      case AT_linkage_name:
      case AT_MIPS_linkage_name:
      case AT_decl_file:
      case AT_decl_line:
        d.names_itself = true;
        skip_form(c, form, u);
        break;
      default: skip_form(c, form, u);
    }
    if (!c.ok) return std::nullopt;
  }
  return d;
}

// DWARF 5's range list at `offset` of .debug_rnglists, as LLVM's
// getAbsoluteRanges() lists it: an empty range stays, one that starts at
// the tombstone address (a discarded function's) is left out. nullopt for
// a list LLVM would refuse (it runs out before its end, an unknown kind)
// and for indexed addresses.
std::optional<std::vector<AddressRange>> range_list(std::string_view rnglists, uint64_t offset, uint8_t address_size,
                                                    std::optional<uint64_t> base) {
  if (offset >= rnglists.size()) return std::nullopt;
  const uint64_t tombstone = address_size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * address_size)) - 1;
  std::vector<AddressRange> out;
  Cursor c = cursor_at(rnglists, offset);
  for (;;) {
    uint8_t kind = static_cast<uint8_t>(c.fixed(1));
    if (!c.ok) return std::nullopt;
    AddressRange r;
    switch (kind) {
      case RLE_end_of_list: return out;
      case RLE_base_address: base = c.fixed(address_size); continue;
      case RLE_offset_pair: {
        r.begin = c.uleb();
        r.end = c.uleb();
        if (base) {
          if (*base == tombstone) continue;
          r.begin += *base;
          r.end += *base;
        }
        break;
      }
      case RLE_start_end:
        r.begin = c.fixed(address_size);
        r.end = c.fixed(address_size);
        break;
      case RLE_start_length:
        r.begin = c.fixed(address_size);
        r.end = r.begin + c.uleb();
        break;
      default: return std::nullopt;  // indexed addresses (1-3), or no kind at all
    }
    if (!c.ok) return std::nullopt;
    if (r.begin != tombstone) out.push_back(r);
  }
}

// Where a DIE's code is, as LLVM's getAddressRanges() gives it: DW_AT_low_pc
// and DW_AT_high_pc, else DW_AT_ranges. nullopt: what LLVM would refuse.
std::optional<std::vector<AddressRange>> ranges_of(const DieAttrs &d, const RawUnit &unit, std::optional<uint64_t> base) {
  if (d.low_pc && (d.high_pc || d.high_pc_offset))
    return std::vector<AddressRange>{{*d.low_pc, d.high_pc ? *d.high_pc : *d.low_pc + *d.high_pc_offset}};
  if (!d.ranges) return std::vector<AddressRange>{};
  const UnitHeader &u = unit.header();
  return range_list(u.bytes->rnglists, *d.ranges, u.address_size, base);
}

// die_links.h's code_entry(): DW_AT_entry_pc, else DW_AT_low_pc (with a
// high one), else the first range. The outer nullopt: LLVM would refuse a list.
std::optional<std::optional<uint64_t>> code_entry_of(const DieAttrs &d, const std::vector<AddressRange> &ranges) {
  if (d.entry_pc) return d.entry_pc;
  if (ranges.empty()) return std::optional<uint64_t>{};
  return std::optional<uint64_t>(ranges.front().begin);
}

// How the DIEs of one abbreviation are walked: the size of their
// attributes when it is fixed, and where their DW_AT_sibling lies when the
// attributes before it have fixed sizes (-1: not known).
struct Layout {
  int size = -1;
  int sibling_at = -1;
  uint16_t sibling_form = 0;
};

Layout layout_of(const Abbrev &a, const UnitHeader &u) {
  Layout l;
  int at = 0;
  for (const Attr &attr : a.attrs) {
    if (attr.at == AT_sibling && at >= 0) l.sibling_at = at, l.sibling_form = attr.form;
    int size = fixed_form_size(attr.form, u);
    at = at < 0 || size < 0 ? -1 : at + size;
  }
  l.size = at;
  return l;
}

// The subprogram that holds the DIE at `offset` (the innermost, as LLVM's
// getParent() walk finds it), by a walk from the unit DIE that jumps over
// each subtree whose DW_AT_sibling says it ends before `offset`. The outer
// nullopt: no DIE starts at `offset` (the walk never lands on it).
std::optional<std::optional<uint64_t>> subprogram_holding(const RawUnit &unit, uint64_t offset) {
  const UnitHeader &u = unit.header();
  const std::vector<Abbrev> &abbrevs = unit.abbrevs();
  std::vector<Layout> layouts(abbrevs.size());
  for (size_t i = 0; i < abbrevs.size(); ++i)
    if (abbrevs[i].tag) layouts[i] = layout_of(abbrevs[i], u);
  const uint8_t *base = bytes_of(u.bytes->info);
  Cursor c{base + u.dies, base + u.end};
  std::vector<std::pair<uint64_t, uint16_t>> open;  // the DIEs whose children are being walked
  bool first = true;
  while (c.ok && c.p < c.end) {
    uint64_t at = static_cast<uint64_t>(c.p - base);
    if (at > offset) return std::nullopt;
    uint64_t code = c.uleb();
    if (!c.ok) return std::nullopt;
    if (code == 0) {
      if (open.empty()) return std::nullopt;
      open.pop_back();
      if (open.empty()) return std::nullopt;  // the unit DIE's children are done: LLVM stops here
      continue;
    }
    if (code >= abbrevs.size() || abbrevs[code].tag == 0) return std::nullopt;
    if (at == offset) {
      for (auto it = open.rbegin(); it != open.rend(); ++it)
        if (it->second == TAG_subprogram) return std::optional<uint64_t>(it->first);
      return std::optional<uint64_t>{};
    }
    const Abbrev &a = abbrevs[code];
    const Layout &l = layouts[code];
    if (a.children && l.sibling_at >= 0 && !first && l.sibling_at < c.end - c.p) {
      Cursor v{c.p + l.sibling_at, c.end};
      uint64_t sibling = reference(v, l.sibling_form, u);
      if (v.ok && sibling > at && sibling <= offset) {
        c.p = base + sibling;
        continue;
      }
    }
    if (l.size >= 0) c.skip(static_cast<uint64_t>(l.size));
    else skip_attrs(c, a, u);
    if (a.children) open.emplace_back(at, a.tag);
    else if (first) return std::nullopt;  // a unit DIE without children holds nothing
    first = false;
  }
  return std::nullopt;
}

}  // namespace

std::optional<RawInlinedCopy> read_inlined_copy(const RawUnit &unit, uint64_t offset) {
  const UnitHeader &u = unit.header();
  auto unit_die = attrs_at(unit, u.dies);
  auto copy = attrs_at(unit, offset);
  if (!unit_die || !copy || unit_die->unreadable || copy->unreadable) return std::nullopt;
  if (copy->tag != TAG_inlined_subroutine || copy->names_itself || copy->specification || !copy->origin)
    return std::nullopt;
  RawInlinedCopy out;
  out.optimized = unit_says_optimized(unit_die->language, unit_die->producer);
  if (!out.optimized) return std::nullopt;
  auto holder = subprogram_holding(unit, offset);
  if (!holder) return std::nullopt;
  auto ranges = ranges_of(*copy, unit, unit_die->base);
  if (!ranges) return std::nullopt;
  auto entry = code_entry_of(*copy, *ranges);
  if (!entry || !*entry) return std::nullopt;  // no code: LLVM's answer, and it says why
  out.origin = *copy->origin;
  out.entry = **entry;
  out.ranges = std::move(*ranges);
  if (*holder) {
    auto body = attrs_at(unit, **holder);
    if (!body || body->unreadable) return std::nullopt;
    auto body_ranges = ranges_of(*body, unit, unit_die->base);
    if (!body_ranges) return std::nullopt;
    auto body_entry = code_entry_of(*body, *body_ranges);
    if (!body_entry) return std::nullopt;
    out.body = *holder;
    out.body_entry = *body_entry;
    out.body_link = body->origin ? body->origin : body->specification;
  }
  return out;
}

std::optional<uint64_t> raw_origin_link(const RawUnit &unit, uint64_t offset) {
  auto d = attrs_at(unit, offset);
  if (!d || d->unreadable) return std::nullopt;
  return d->origin ? d->origin : d->specification;
}

}  // namespace kpp::dwarf
