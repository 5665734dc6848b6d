#include "dwarf/die_scan.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

namespace kpp::dwarf {

namespace {

// DWARF constants the scan needs (dwarf/ must not pull LLVM into this file:
// it runs on worker threads and shares nothing with the DWARFContext).
enum : uint16_t {
  TAG_array_type = 0x01, TAG_class_type = 0x02, TAG_enumeration_type = 0x04, TAG_structure_type = 0x13,
  TAG_subroutine_type = 0x15, TAG_union_type = 0x17, TAG_inlined_subroutine = 0x1d, TAG_subprogram = 0x2e,
};
enum : uint16_t {
  AT_sibling = 0x01, AT_name = 0x03, AT_low_pc = 0x11, AT_abstract_origin = 0x31, AT_specification = 0x47,
  AT_ranges = 0x55, AT_str_offsets_base = 0x72, AT_language = 0x13, AT_stmt_list = 0x10, AT_dwo_name = 0x76,
  AT_GNU_dwo_name = 0x2130, AT_type = 0x49, AT_byte_size = 0x0b, AT_encoding = 0x3e,
};
constexpr uint64_t LNCT_path = 0x1;
// DW_LANG_C_plus_plus, _03, _11, _14, _17, _20: C++ declares methods inside classes.
constexpr uint64_t cxx_languages[] = {0x04, 0x19, 0x1a, 0x21, 0x2a, 0x2b};
enum : uint16_t {
  FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06,
  FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b,
  FORM_flag = 0x0c, FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_ref_addr = 0x10,
  FORM_ref1 = 0x11, FORM_ref2 = 0x12, FORM_ref4 = 0x13, FORM_ref8 = 0x14, FORM_ref_udata = 0x15,
  FORM_indirect = 0x16, FORM_sec_offset = 0x17, FORM_exprloc = 0x18, FORM_flag_present = 0x19,
  FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_ref_sup4 = 0x1c, FORM_strp_sup = 0x1d, FORM_data16 = 0x1e,
  FORM_line_strp = 0x1f, FORM_ref_sig8 = 0x20, FORM_implicit_const = 0x21, FORM_loclistx = 0x22,
  FORM_rnglistx = 0x23, FORM_ref_sup8 = 0x24, FORM_strx1 = 0x25, FORM_strx2 = 0x26, FORM_strx3 = 0x27,
  FORM_strx4 = 0x28, FORM_addrx1 = 0x29, FORM_addrx2 = 0x2a, FORM_addrx3 = 0x2b, FORM_addrx4 = 0x2c,
  FORM_GNU_addr_index = 0x1f01, FORM_GNU_str_index = 0x1f02, FORM_GNU_ref_alt = 0x1f20, FORM_GNU_strp_alt = 0x1f21,
};

struct Cursor {
  const uint8_t *p;
  const uint8_t *end;
  bool ok = true;

  bool need(size_t n) {
    if (static_cast<size_t>(end - p) < n) ok = false;
    return ok;
  }
  uint64_t fixed(size_t n) {  // little-endian
    if (!need(n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    p += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0; p < end; shift += 7) {
      uint8_t b = *p++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  int64_t sleb() {
    int64_t v = 0;
    int shift = 0;
    for (; p < end; shift += 7) {
      uint8_t b = *p++;
      if (shift < 64) v |= static_cast<int64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        if (shift + 7 < 64 && (b & 0x40)) v |= -(int64_t{1} << (shift + 7));
        return v;
      }
    }
    ok = false;
    return 0;
  }
  void skip_leb() {
    while (p < end && (*p & 0x80)) ++p;
    if (p < end) ++p; else ok = false;
  }
  void skip(uint64_t n) {
    if (need(n)) p += n;
  }
  std::string_view cstring() {
    const void *nul = std::memchr(p, 0, end - p);
    if (!nul) { ok = false; return {}; }
    std::string_view s(reinterpret_cast<const char *>(p), static_cast<const uint8_t *>(nul) - p);
    p = static_cast<const uint8_t *>(nul) + 1;
    return s;
  }
};

struct Attr {
  uint16_t at;
  uint16_t form;
  int64_t implicit_const = 0;  // the value of a DW_FORM_implicit_const
};

struct Abbrev {
  uint16_t tag = 0;
  bool children = false;
  bool interesting = false;  // a subprogram or inlined copy: its attributes are read
  bool skippable = false;    // a type whose subtree holds no code: jumped over by DW_AT_sibling
  std::vector<Attr> attrs;
};

struct UnitHeader {
  const DwarfBytes *bytes = nullptr;  // the sections the unit is in
  uint64_t offset = 0;       // of the unit in bytes->info
  uint64_t dies = 0;         // offset of the first DIE
  uint64_t end = 0;
  uint64_t abbrev_offset = 0;
  uint8_t version = 0;
  uint8_t offset_size = 4;
  uint8_t address_size = 8;
  bool has_code_dies = true;  // not a type unit
  bool skeleton = false;      // a DWARF 5 skeleton: only its unit DIE is read (its other DIEs are in its split unit)
  bool split = false;         // a split unit: its DIEs are named by handles
  uint64_t handle_base = 0;
  uint64_t str_offsets_base = 0;  // a split unit's; others give theirs in DW_AT_str_offsets_base

  // What the index and the references call the DIE at `offset` of bytes->info.
  uint64_t handle(uint64_t at) const { return split ? handle_base + (at - offset) : at; }
};

// What one unit yields: its functions, the names of its subprograms (origin
// targets, by offset), and the functions named through another unit.
struct UnitResult {
  std::vector<ScannedFunction> functions;
  std::vector<std::pair<uint64_t, std::string_view>> names;  // sorted by offset
  std::vector<std::pair<uint64_t, uint64_t>> aliases;        // unnamed subprogram -> its origin
  std::vector<std::pair<size_t, uint64_t>> unresolved;       // functions[i] named by DIE at offset
  ScannedUnit unit;                                          // its offset and file names
  std::string_view line_header;                              // the bytes line_files() read
  std::string_view abbrev_table;                             // the bytes abbrevs() read
  std::optional<Error> error;
};

// The name of the DIE at `offset`, following unnamed aliases a few steps.
std::string_view resolve(uint64_t offset, const std::vector<std::pair<uint64_t, std::string_view>> &names,
                         const std::vector<std::pair<uint64_t, uint64_t>> &aliases) {
  for (int step = 0; step < 4; ++step) {
    auto n = std::lower_bound(names.begin(), names.end(), std::make_pair(offset, std::string_view()),
                              [](const auto &a, const auto &b) { return a.first < b.first; });
    if (n != names.end() && n->first == offset) return n->second;
    auto a = std::lower_bound(aliases.begin(), aliases.end(), std::make_pair(offset, uint64_t{0}));
    if (a == aliases.end() || a->first != offset) return {};
    offset = a->second;
  }
  return {};
}

class Scanner {
  friend class kpp::dwarf::RawUnit;

 public:
  explicit Scanner(const DwarfBytes &b) : b_(b) {}

  // Every unit of the file's .debug_info, then the split units.
  Result<std::vector<UnitHeader>> headers(const std::vector<SplitUnitBytes> &split) const {
    std::vector<UnitHeader> units;
    for (uint64_t at = 0; at < b_.info.size();) {
      auto u = header_at(b_, at);
      if (!u) return std::move(u).error();
      at = u->end;
      units.push_back(*u);
    }
    for (const SplitUnitBytes &s : split) {
      auto u = header_at(s.bytes, s.unit_offset);
      if (!u) return Error(u.error().message + " (a split unit's, in its .dwo)");
      // A .dwp's header gives the offset inside the unit's contribution;
      // LLVM's figure includes where that contribution starts.
      u->abbrev_offset = s.abbrev_offset;
      u->str_offsets_base = s.str_offsets_base;
      u->split = true;
      u->handle_base = s.handle_base;
      units.push_back(*u);
    }
    return units;
  }

  // The units of the file's .debug_info at `offsets`.
  Result<std::vector<UnitHeader>> headers_at(const std::vector<uint64_t> &offsets) const {
    std::vector<UnitHeader> units;
    for (uint64_t at : offsets) {
      auto u = header_at(b_, at);
      if (!u) return std::move(u).error();
      units.push_back(*u);
    }
    return units;
  }

  // The attributes a type chain needs of the DIE at `offset` of unit `u`
  // (whose abbreviations are `abbrev`), decoded where it lies.
  std::optional<RawDie> die_at(const UnitHeader &u, const std::vector<Abbrev> &abbrev, uint64_t offset) const {
    if (offset < u.dies || offset >= u.end) return std::nullopt;
    const uint8_t *base = data(u.bytes->info);
    Cursor c{base + offset, base + u.end};
    uint64_t code = c.uleb();
    if (!c.ok || code == 0 || code >= abbrev.size() || abbrev[code].tag == 0) return std::nullopt;
    const Abbrev &a = abbrev[code];
    RawDie die;
    die.tag = a.tag;
    for (const Attr &attr : a.attrs) {
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
  std::optional<uint64_t> subprogram_at(const UnitHeader &u, const std::vector<Abbrev> &abbrev, uint64_t address) const {
    const uint8_t *base = data(u.bytes->info);
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

  // The unit's DW_AT_stmt_list, from its unit DIE alone: the abbreviation
  // table is read only up to that DIE's entry (a vmlinux unit's table has
  // hundreds).
  std::optional<uint64_t> stmt_list(const UnitHeader &u) const {
    const DwarfBytes &b = *u.bytes;
    if (u.abbrev_offset >= b.abbrev.size()) return std::nullopt;
    const uint8_t *base = data(b.info);
    Cursor c{base + u.dies, base + u.end};
    uint64_t code = c.uleb();
    Cursor a{data(b.abbrev) + u.abbrev_offset, data(b.abbrev) + b.abbrev.size()};
    while (a.ok) {
      uint64_t have = a.uleb();
      if (have == 0 || !a.ok) return std::nullopt;
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
        if (at == AT_stmt_list && (form == FORM_sec_offset || form == FORM_data4 || form == FORM_data8))
          return c.ok ? std::optional<uint64_t>(c.fixed(form == FORM_sec_offset ? u.offset_size : form == FORM_data4 ? 4 : 8))
                      : std::nullopt;
        skip_form(c, form, u);
      }
      if (have == code) return std::nullopt;
    }
    return std::nullopt;
  }

  // Resolves the functions named through another DIE of the unit; what is
  // left names a DIE of another unit. Unless `keep_names`, the unit's names
  // are let go then (on a vmlinux they are millions of declarations).
  static void resolve_local(UnitResult &r, bool keep_names) {
    auto left = std::remove_if(r.unresolved.begin(), r.unresolved.end(), [&](const auto &u) {
      r.functions[u.first].name = resolve(u.second, r.names, r.aliases);
      return !r.functions[u.first].name.empty();
    });
    r.unresolved.erase(left, r.unresolved.end());
    if (keep_names) return;
    decltype(r.names)().swap(r.names);
    decltype(r.aliases)().swap(r.aliases);
  }

  UnitResult scan(const UnitHeader &u) const {
    UnitResult r;
    r.unit.offset = u.offset;
    if (!u.has_code_dies) return r;
    const DwarfBytes &b = *u.bytes;
    auto table = abbrevs(b, u.abbrev_offset, r.abbrev_table);
    if (!table) {
      r.error = std::move(table).error();
      return r;
    }
    const std::vector<Abbrev> &abbrev = *table;
    const uint8_t *base = data(b.info);
    Cursor c{base + u.dies, base + u.end};
    UnitState state;
    state.str_offsets_base = u.str_offsets_base;
    while (c.p < c.end && c.ok) {
      uint64_t die = c.p - base;
      uint64_t code = c.uleb();
      if (code == 0) continue;  // end of a sibling list
      if (code >= abbrev.size() || abbrev[code].tag == 0) {
        r.error = Error("DIE at 0x" + hex(die) + " uses an abbreviation the unit does not define");
        return r;
      }
      const Abbrev &a = abbrev[code];
      // In C++ a method's out-of-line body names it through DW_AT_specification,
      // pointing into its class: classes are read, not skipped, there.
      bool skip_subtree = a.skippable && !(state.cxx && a.tag != TAG_enumeration_type && a.tag != TAG_array_type &&
                                           a.tag != TAG_subroutine_type);
      if (!a.interesting && !(skip_subtree && a.children) && !state.unit_die) {
        skip_attrs(c, a, u);
        continue;
      }
      DieAttrs d = read_attrs(c, a, u, state);
      if (!c.ok) break;
      if (state.unit_die) {
        // A split unit's line table is its skeleton's (in this file): its
        // files are filed under the skeleton, the unit SRC:ALN reads.
        if (state.stmt_list && !u.split)
          r.unit.files_known = line_files(*state.stmt_list, state.str_offsets_base, r.unit.files, r.line_header);
        // A skeleton's DIEs are read from its split unit; the copies of inlined
        // functions some compilers leave in a DWARF 4 one (clang's
        // -fsplit-dwarf-inlining) would be found twice.
        if (d.skeleton || u.skeleton) return r;
        state.unit_die = false;
      }
      if (skip_subtree) {
        if (d.sibling > die && d.sibling <= u.end) c.p = base + d.sibling;
        continue;
      }
      if (a.skippable) continue;  // a C++ class: its methods come next
      file_die(r, a, u.handle(die), d, u);
    }
    if (!c.ok && !r.error) r.error = Error("a DIE of the unit at 0x" + hex(u.offset) + " runs past its end");
    return r;
  }

 private:
  // What scan() carries from DIE to DIE of one unit: facts of its unit DIE.
  struct UnitState {
    uint64_t str_offsets_base = 0;
    std::optional<uint64_t> stmt_list;
    bool cxx = false;  // DW_AT_language says C++
    bool unit_die = true;
  };
  // The attributes of one DIE that scan() files it by.
  struct DieAttrs {
    std::string_view name;
    uint64_t origin = 0, sibling = 0;  // DW_AT_abstract_origin or DW_AT_specification; DW_AT_sibling
    bool has_origin = false, has_code = false;
    bool skeleton = false;  // a unit DIE naming its .dwo
  };

  // Reads the attributes of the DIE of abbreviation `a` at `c`; the unit
  // DIE's also set `state`.
  DieAttrs read_attrs(Cursor &c, const Abbrev &a, const UnitHeader &u, UnitState &state) const {
    DieAttrs d;
    for (size_t i = 0; i < a.attrs.size() && c.ok; ++i) {
      uint16_t form = a.attrs[i].form;
      if (form == FORM_indirect) form = static_cast<uint16_t>(c.uleb());
      if (form == FORM_implicit_const) continue;
      switch (a.attrs[i].at) {
        case AT_name: d.name = string_of(c, form, u, state.str_offsets_base); break;
        case AT_abstract_origin:
        case AT_specification:
          d.origin = reference(c, form, u);
          d.has_origin = true;
          break;
        case AT_sibling: d.sibling = reference(c, form, u); break;
        case AT_str_offsets_base: state.str_offsets_base = c.fixed(u.offset_size); break;
        case AT_stmt_list:
          if (state.unit_die && (form == FORM_sec_offset || form == FORM_data4 || form == FORM_data8))
            state.stmt_list = c.fixed(form == FORM_sec_offset ? u.offset_size : form == FORM_data4 ? 4 : 8);
          else
            skip_form(c, form, u);
          break;
        case AT_language:
          if (state.unit_die && (form == FORM_data1 || form == FORM_data2)) {
            uint64_t lang = c.fixed(form == FORM_data1 ? 1 : 2);
            state.cxx = std::find(std::begin(cxx_languages), std::end(cxx_languages), lang) != std::end(cxx_languages);
          } else {
            skip_form(c, form, u);
          }
          break;
        case AT_low_pc:
        case AT_ranges:
          d.has_code = true;
          skip_form(c, form, u);
          break;
        case AT_dwo_name:
        case AT_GNU_dwo_name:
          d.skeleton = state.unit_die && !u.split;  // a split unit names its own .dwo too
          skip_form(c, form, u);
          break;
        default: skip_form(c, form, u);
      }
    }
    return d;
  }

  // Files the DIE `die` (a handle) in `r`: a named subprogram's name, an
  // unnamed one's origin, and the functions with code (inlined copies and
  // bodies), named now or, through their origin, by resolve_local().
  static void file_die(UnitResult &r, const Abbrev &a, uint64_t die, const DieAttrs &d, const UnitHeader &u) {
    uint64_t origin = d.has_origin && d.origin != 0 ? u.handle(d.origin) : d.origin;
    if (a.tag == TAG_subprogram && !d.name.empty()) r.names.emplace_back(die, d.name);
    if (a.tag == TAG_subprogram && d.name.empty() && d.has_origin) r.aliases.emplace_back(die, origin);
    bool wanted = a.tag == TAG_inlined_subroutine || (a.tag == TAG_subprogram && d.has_code);
    if (!wanted) return;
    if (!d.name.empty()) {
      r.functions.push_back({d.name, die, a.tag == TAG_inlined_subroutine});
    } else if (d.has_origin) {
      r.unresolved.emplace_back(r.functions.size(), origin);
      r.functions.push_back({{}, die, a.tag == TAG_inlined_subroutine});
    }
  }

  static const uint8_t *data(std::string_view s) { return reinterpret_cast<const uint8_t *>(s.data()); }
  static std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
  }
  static Error bad_unit(uint64_t offset) { return Error("malformed unit header at 0x" + hex(offset) + " of .debug_info"); }

  // The header of the unit at `at` in b.info.
  static Result<UnitHeader> header_at(const DwarfBytes &b, uint64_t at) {
    if (at >= b.info.size()) return bad_unit(at);
    Cursor c{data(b.info) + at, data(b.info) + b.info.size()};
    UnitHeader u;
    u.bytes = &b;
    u.offset = at;
    uint64_t length = c.fixed(4);
    if (length == 0xffffffff) {
      u.offset_size = 8;
      length = c.fixed(8);
    }
    if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return bad_unit(u.offset);
    u.end = (c.p - data(b.info)) + length;
    u.version = static_cast<uint8_t>(c.fixed(2));
    if (u.version < 2 || u.version > 5) return bad_unit(u.offset);
    if (u.version >= 5) {
      uint8_t type = static_cast<uint8_t>(c.fixed(1));
      u.address_size = static_cast<uint8_t>(c.fixed(1));
      u.abbrev_offset = c.fixed(u.offset_size);
      if (type == 4 || type == 5) c.skip(8);  // skeleton, split compile: dwo_id
      // A skeleton's DIEs are in its split unit (scanned from there); type
      // units hold no code.
      if (type == 4) u.skeleton = true;
      if (type == 2 || type == 6) {
        c.skip(8 + u.offset_size);
        u.has_code_dies = false;
      }
    } else {
      u.abbrev_offset = c.fixed(u.offset_size);
      u.address_size = static_cast<uint8_t>(c.fixed(1));
    }
    if (!c.ok) return bad_unit(u.offset);
    u.dies = c.p - data(b.info);
    return u;
  }

  // The abbreviation table at `offset`, indexed by code. Tables are parsed
  // once per thread scan call; units of a vmlinux each have their own.
  static Result<std::vector<Abbrev>> abbrevs(const DwarfBytes &b, uint64_t offset, std::string_view &read) {
    if (offset >= b.abbrev.size()) return Error("abbreviation table offset 0x" + hex(offset) + " is out of range");
    Cursor c{data(b.abbrev) + offset, data(b.abbrev) + b.abbrev.size()};
    std::vector<Abbrev> table;
    while (c.ok) {
      uint64_t code = c.uleb();
      if (code == 0) break;
      if (code > 1'000'000) return Error("abbreviation code " + std::to_string(code) + " is implausibly large");
      Abbrev a;
      a.tag = static_cast<uint16_t>(c.uleb());
      a.children = c.fixed(1) != 0;
      a.interesting = a.tag == TAG_subprogram || a.tag == TAG_inlined_subroutine;
      a.skippable = a.tag == TAG_structure_type || a.tag == TAG_union_type || a.tag == TAG_class_type ||
                    a.tag == TAG_enumeration_type || a.tag == TAG_subroutine_type || a.tag == TAG_array_type;
      for (;;) {
        uint16_t at = static_cast<uint16_t>(c.uleb());
        uint16_t form = static_cast<uint16_t>(c.uleb());
        if (!c.ok) return Error("abbreviation table at 0x" + hex(offset) + " is truncated");
        if (at == 0 && form == 0) break;
        int64_t implicit = 0;
        if (form == FORM_implicit_const) implicit = c.sleb();  // in the table, not in the DIEs
        a.attrs.push_back({at, form, implicit});
      }
      if (table.size() <= code) table.resize(code + 1);
      table[code] = std::move(a);
    }
    if (!c.ok) return Error("abbreviation table at 0x" + hex(offset) + " is truncated");
    read = b.abbrev.substr(offset, c.p - (data(b.abbrev) + offset));
    return table;
  }

  // The last path components of the file names in the header of the line
  // table at `offset` of .debug_line (DWARF 2-5), sorted and unique. False
  // when the header cannot be read: the caller then matches any file.
  bool line_files(uint64_t offset, uint64_t str_offsets_base, std::vector<std::string_view> &files,
                  std::string_view &header) const {
    if (offset >= b_.line.size()) return false;
    Cursor c{data(b_.line) + offset, data(b_.line) + b_.line.size()};
    struct Span {  // what was read, however the parse ends
      Cursor &c;
      std::string_view &header;
      const uint8_t *begin;
      ~Span() { header = std::string_view(reinterpret_cast<const char *>(begin), c.p - begin); }
    } span{c, header, c.p};
    UnitHeader h;  // the header's own format, for skip_form and string_of
    h.bytes = &b_;
    if (!enter_line_header(c, h)) return false;
    auto add = [&](std::string_view path) { files.push_back(last_path_component(path)); };
    if (h.version < 5)
      line_files_v4(c, add);
    else
      line_files_v5(c, h, str_offsets_base, add);
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return c.ok;
  }

  // Reads a line table header's fixed part into `h` (format, version,
  // address size) and leaves `c` at its directory and file tables, bounded
  // by the header's length. False when they do not fit.
  static bool enter_line_header(Cursor &c, UnitHeader &h) {
    uint64_t length = c.fixed(4);
    if (length == 0xffffffff) {
      h.offset_size = 8;
      length = c.fixed(8);
    }
    if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return false;
    c.end = c.p + length;
    h.version = static_cast<uint8_t>(c.fixed(2));
    if (h.version < 2 || h.version > 5) return false;
    if (h.version >= 5) {
      h.address_size = static_cast<uint8_t>(c.fixed(1));
      c.skip(1);  // segment selector size
    }
    uint64_t header_length = c.fixed(h.offset_size);
    if (!c.ok || header_length > static_cast<uint64_t>(c.end - c.p)) return false;
    c.end = c.p + header_length;
    c.skip(h.version >= 4 ? 5 : 4);  // minimum_instruction_length .. line_range
    uint64_t opcode_base = c.fixed(1);
    c.skip(opcode_base ? opcode_base - 1 : 0);
    return c.ok;
  }

  // DWARF 2-4: strings of directories, then entries of a name and three LEB128s.
  template <typename Add>
  static void line_files_v4(Cursor &c, const Add &add) {
    while (c.ok && !c.cstring().empty()) {}  // include_directories
    for (;;) {
      std::string_view name = c.cstring();
      if (!c.ok || name.empty()) break;
      add(name);
      c.skip_leb();  // directory index
      c.skip_leb();  // modification time
      c.skip_leb();  // length
    }
  }

  // DWARF 5: directories, then file names, each table described by its own
  // (content, form) pairs.
  template <typename Add>
  void line_files_v5(Cursor &c, const UnitHeader &h, uint64_t str_offsets_base, const Add &add) const {
    for (int table = 0; table < 2 && c.ok; ++table) {  // directories, then file names
      std::vector<std::pair<uint64_t, uint16_t>> format(c.fixed(1));
      for (auto &[content, form] : format) {
        content = c.uleb();
        form = static_cast<uint16_t>(c.uleb());
      }
      uint64_t count = c.uleb();
      for (uint64_t i = 0; i < count && c.ok; ++i)
        for (const auto &[content, form] : format) {
          if (table == 1 && content == LNCT_path) add(string_of(c, form, h, str_offsets_base));
          else skip_form(c, form, h);
        }
    }
  }

  void skip_attrs(Cursor &c, const Abbrev &a, const UnitHeader &u) const {
    for (const Attr &attr : a.attrs) skip_form(c, attr.form, u);
  }

  void skip_form(Cursor &c, uint16_t form, const UnitHeader &u) const {
    switch (form) {
      case FORM_flag_present: case FORM_implicit_const: return;
      case FORM_data1: case FORM_ref1: case FORM_flag: case FORM_strx1: case FORM_addrx1: c.skip(1); return;
      case FORM_data2: case FORM_ref2: case FORM_strx2: case FORM_addrx2: c.skip(2); return;
      case FORM_strx3: case FORM_addrx3: c.skip(3); return;
      case FORM_data4: case FORM_ref4: case FORM_ref_sup4: case FORM_strx4: case FORM_addrx4: c.skip(4); return;
      case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8: c.skip(8); return;
      case FORM_data16: c.skip(16); return;
      case FORM_addr: c.skip(u.address_size); return;
      case FORM_ref_addr: c.skip(u.version <= 2 ? u.address_size : u.offset_size); return;
      case FORM_strp: case FORM_sec_offset: case FORM_line_strp: case FORM_strp_sup: case FORM_GNU_ref_alt:
      case FORM_GNU_strp_alt:
        c.skip(u.offset_size);
        return;
      case FORM_sdata: case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx: case FORM_loclistx:
      case FORM_rnglistx: case FORM_GNU_addr_index: case FORM_GNU_str_index:
        c.skip_leb();
        return;
      case FORM_string: c.cstring(); return;
      case FORM_block1: c.skip(c.fixed(1)); return;
      case FORM_block2: c.skip(c.fixed(2)); return;
      case FORM_block4: c.skip(c.fixed(4)); return;
      case FORM_block: case FORM_exprloc: c.skip(c.uleb()); return;
      case FORM_indirect: skip_form(c, static_cast<uint16_t>(c.uleb()), u); return;
      default: c.ok = false;  // a form we do not know the size of: the unit cannot be walked
    }
  }

  uint64_t reference(Cursor &c, uint16_t form, const UnitHeader &u) const {
    switch (form) {
      case FORM_ref1: return u.offset + c.fixed(1);
      case FORM_ref2: return u.offset + c.fixed(2);
      case FORM_ref4: return u.offset + c.fixed(4);
      case FORM_ref8: return u.offset + c.fixed(8);
      case FORM_ref_udata: return u.offset + c.uleb();
      case FORM_ref_addr: return c.fixed(u.version <= 2 ? u.address_size : u.offset_size);
      default: skip_form(c, form, u); return 0;  // another file's DIE (supplementary, alt): unknown here
    }
  }

  std::string_view string_of(Cursor &c, uint16_t form, const UnitHeader &u, uint64_t str_offsets_base) const {
    const DwarfBytes &b = *u.bytes;
    auto in = [](std::string_view section, uint64_t offset) -> std::string_view {
      if (offset >= section.size()) return {};
      return std::string_view(section.data() + offset, strnlen(section.data() + offset, section.size() - offset));
    };
    auto indexed = [&](uint64_t index) -> std::string_view {
      uint64_t at = str_offsets_base + index * u.offset_size;
      if (at + u.offset_size > b.str_offsets.size()) return {};
      Cursor s{data(b.str_offsets) + at, data(b.str_offsets) + b.str_offsets.size()};
      return in(b.str, s.fixed(u.offset_size));
    };
    switch (form) {
      case FORM_string: return c.cstring();
      case FORM_strp: return in(b.str, c.fixed(u.offset_size));
      case FORM_line_strp: return in(b.line_str, c.fixed(u.offset_size));
      case FORM_strx: case FORM_GNU_str_index: return indexed(c.uleb());
      case FORM_strx1: return indexed(c.fixed(1));
      case FORM_strx2: return indexed(c.fixed(2));
      case FORM_strx3: return indexed(c.fixed(3));
      case FORM_strx4: return indexed(c.fixed(4));
      default: skip_form(c, form, u); return {};
    }
  }

  DwarfBytes b_;
};

}  // namespace

std::string_view last_path_component(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

Result<ScanResult> scan_units(const Scanner &scanner, const DwarfBytes &bytes, Result<std::vector<UnitHeader>> units,
                              unsigned threads, const std::function<void(std::string_view)> &done_with) {
  if (!units) return std::move(units).error();
  std::vector<UnitResult> results(units->size());

  // Units differ in size by orders of magnitude: threads take the next unit
  // from a shared counter rather than a fixed share.
  auto scan_all = [&](bool keep_names) -> std::optional<Error> {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < units->size();) {
        const UnitHeader &u = (*units)[i];
        results[i] = scanner.scan(u);
        Scanner::resolve_local(results[i], keep_names);
        if (done_with && !u.split) {  // a split unit's bytes are another file's
          done_with(bytes.info.substr(u.offset, u.end - u.offset));
          for (std::string_view read : {results[i].line_header, results[i].abbrev_table})
            if (!read.empty()) done_with(read);
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(work);
    work();
    for (std::thread &t : pool) t.join();
    for (UnitResult &r : results)
      if (r.error) return std::move(*r.error);
    return std::nullopt;
  };
  if (auto error = scan_all(false)) return std::move(*error);
  bool cross_unit = std::any_of(results.begin(), results.end(), [](const UnitResult &r) { return !r.unresolved.empty(); });
  if (cross_unit) {
    // References into other units (DW_FORM_ref_addr, from LTO): resolved
    // against every unit's names, which are in offset order unit after unit.
    // Only such binaries pay for keeping every name: a second scan keeps them.
    if (auto error = scan_all(true)) return std::move(*error);
    std::vector<std::pair<uint64_t, std::string_view>> global_names;
    std::vector<std::pair<uint64_t, uint64_t>> global_aliases;
    for (const UnitResult &r : results) {
      global_names.insert(global_names.end(), r.names.begin(), r.names.end());
      global_aliases.insert(global_aliases.end(), r.aliases.begin(), r.aliases.end());
    }
    for (UnitResult &r : results)
      for (auto &[index, origin] : r.unresolved) r.functions[index].name = resolve(origin, global_names, global_aliases);
  }
  ScanResult all;
  size_t total = 0;
  for (const UnitResult &r : results) total += r.functions.size();
  all.functions.reserve(total);
  for (size_t i = 0; i < results.size(); ++i) {
    UnitResult &r = results[i];
    for (ScannedFunction &f : r.functions)
      if (!f.name.empty()) all.functions.push_back(f);
    decltype(r.functions)().swap(r.functions);
    // Compile units of this file (skeletons included: they hold the line
    // tables); a split unit's offset is in its .dwo.
    if ((*units)[i].has_code_dies && !(*units)[i].split) all.units.push_back(std::move(r.unit));
  }
  return all;
}

}  // namespace

struct RawUnit::Parts {
  UnitHeader header;
  std::vector<Abbrev> abbrev;
};

std::optional<RawUnit> RawUnit::open(const DwarfBytes &bytes, uint64_t unit_offset) {
  Scanner scanner(bytes);
  auto units = scanner.headers_at({unit_offset});
  if (!units || units->empty() || !(*units)[0].has_code_dies) return std::nullopt;
  RawUnit unit;
  unit.bytes_ = bytes;
  unit.parts_ = std::make_shared<Parts>();
  unit.parts_->header = (*units)[0];
  unit.parts_->header.bytes = &unit.bytes_;
  std::string_view read;
  auto abbrev = Scanner::abbrevs(bytes, unit.parts_->header.abbrev_offset, read);
  if (!abbrev) return std::nullopt;
  unit.parts_->abbrev = std::move(*abbrev);
  return unit;
}

std::optional<RawDie> RawUnit::die_at(uint64_t offset) const {
  parts_->header.bytes = &bytes_;  // this copy's (a RawUnit may have been moved)
  return Scanner(bytes_).die_at(parts_->header, parts_->abbrev, offset);
}

std::optional<uint64_t> RawUnit::subprogram_at(uint64_t address) const {
  parts_->header.bytes = &bytes_;
  return Scanner(bytes_).subprogram_at(parts_->header, parts_->abbrev, address);
}

uint8_t RawUnit::address_size() const { return parts_->header.address_size; }

std::optional<uint64_t> unit_at_address(std::string_view aranges, uint64_t address) {
  Cursor c{reinterpret_cast<const uint8_t *>(aranges.data()), reinterpret_cast<const uint8_t *>(aranges.data() + aranges.size())};
  while (c.ok && c.p < c.end) {
    const uint8_t *set = c.p;
    uint64_t length = c.fixed(4);
    size_t offset_size = 4;
    if (length == 0xffffffff) {
      length = c.fixed(8);
      offset_size = 8;
    }
    if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return std::nullopt;
    const uint8_t *next = c.p + length;
    c.fixed(2);  // version
    uint64_t unit = c.fixed(offset_size);
    size_t address_size = c.fixed(1);
    size_t segment_size = c.fixed(1);
    if (!c.ok || (address_size != 4 && address_size != 8) || segment_size != 0) return std::nullopt;
    // Tuples start at a multiple of their own size from the set's start.
    size_t tuple = 2 * address_size, header = c.p - set;
    c.skip((tuple - header % tuple) % tuple);
    while (c.ok && c.p + tuple <= next) {
      uint64_t begin = c.fixed(address_size), size = c.fixed(address_size);
      if (begin == 0 && size == 0) break;
      if (address >= begin && address - begin < size) return unit;
    }
    c.p = next;
  }
  return std::nullopt;
}

std::vector<std::pair<uint64_t, uint64_t>> unit_line_tables(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets) {
  Scanner scanner(bytes);
  std::vector<std::pair<uint64_t, uint64_t>> tables;
  auto units = scanner.headers_at(unit_offsets);
  if (!units) return tables;  // a malformed header: no table is known
  for (const UnitHeader &u : *units)
    if (auto stmt = u.has_code_dies ? scanner.stmt_list(u) : std::nullopt) tables.emplace_back(*stmt, u.offset);
  return tables;
}

Result<ScanResult> scan_functions(const DwarfBytes &bytes, const std::vector<SplitUnitBytes> &split, unsigned threads,
                                  const std::function<void(std::string_view)> &done_with) {
  Scanner scanner(bytes);
  return scan_units(scanner, bytes, scanner.headers(split), threads, done_with);
}

Result<ScanResult> scan_functions_in(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets, unsigned threads,
                                     const std::function<void(std::string_view)> &done_with) {
  Scanner scanner(bytes);
  return scan_units(scanner, bytes, scanner.headers_at(unit_offsets), threads, done_with);
}


}  // namespace kpp::dwarf
