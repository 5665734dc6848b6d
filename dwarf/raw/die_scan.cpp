#include "dwarf/raw/die_scan.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "dwarf/raw/raw_abbrev.h"
#include "dwarf/raw/raw_line_header.h"
#include "util/offset_map.h"
#include "util/strings.h"

namespace kpp::dwarf {

namespace {

using namespace raw;

// DW_LANG_C_plus_plus, _03, _11, _14, _17, _20: C++ declares methods inside classes.
constexpr uint64_t cxx_languages[] = {0x04, 0x19, 0x1a, 0x21, 0x2a, 0x2b};

// What one unit yields: its functions, the names of its subprograms (origin
// targets, by offset), and the functions named through another unit.
struct UnitResult {
  std::vector<ScannedFunction> functions;
  std::vector<std::pair<uint64_t, std::string_view>> names;  // sorted by offset
  std::vector<std::pair<uint64_t, uint64_t>> aliases;        // unnamed subprogram -> its origin
  std::vector<std::pair<size_t, uint64_t>> unresolved;       // functions[i] named by DIE at offset
  ScannedUnit unit;                                          // its offset and file names
  std::string_view line_header;                              // the bytes line_table_files() read
  std::string_view abbrev_table;                             // the bytes read_abbrevs() read
  std::optional<Error> error;
};

// The name of the DIE at `offset`, following unnamed aliases a few steps:
// `name_at(offset)` gives a named subprogram's name, `origin_of(offset)`
// the DIE an unnamed one stands for, each from the tables at hand.
template <class NameAt, class OriginOf>
std::string_view resolve(uint64_t offset, const NameAt &name_at, const OriginOf &origin_of) {
  for (int step = 0; step < 4; ++step) {
    if (std::optional<std::string_view> name = name_at(offset)) return *name;
    std::optional<uint64_t> next = origin_of(offset);
    if (!next) return {};
    offset = *next;
  }
  return {};
}

// resolve() in one unit's tables, sorted by offset.
std::string_view resolve_in(uint64_t offset, const std::vector<std::pair<uint64_t, std::string_view>> &names,
                            const std::vector<std::pair<uint64_t, uint64_t>> &aliases) {
  auto name_at = [&](uint64_t at) -> std::optional<std::string_view> {
    auto n = std::lower_bound(names.begin(), names.end(), std::make_pair(at, std::string_view()),
                              [](const auto &a, const auto &b) { return a.first < b.first; });
    if (n == names.end() || n->first != at) return std::nullopt;
    return n->second;
  };
  auto origin_of = [&](uint64_t at) -> std::optional<uint64_t> {
    auto a = std::lower_bound(aliases.begin(), aliases.end(), std::make_pair(at, uint64_t{0}));
    if (a == aliases.end() || a->first != at) return std::nullopt;
    return a->second;
  };
  return resolve(offset, name_at, origin_of);
}

class Scanner {
 public:
  explicit Scanner(const DwarfBytes &b) : b_(b) {}

  // Every unit of the file's .debug_info, then the split units.
  Result<std::vector<UnitHeader>> headers(const std::vector<SplitUnitBytes> &split) const {
    std::vector<UnitHeader> units;
    for (uint64_t at = 0; at < b_.info.size();) {
      auto u = read_unit_header(b_, at);
      if (!u) return std::move(u).error();
      at = u->end;
      units.push_back(*u);
    }
    for (const SplitUnitBytes &s : split) {
      auto u = read_unit_header(s.bytes, s.unit_offset);
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
      auto u = read_unit_header(b_, at);
      if (!u) return std::move(u).error();
      units.push_back(*u);
    }
    return units;
  }

  // Resolves the functions named through another DIE of the unit; what is
  // left names a DIE of another unit. Unless `keep_names`, the unit's names
  // are let go then (on a vmlinux they are millions of declarations).
  static void resolve_local(UnitResult &r, bool keep_names) {
    auto left = std::remove_if(r.unresolved.begin(), r.unresolved.end(), [&](const auto &u) {
      r.functions[u.first].name = resolve_in(u.second, r.names, r.aliases);
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
    auto table = read_abbrevs(b, u.abbrev_offset, r.abbrev_table);
    if (!table) {
      r.error = std::move(table).error();
      return r;
    }
    const std::vector<Abbrev> &abbrev = *table;
    // Most DIEs are skipped: those whose attributes are all of fixed sizes
    // (a call site, a member, a variable's location list) in one step; of
    // the DIEs read, those of fixed sizes have the few attributes the scan
    // needs read where they lie, the others decoded one by one.
    std::vector<DiePlan> plans(abbrev.size());
    for (size_t code = 0; code < abbrev.size(); ++code) plans[code] = plan_of(abbrev[code], u);
    const uint8_t *base = bytes_of(b.info);
    Cursor c{base + u.dies, base + u.end};
    UnitState state;
    state.str_offsets_base = u.str_offsets_base;
    while (c.p < c.end && c.ok) {
      uint64_t die = c.p - base;
      uint64_t code = c.uleb();
      if (code == 0) continue;  // end of a sibling list
      if (code >= abbrev.size() || abbrev[code].tag == 0) {
        r.error = Error("DIE at " + hex(die) + " uses an abbreviation the unit does not define");
        return r;
      }
      const Abbrev &a = abbrev[code];
      // In C++ a method's out-of-line body names it through DW_AT_specification,
      // pointing into its class: classes are read, not skipped, there.
      bool skip_subtree = a.skippable && !(state.cxx && a.tag != TAG_enumeration_type && a.tag != TAG_array_type &&
                                           a.tag != TAG_subroutine_type);
      if (!a.interesting && !(skip_subtree && a.children) && !state.unit_die) {
        if (plans[code].size >= 0) c.skip(static_cast<uint64_t>(plans[code].size));
        else skip_attrs(c, a, u);
        continue;
      }
      DieAttrs d = plans[code].direct && !state.unit_die ? read_planned(c, plans[code], u, state)
                                                          : read_attrs(c, a, u, state);
      if (!c.ok) break;
      if (state.unit_die && !take_unit_die(r, d, u, state)) return r;
      if (skip_subtree) {
        if (d.sibling > die && d.sibling <= u.end) c.p = base + d.sibling;
        continue;
      }
      if (a.skippable) continue;  // a C++ class: its methods come next
      file_die(r, a, u.handle(die), d, u);
    }
    if (!c.ok && !r.error) r.error = Error("a DIE of the unit at " + hex(u.offset) + " runs past its end");
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

  // The unit DIE `d` read: its line table's files filed. False when the
  // unit's other DIEs are not to be scanned: a skeleton's DIEs are read from
  // its split unit; the copies of inlined functions some compilers leave in
  // a DWARF 4 one (clang's -fsplit-dwarf-inlining) would be found twice.
  static bool take_unit_die(UnitResult &r, const DieAttrs &d, const UnitHeader &u, UnitState &state) {
    // A split unit's line table is its skeleton's (in this file): its
    // files are filed under the skeleton, the unit SRC:ALN reads.
    if (state.stmt_list && !u.split)
      r.unit.files_known =
          line_table_files(*u.bytes, *state.stmt_list, state.str_offsets_base, r.unit.files, r.line_header);
    if (d.skeleton || u.skeleton) return false;
    state.unit_die = false;
    return true;
  }

  // How the DIEs of one abbreviation are read in one unit, when all their
  // attributes have fixed sizes (`direct`): where the attributes the scan
  // needs lie from the first attribute's start, so that no other is
  // decoded. What read_attrs() finds, found the same way: the last of
  // repeated attributes counts, DW_FORM_implicit_const ones count for nothing.
  struct DiePlan {
    int size = -1;  // of the DIE's attributes; -1: it differs from DIE to DIE
    bool direct = false;
    bool has_code = false;
    int name = -1, origin = -1, sibling = -1;  // offsets; -1: the DIEs have none
    uint16_t name_form = 0, origin_form = 0, sibling_form = 0;
  };
  static DiePlan plan_of(const Abbrev &a, const UnitHeader &u) {
    DiePlan plan;
    plan.size = fixed_attrs_size(a, u);
    if (plan.size < 0) return plan;
    int at = 0;
    for (const Attr &attr : a.attrs) {
      int size = fixed_form_size(attr.form, u);
      if (attr.form != FORM_implicit_const) {
        switch (attr.at) {
          case AT_name: plan.name = at, plan.name_form = attr.form; break;
          case AT_abstract_origin:
          case AT_specification: plan.origin = at, plan.origin_form = attr.form; break;
          case AT_sibling: plan.sibling = at, plan.sibling_form = attr.form; break;
          case AT_low_pc:
          case AT_ranges: plan.has_code = true; break;
          case AT_str_offsets_base: return plan;  // sets the unit's state: read one by one
          default: break;
        }
      }
      at += size;
    }
    plan.direct = true;
    return plan;
  }
  // read_attrs() for a DIE (not the unit's) of a `direct` plan.
  DieAttrs read_planned(Cursor &c, const DiePlan &plan, const UnitHeader &u, const UnitState &state) const {
    DieAttrs d;
    d.has_code = plan.has_code;
    auto at = [&](int offset) { return Cursor{c.p + offset, c.end}; };
    if (plan.size > c.end - c.p) {
      c.ok = false;
      return d;
    }
    if (plan.name >= 0) {
      Cursor v = at(plan.name);
      d.name = string_of(v, plan.name_form, u, state.str_offsets_base);
    }
    if (plan.origin >= 0) {
      Cursor v = at(plan.origin);
      d.origin = reference(v, plan.origin_form, u);
      d.has_origin = true;
    }
    if (plan.sibling >= 0) {
      Cursor v = at(plan.sibling);
      d.sibling = reference(v, plan.sibling_form, u);
    }
    c.p += plan.size;
    return d;
  }

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

  DwarfBytes b_;
};

// Names the functions that name a DIE of another unit (LTO: on python3.11,
// all 62,000), from every unit's names and aliases, found through one map by
// offset.
void resolve_across_units(std::vector<UnitResult> &results) {
  size_t count = 0;
  for (const UnitResult &r : results) count += r.names.size() + r.aliases.size();
  constexpr uint32_t kAlias = uint32_t{1} << 31;
  if (count >= kAlias) return;  // 2^31 DIEs: no file's DWARF this tool can hold in memory
  std::vector<std::string_view> names;
  std::vector<uint64_t> origins;
  names.reserve(count);
  OffsetMap where(count);  // a name's index in `names`, an alias's in `origins` with kAlias set
  for (const UnitResult &r : results) {
    for (const auto &[offset, name] : r.names)
      if (where.insert(offset, static_cast<uint32_t>(names.size())) == names.size()) names.push_back(name);
    for (const auto &[offset, origin] : r.aliases)
      if (where.insert(offset, kAlias | static_cast<uint32_t>(origins.size())) == (kAlias | origins.size()))
        origins.push_back(origin);
  }
  auto name_at = [&](uint64_t at) -> std::optional<std::string_view> {
    std::optional<uint32_t> found = where.find(at);
    if (!found || (*found & kAlias)) return std::nullopt;
    return names[*found];
  };
  auto origin_of = [&](uint64_t at) -> std::optional<uint64_t> {
    std::optional<uint32_t> found = where.find(at);
    if (!found || !(*found & kAlias)) return std::nullopt;
    return origins[*found & ~kAlias];
  };
  for (UnitResult &r : results)
    for (auto &[index, origin] : r.unresolved) r.functions[index].name = resolve(origin, name_at, origin_of);
}

// The named functions of every unit's result, and the units that hold code,
// in one ScanResult; each result's functions are let go as they are copied.
ScanResult gather(std::vector<UnitResult> &results, const std::vector<UnitHeader> &units) {
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
    if (units[i].has_code_dies && !units[i].split) all.units.push_back(std::move(r.unit));
  }
  return all;
}

Result<ScanResult> scan_units(const Scanner &scanner, const DwarfBytes &bytes, Result<std::vector<UnitHeader>> units,
                              unsigned threads, const std::function<void(std::string_view)> &done_with) {
  if (!units) return std::move(units).error();
  std::vector<UnitResult> results(units->size());

  // Units differ in size by orders of magnitude: threads take the next unit
  // from a shared counter rather than a fixed share. A unit's names are kept
  // (`kept`) once some unit has been seen to name functions through another
  // unit (DW_FORM_ref_addr, from LTO): only such files pay for keeping every
  // name (on a vmlinux they are millions of declarations), and an LTO file,
  // whose first units already refer out, is not scanned twice.
  std::atomic<bool> cross_unit{false};
  std::vector<char> kept(units->size(), 0);
  auto scan_some = [&](const std::vector<size_t> &which) -> std::optional<Error> {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t n; (n = next.fetch_add(1)) < which.size();) {
        size_t i = which[n];
        const UnitHeader &u = (*units)[i];
        kept[i] = cross_unit.load(std::memory_order_relaxed);
        results[i] = scanner.scan(u);
        Scanner::resolve_local(results[i], kept[i]);
        if (!results[i].unresolved.empty()) cross_unit.store(true, std::memory_order_relaxed);
        if (done_with && !u.split) {  // a split unit's bytes are another file's
          done_with(bytes.info.substr(u.offset, u.end - u.offset));
          for (std::string_view read : {results[i].line_header, results[i].abbrev_table})
            if (!read.empty()) done_with(read);
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::min<size_t>(std::max(1u, threads), which.size()); ++t) pool.emplace_back(work);
    work();
    for (std::thread &t : pool) t.join();
    for (size_t i : which)
      if (results[i].error) return std::move(*results[i].error);
    return std::nullopt;
  };
  std::vector<size_t> every(units->size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  if (auto error = scan_some(every)) return std::move(*error);
  if (cross_unit) {
    // References into other units are resolved against every unit's names:
    // the units scanned before a reference out was seen are scanned again,
    // keeping theirs.
    std::vector<size_t> again;
    for (size_t i = 0; i < kept.size(); ++i)
      if (!kept[i]) again.push_back(i);
    if (auto error = scan_some(again)) return std::move(*error);
    resolve_across_units(results);
  }
  return gather(results, *units);
}

}  // namespace

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