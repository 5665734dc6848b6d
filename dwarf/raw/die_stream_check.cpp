#include "dwarf/raw/die_stream_check.h"

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <cstring>
#include <thread>
#include <optional>
#include <tuple>
#include <vector>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFObject.h>
#include <llvm/DebugInfo/DWARF/DWARFUnitIndex.h>

#include "util/strings.h"

namespace kpp::dwarf {

namespace {

// How far one value of a form reaches, as LLVM 19 measures it
// (DWARFFormValue::getFixedByteSize and skipValue).
enum class Size : uint8_t {
  Fixed,       // `bytes` bytes
  Address,     // the unit's address size
  Offset,      // 4, or 8 in 64-bit DWARF
  RefAddr,     // the address size in DWARF 2, an offset after
  Uleb,        // one LEB128
  Uleb4,       // a LEB128 and 4 bytes (DW_FORM_LLVM_addrx_offset)
  String,      // to a NUL
  Block,       // a length of `bytes` bytes, then that many
  BlockUleb,   // a LEB128 length, then that many
  Indirect,    // a LEB128 form, then a value of it
  Unknown,
};

struct FormSize {
  Size kind;
  uint8_t bytes = 0;
};

FormSize size_of_form(uint64_t form) {
  switch (form) {
    case 0x01: return {Size::Address};                                    // addr
    case 0x03: return {Size::Block, 2};                                   // block2
    case 0x04: return {Size::Block, 4};                                   // block4
    case 0x05: case 0x12: case 0x26: case 0x2a: return {Size::Fixed, 2};  // data2 ref2 strx2 addrx2
    case 0x06: case 0x13: case 0x1c: case 0x28: case 0x2c: return {Size::Fixed, 4};  // data4 ref4 ref_sup4 strx4 addrx4
    case 0x07: case 0x14: case 0x20: case 0x24: return {Size::Fixed, 8};  // data8 ref8 ref_sig8 ref_sup8
    case 0x08: return {Size::String};                                     // string
    case 0x09: case 0x18: return {Size::BlockUleb};                       // block exprloc
    case 0x0a: return {Size::Block, 1};                                   // block1
    case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: return {Size::Fixed, 1};  // data1 flag ref1 strx1 addrx1
    case 0x0d: case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23: case 0x1f01: case 0x1f02:
      return {Size::Uleb};  // sdata udata ref_udata strx addrx loclistx rnglistx GNU_addr_index GNU_str_index
    case 0x0e: case 0x17: case 0x1d: case 0x1f: case 0x1f20: case 0x1f21:
      return {Size::Offset};  // strp sec_offset strp_sup line_strp GNU_ref_alt GNU_strp_alt
    case 0x10: return {Size::RefAddr};                                    // ref_addr
    case 0x16: return {Size::Indirect};                                   // indirect
    case 0x19: case 0x21: return {Size::Fixed, 0};                        // flag_present implicit_const
    case 0x1e: return {Size::Fixed, 16};                                  // data16
    case 0x27: case 0x2b: return {Size::Fixed, 3};                        // strx3 addrx3
    case 0x2001: return {Size::Uleb4};                                    // LLVM_addrx_offset
    default: return {Size::Unknown};
  }
}

// "DW_FORM_block4", or the number when LLVM has no name for it.
std::string form_name(uint64_t form) {
  llvm::StringRef name = llvm::dwarf::FormEncodingString(static_cast<unsigned>(form));
  return name.empty() ? "form " + hex(form) : name.str();
}
std::string attribute_name(uint64_t attribute) {
  llvm::StringRef name = llvm::dwarf::AttributeString(static_cast<unsigned>(attribute));
  return name.empty() ? "attribute " + hex(attribute) : name.str();
}

// Reads little-endian fields and LEB128s of [begin, end); `ok` turns false
// on the first read past the end and stays false.
struct Reader {
  const uint8_t *begin, *p, *end;
  bool ok = true;

  uint64_t at() const { return static_cast<uint64_t>(p - begin); }
  bool skip(uint64_t n) {
    if (!ok || n > static_cast<uint64_t>(end - p)) return ok = false;
    p += n;
    return true;
  }
  uint64_t fixed(unsigned n) {
    const uint8_t *from = p;
    if (!skip(n)) return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<uint64_t>(from[i]) << (8 * i);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; ok && p < end; shift += 7) {
      uint8_t b = *p++;
      if (shift < 64) v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
};

struct AttrSpec {
  uint64_t attribute, form;
};

// One step of walking a DIE: consecutive values of fixed size are one skip.
struct Step {
  Size kind;
  uint32_t bytes;  // Fixed: how many; Block: the width of the length
};

struct Decl {
  bool defined = false;
  bool refers_out = false;  // a value names a DIE of another unit (LLVM follows it there)
  int64_t fixed = -1;       // the size of every DIE's values when they are all of fixed sizes (one step, or none)
  std::vector<AttrSpec> attrs;
  std::vector<Step> steps;  // attrs' values, with this unit's sizes
};
using Table = std::vector<Decl>;  // by code

constexpr uint64_t kMaxAbbrevCode = 1'000'000;
// How much of the unit headers' walk is read before its pages are given back.
constexpr uint64_t kGiveBackEvery = 4u << 20;

// What sizes depend on besides the form.
struct UnitFormat {
  unsigned address_size = 8, offset_size = 4, version = 4;
  unsigned ref_addr() const { return version <= 2 ? address_size : offset_size; }
};

struct UnitSpan {
  uint64_t offset = 0, dies = 0, end = 0, abbrev_offset = 0;
  UnitFormat format;
};

// The step of one value of `form` in units of `format`.
Step step_of(uint64_t form, const UnitFormat &format) {
  FormSize size = size_of_form(form);
  switch (size.kind) {
    case Size::Address: return {Size::Fixed, format.address_size};
    case Size::Offset: return {Size::Fixed, format.offset_size};
    case Size::RefAddr: return {Size::Fixed, format.ref_addr()};
    default: return {size.kind, size.bytes};
  }
}

// The steps of `attrs` for units of `format`.
std::vector<Step> steps_of(const std::vector<AttrSpec> &attrs, const UnitFormat &format) {
  std::vector<Step> steps;
  for (const AttrSpec &a : attrs) {
    Step step = step_of(a.form, format);
    if (step.kind == Size::Fixed && !steps.empty() && steps.back().kind == Size::Fixed) steps.back().bytes += step.bytes;
    else if (!(step.kind == Size::Fixed && step.bytes == 0)) steps.push_back(step);
  }
  return steps;
}

// Moves u past one value of `step`; false (and u.ok false) when it would leave u.
inline bool skip_step(Reader &u, Step step, const UnitFormat &format) {
  switch (step.kind) {
    case Size::Fixed: return u.skip(step.bytes);
    case Size::Uleb: u.uleb(); return u.ok;
    case Size::Uleb4: u.uleb(); return u.skip(4);
    case Size::String: {
      const void *nul = std::memchr(u.p, 0, static_cast<size_t>(u.end - u.p));
      if (!nul) return u.ok = false;
      u.p = static_cast<const uint8_t *>(nul) + 1;
      return true;
    }
    case Size::Block: return u.skip(u.fixed(step.bytes));
    case Size::BlockUleb: return u.skip(u.uleb());
    case Size::Indirect: {
      // A LEB128 form, then its value (LLVM follows indirect chains; a few hops here).
      for (int hops = 0; hops < 8 && u.ok; ++hops) {
        Step next = step_of(u.uleb(), format);
        if (next.kind == Size::Unknown) return u.ok = false;
        if (next.kind != Size::Indirect) return skip_step(u, next, format);
      }
      return u.ok = false;
    }
    case Size::Address:
    case Size::Offset:
    case Size::RefAddr:
    case Size::Unknown: return u.ok = false;
  }
  return u.ok = false;
}

// The abbreviation table a thread read last, and the unit format its sizes
// are for: units that share a table come one after the other (gcc gives
// each unit its own; a vmlinux has thousands, kept all they took ~100 MB).
struct Tables {
  std::tuple<uint64_t, unsigned, unsigned, unsigned> key{~uint64_t{0}, 0, 0, 0};
  Table last;
};

class StreamChecker {
 public:
  StreamChecker(const DieStream &s, const std::string &file, const std::function<void(std::string_view)> &done_with)
      : s_(s), file_(file), done_with_(done_with) {}

  Status run() {
    auto units = spans();
    if (!units) return std::move(units).error();
    // Units are independent: two threads take the next one from a shared
    // counter (a vmlinux has thousands, of very different sizes).
    std::vector<std::optional<Error>> errors(units->size());
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
      Tables tables;
      for (size_t i; !failed && (i = next.fetch_add(1)) < units->size();) {
        if (Status st = check_unit((*units)[i], tables); !st) {
          errors[i] = std::move(st).error();
          failed = true;
        } else if (done_with_) {
          done_with_(s_.info.substr((*units)[i].offset, (*units)[i].end - (*units)[i].offset));
        }
      }
    };
    bool threaded = units->size() > 1 && s_.info.size() > (4u << 20);
    std::optional<std::thread> helper;
    if (threaded) helper.emplace(work);
    work();
    if (helper) helper->join();
    for (std::optional<Error> &e : errors)
      if (e) return std::move(*e);
    return Ok{};
  }

  static Reader reader(std::string_view bytes) {
    auto *b = reinterpret_cast<const uint8_t *>(bytes.data());
    return Reader{b, b, b + bytes.size()};
  }

  Error bad(uint64_t unit, const std::string &what) const {
    return Error("'" + file_ + "' has damaged DWARF: the unit at " + hex(s_.base + unit) + " of " + std::string(s_.name) +
                     ": " + what,
                 "LLVM would read past the end of the section; the file was not read further");
  }

  // A header's abbreviation offset, through the section's relocations if it has any.
  uint64_t abbrev_offset(Reader &h, unsigned size) const {
    uint64_t at = h.at(), raw = h.fixed(size);
    return s_.relocated && h.ok ? s_.relocated(at, size) : raw;
  }

  // Every unit's header, in order. Reading a header maps the 64 KiB around
  // it (the kernel's fault-around): on a vmlinux's ~2,170 headers that was
  // ~100 MB resident before the first unit was checked, so the walk gives
  // back what lies behind it every few MB.
  Result<std::vector<UnitSpan>> spans() const {
    std::vector<UnitSpan> units;
    Reader r = reader(s_.info);
    uint64_t given_back = 0;
    auto give_back = [&](uint64_t upto) {
      if (done_with_ && upto > given_back) done_with_(s_.info.substr(given_back, upto - given_back));
      given_back = upto;
    };
    while (r.p < r.end) {
      UnitSpan u;
      u.offset = r.at();
      if (u.offset - given_back >= kGiveBackEvery) give_back(u.offset);
      uint64_t length = r.fixed(4);
      u.format.offset_size = 4;
      if (length == 0xffffffff) {
        u.format.offset_size = 8;
        length = r.fixed(8);
      }
      if (!r.ok || length > static_cast<uint64_t>(r.end - r.p))
        return bad(u.offset, "its length (" + hex(length) + ") runs past the end of the section");
      Reader h{r.begin, r.p, r.p + length};
      r.p += length;
      u.end = r.at();
      uint64_t version = h.fixed(2), address_size = 0, type = 1;
      if (version < 2 || version > 5) return bad(u.offset, "version " + std::to_string(version));
      if (version == 5) {
        type = h.fixed(1);
        address_size = h.fixed(1);
        u.abbrev_offset = abbrev_offset(h, u.format.offset_size);
        if (type == 2 || type == 6) h.skip(8 + u.format.offset_size);  // type signature and offset
        else if (type == 4 || type == 5) h.skip(8);                    // dwo_id
        else if (type != 1 && type != 3) return bad(u.offset, "unit type " + std::to_string(type));
      } else {
        u.abbrev_offset = abbrev_offset(h, u.format.offset_size);
        address_size = h.fixed(1);
        if (s_.type_units) h.skip(8 + u.format.offset_size);
      }
      if (!h.ok) return bad(u.offset, "its header runs past its end");
      if (address_size != 2 && address_size != 4 && address_size != 8)
        return bad(u.offset, "address size " + std::to_string(address_size));
      u.format.address_size = static_cast<unsigned>(address_size);
      u.format.version = static_cast<unsigned>(version);
      u.dies = h.at();
      units.push_back(u);
    }
    give_back(r.at());
    return units;
  }

  // The table at `offset` of the abbreviations, with the sizes of `unit`'s
  // format; read only up to code `stop_at` when it is not 0 (the first DIE
  // of a unit needs one declaration, usually the first).
  Result<const Table *> abbreviations(const UnitSpan &unit, Tables &tables, uint64_t stop_at = 0) const {
    uint64_t offset = unit.abbrev_offset;
    auto key = std::make_tuple(offset, unit.format.address_size, unit.format.offset_size, unit.format.ref_addr());
    if (tables.key == key) return &tables.last;
    if (offset >= s_.abbrev.size())
      return bad(unit.offset, "its abbreviations' offset " + hex(offset) + " is past the end of the abbreviations (" +
                                  hex(s_.abbrev.size()) + " bytes)");
    Reader a = reader(s_.abbrev);
    a.p += offset;
    Table table;
    for (;;) {
      uint64_t code = a.uleb();
      if (!a.ok || code == 0) break;
      if (code > kMaxAbbrevCode) return bad(unit.offset, "abbreviation code " + std::to_string(code) + " at " + hex(offset));
      if (stop_at && code != stop_at) {
        // Passed over unread: gcc numbers a unit DIE's declaration among the last.
        a.uleb();   // tag
        a.skip(1);  // has children
        for (uint64_t attribute = 1, form = 1; a.ok && (attribute || form);) {
          attribute = a.uleb(), form = a.uleb();
          if (form == 0x21) a.uleb();
        }
        continue;
      }
      if (code >= table.size()) table.resize(code + 1);
      Decl &d = table[code];
      d = Decl{};
      d.defined = true;
      a.uleb();   // tag
      a.skip(1);  // has children
      for (;;) {
        uint64_t attribute = a.uleb(), form = a.uleb();
        if (!a.ok || (attribute == 0 && form == 0)) break;
        if (form == 0x21) a.uleb();  // implicit_const: the value is here (an SLEB128: same length)
        if (size_of_form(form).kind == Size::Unknown)
          return bad(unit.offset, "abbreviation " + std::to_string(code) + " uses " + form_name(form) +
                                      ", which LLVM cannot skip");
        d.attrs.push_back({attribute, form});
        d.refers_out |= form == 0x10 || form == 0x20 || form == 0x16;  // ref_addr, ref_sig8, indirect (could be either)
      }
      d.steps = steps_of(d.attrs, unit.format);
      if (d.steps.empty()) d.fixed = 0;
      else if (d.steps.size() == 1 && d.steps[0].kind == Size::Fixed) d.fixed = d.steps[0].bytes;
      if (code == stop_at) break;
    }
    if (!a.ok) return bad(unit.offset, "its abbreviation table at " + hex(offset) + " runs past the end of the section");
    tables.key = stop_at ? decltype(key){~uint64_t{0}, 0, 0, 0} : key;  // a part of a table answers no other DIE
    tables.last = std::move(table);
    return &tables.last;
  }

  // Every DIE of `unit`, or its first alone (`first_only`); `refers_out`,
  // when given, learns whether a DIE read names a DIE of another unit.
  Status check_unit(const UnitSpan &unit, Tables &tables, bool first_only = false, bool *refers_out = nullptr) const {
    Reader u = reader(s_.info);
    u.p = u.begin + unit.dies;
    u.end = u.begin + unit.end;
    uint64_t first_code = 0;
    if (first_only) {
      Reader peek = u;
      first_code = peek.uleb();
      if (!peek.ok || first_code == 0) return Ok{};  // no unit DIE: LLVM reads nothing
    }
    auto table = abbreviations(unit, tables, first_code);
    if (!table) return std::move(table).error();
    const Table &decls = **table;
    while (u.p < u.end) {
      const uint8_t *die = u.p;
      uint64_t code = *u.p < 0x80 ? *u.p++ : u.uleb();
      if (!u.ok) return bad(unit.offset, "the DIE at " + hex(s_.base + (die - u.begin)) + " runs past the unit's end");
      if (code == 0) continue;  // the end of a list of children
      if (code >= decls.size() || !decls[code].defined)
        return bad(unit.offset, "the DIE at " + hex(s_.base + (die - u.begin)) + " uses abbreviation " +
                                    std::to_string(code) + ", which its table does not define");
      // Most DIEs' values are all of fixed sizes: one bound check.
      const Decl &decl = decls[code];
      if (decl.fixed >= 0) {
        if (!u.skip(static_cast<uint64_t>(decl.fixed))) return what_ran_past(unit, decl, die);
      } else {
        for (const Step &step : decl.steps)
          if (!skip_step(u, step, unit.format)) return what_ran_past(unit, decl, die);
      }
      if (refers_out) *refers_out |= decl.refers_out;
      if (first_only) break;
    }
    return Ok{};
  }

  // The attribute of the DIE at `die` that leaves its unit, found value by value.
  Error what_ran_past(const UnitSpan &unit, const Decl &decl, const uint8_t *die) const {
    Reader u = reader(s_.info);
    u.p = die;
    u.end = u.begin + unit.end;
    u.uleb();
    std::string at = "the DIE at " + hex(s_.base + (die - u.begin));
    for (const AttrSpec &a : decl.attrs) {
      if (!skip_step(u, step_of(a.form, unit.format), unit.format))
        return bad(unit.offset, at + ": its " + attribute_name(a.attribute) + " (" + form_name(a.form) +
                                    ") runs past the unit's end at " + hex(s_.base + unit.end));
    }
    return bad(unit.offset, at + " runs past the unit's end at " + hex(s_.base + unit.end));
  }

  // (the functions above are UnitGate's too)
 private:
  const DieStream &s_;
  const std::string &file_;
  const std::function<void(std::string_view)> &done_with_;
};

}  // namespace

struct UnitGate::State {
  DieStream stream;
  std::string file;
  std::function<void(std::string_view)> no_give_back;  // the units read are LLVM's to keep
  std::vector<UnitSpan> units;                         // by offset
  std::vector<bool> entered;                           // units[i] checked whole
  Tables tables;
  StreamChecker checker() const { return StreamChecker(stream, file, no_give_back); }
};

UnitGate::UnitGate(std::unique_ptr<State> state) : state_(std::move(state)) {}
UnitGate::UnitGate(UnitGate &&) noexcept = default;
UnitGate &UnitGate::operator=(UnitGate &&) noexcept = default;
UnitGate::~UnitGate() = default;

Result<UnitGate> UnitGate::open(DieStream stream, std::string file, const std::vector<Unit> &units, bool unit_dies) {
  auto state = std::make_unique<State>();
  state->stream = std::move(stream);
  state->file = std::move(file);
  State &s = *state;
  StreamChecker checker = s.checker();
  for (const Unit &unit : units) {
    UnitSpan span;
    span.offset = unit.offset, span.dies = unit.dies, span.end = unit.end, span.abbrev_offset = unit.abbrev_offset;
    span.format = {unit.address_size, unit.offset_size, unit.version};
    // LLVM's headers lie inside the section; a stream shorter than LLVM's section is not this one.
    if (span.dies > span.end || span.end > s.stream.info.size())
      return Error("'" + s.file + "': the unit at " + hex(unit.offset) + " is not inside the DIEs checked");
    if (unit_dies)
      if (Status st = checker.check_unit(span, s.tables, /*first_only=*/true); !st) return std::move(st).error();
    s.units.push_back(span);
  }
  std::sort(s.units.begin(), s.units.end(), [](const UnitSpan &a, const UnitSpan &b) { return a.offset < b.offset; });
  s.entered.assign(s.units.size(), false);
  return UnitGate(std::move(state));
}

// The index of the unit whose header is at `offset`; nullopt when none is.
static std::optional<size_t> unit_at(const std::vector<UnitSpan> &units, uint64_t offset) {
  auto it = std::lower_bound(units.begin(), units.end(), offset, [](const UnitSpan &u, uint64_t at) { return u.offset < at; });
  if (it == units.end() || it->offset != offset) return std::nullopt;
  return static_cast<size_t>(it - units.begin());
}

Result<bool> UnitGate::enter(uint64_t offset) {
  State &s = *state_;
  std::optional<size_t> i = unit_at(s.units, offset);
  if (!i) return false;  // not a unit the walk saw: check them all
  if (s.entered[*i]) return true;
  bool refers_out = false;
  if (Status st = s.checker().check_unit(s.units[*i], s.tables, false, &refers_out); !st)
    return std::move(st).error();
  if (refers_out) return false;
  s.entered[*i] = true;
  return true;
}

Status check_die_stream(const DieStream &stream, const std::string &file,
                        const std::function<void(std::string_view)> &done_with) {
  if (stream.info.empty()) return Ok{};
  return StreamChecker(stream, file, done_with).run();
}

DieStream section_stream(const llvm::DWARFObject &object, const llvm::DWARFSection &section, std::string_view abbrev,
                         bool type_units, std::string_view name) {
  auto relocated = [&object, &section](uint64_t offset, unsigned size) {
    llvm::DWARFDataExtractor data(object, section, object.isLittleEndian(), 0);
    return data.getRelocatedValue(size, &offset);
  };
  return {std::string_view(section.Data.data(), section.Data.size()), abbrev, type_units, name, 0, relocated};
}

Status check_context_dies(const llvm::DWARFContext &context, const std::string &file,
                          const std::function<void(std::string_view)> &done_with) {
  const llvm::DWARFObject &object = context.getDWARFObj();
  auto view = [](llvm::StringRef s) { return std::string_view(s.data(), s.size()); };
  Status status = Ok{};
  auto check = [&](const llvm::DWARFSection &section, std::string_view abbrev, bool types, std::string_view name) {
    if (status) status = check_die_stream(section_stream(object, section, abbrev, types, name), file, done_with);
  };
  std::string_view abbrev = view(object.getAbbrevSection()), abbrev_dwo = view(object.getAbbrevDWOSection());
  object.forEachInfoSections([&](const llvm::DWARFSection &s) { check(s, abbrev, false, ".debug_info"); });
  object.forEachTypesSections([&](const llvm::DWARFSection &s) { check(s, abbrev, true, ".debug_types"); });
  // A .dwo's units (a .dwp's count from their index rows: check_package_dies).
  if (object.getCUIndexSection().empty() && object.getTUIndexSection().empty()) {
    object.forEachInfoDWOSections([&](const llvm::DWARFSection &s) { check(s, abbrev_dwo, false, ".debug_info.dwo"); });
    object.forEachTypesDWOSections([&](const llvm::DWARFSection &s) { check(s, abbrev_dwo, true, ".debug_types.dwo"); });
  }
  return status;
}

void refuse_damaged_dies(const llvm::DWARFContext &context, const std::string &file,
                         const std::function<void(std::string_view)> &done_with) {
  if (Status s = check_context_dies(context, file, done_with); !s) throw DamagedDwarf(std::move(s).error());
}

Status check_package_dies(llvm::DWARFContext &package, const std::string &file) {
  const llvm::DWARFObject &object = package.getDWARFObj();
  if (object.getCUIndexSection().empty() && object.getTUIndexSection().empty()) return Ok{};
  auto view = [](llvm::StringRef s) { return std::string_view(s.data(), s.size()); };
  std::string_view info, types, abbrev = view(object.getAbbrevDWOSection());
  object.forEachInfoDWOSections([&](const llvm::DWARFSection &s) { info = view(s.Data); });
  object.forEachTypesDWOSections([&](const llvm::DWARFSection &s) { types = view(s.Data); });
  // Each row's units read the abbreviations of the row's contribution (the
  // index was checked against the sections first, dwarf/elf/elf_bounds.h).
  for (const llvm::DWARFUnitIndex *index : {&package.getCUIndex(), &package.getTUIndex()})
    for (const llvm::DWARFUnitIndex::Entry &row : index->getRows()) {
      if (!row.getContributions()) continue;  // an empty slot: LLVM's getContribution would read through null
      const auto *in_abbrev = row.getContribution(llvm::DW_SECT_ABBREV);
      const auto *in_info = row.getContribution(llvm::DW_SECT_INFO);
      const auto *in_types = row.getContribution(llvm::DW_SECT_EXT_TYPES);
      if (!in_abbrev || in_abbrev->getOffset() > abbrev.size()) continue;
      std::string_view own_abbrev = abbrev.substr(in_abbrev->getOffset(), in_abbrev->getLength());
      for (auto [in, section, name] : {std::tuple{in_info, info, ".debug_info.dwo"}, std::tuple{in_types, types, ".debug_types.dwo"}}) {
        if (!in || in->getOffset() > section.size()) continue;
        DieStream stream{section.substr(in->getOffset(), in->getLength()), own_abbrev, section.data() == types.data(), name,
                         in->getOffset(), {}};
        if (Status s = check_die_stream(stream, file); !s) return s;
      }
    }
  return Ok{};
}

}  // namespace kpp::dwarf
