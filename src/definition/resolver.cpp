// The Resolver (resolver.h): a probe's arguments, C expressions over the
// DWARF, resolved into the kernel's fetch-args and the decoder's fixups.
#include "src/definition/resolver.h"

#include <climits>

#include <algorithm>

#include "src/spec/raw_fetch.h"
#include "util/strings.h"

namespace kpp {

namespace arg_resolution {

namespace {

// A bare :s, :u or :x takes its width from the value's type, as perf does
// (the kernel knows only sized types: s32, u64, x16...).
bool is_bare_integer_type(const std::string &type) { return type == "s" || type == "u" || type == "x"; }

Result<std::string> sized_type(const std::string &type, uint64_t bytes, const std::string &expr) {
  if (!is_bare_integer_type(type)) return type;
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    return Error("':" + type + "' needs a 1, 2, 4 or 8 byte value; '" + expr + "' is " + std::to_string(bytes) +
                 " bytes long");
  return type + std::to_string(bytes * 8);
}

// The kernel's MAX_ARRAY_LEN: the most elements one array fetch takes (the
// bytes of a counted string; a fixed array's elements), "Array number is
// too big" beyond it.
constexpr unsigned max_array_len = 64;

// $retval of a floating-point type: the return register does not hold it.
Error float_result(const ArgSite &site, const TypeInfo &returned) {
  const arch::Registers &regs = site.formatter.regs;
  // x86_64 returns long double on the x87 stack, the rest in xmm0.
  std::string where = returned.size > 8 && regs.name == "x86_64" ? "st0" : std::string(regs.float_return_reg);
  // The fast scalar description has no name: C's for its size.
  std::string type = !returned.name.empty() ? returned.name
                     : returned.size == 4   ? "float"
                     : returned.size == 8   ? "double"
                                            : "long double";
  return Error("'$retval' of " + site.function.name + " is " + type + ", returned in " +
                   (where.empty() ? std::string("a floating-point register") : where) +
                   ", which kernel fetch-args cannot read ($retval is the integer return register " +
                   std::string(regs.return_reg) + ")",
               "read the value where the function stores it, or in its caller after the call");
}

Error needs_dwarf(const ArgSite &site, const ProbeArg &arg) {
  return Error("'" + arg.text + "' is read by name, which needs DWARF: " + site.debug.provenance().dwarf_note(),
               "use the kernel's fetch args (%di, +8(%sp), $stack1, $argN at an entry, @SYM), or install the "
               "program's debug symbols");
}

bool needs_entry(const Place &place) { return dwarf::needs_entry_values(dwarf::value_of(place)); }

}  // namespace

Resolver::Resolver(const ProbeSpec &spec, const ArgSite &site) : spec_(spec), site_(site) {}

Result<std::vector<FetchArg>> Resolver::run() {
  std::vector<FetchArg> out;
  for (size_t i = 0; i < spec_.args.size(); ++i) {
    const ProbeArg &arg = spec_.args[i];
    auto fetched = resolve(arg, i + 1);
    if (!fetched) return std::move(fetched).error().at(spec_.text, arg.span);
    for (FetchArg &f : *fetched) out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<FetchArg>> Resolver::resolve(const ProbeArg &arg, size_t position) {
  std::string name = arg.name.empty() ? default_arg_name(arg) : arg.name;
  if (name.empty()) name = "arg" + std::to_string(position);
  switch (arg.kind) {
    case ProbeArg::Kind::Retval:
      return retval(arg, name);
    case ProbeArg::Kind::Comm:
      return std::vector<FetchArg>{{name, "$comm", arg.type.empty() ? "string" : arg.type}};
    case ProbeArg::Kind::Register:
    {
      // A register is read whole: a bare type is the machine word's.
      auto sized = sized_type(arg.type, 8, "%" + arg.base);
      if (!sized) return std::move(sized).error();
      return std::vector<FetchArg>{{name, "%" + arg.base, *sized}};
    }
    case ProbeArg::Kind::Raw: {
      auto fetch = raw_fetch(arg);
      if (!fetch) return std::move(fetch).error();
      return std::vector<FetchArg>{{name, *fetch, arg.type}};
    }
    case ProbeArg::Kind::Params:
    case ProbeArg::Kind::Vars:
      if (!site_.debug.has_dwarf()) return needs_dwarf(site_, arg);
      return expand(arg.kind == ProbeArg::Kind::Params);
    case ProbeArg::Kind::Variable:
    case ProbeArg::Kind::Symbol:
      break;
  }
  return named_value(arg, name);
}

Result<std::vector<FetchArg>> Resolver::retval(const ProbeArg &arg, const std::string &name) {
  if (!site_.is_return)
    return Error("$retval is only available in a return probe", "probe '" + site_.function.name + "%return'");
  if (site_.at_return_instruction) return go_retval(arg, name);
  // Without DWARF there is no type to give it: the kernel's default (u64), as perf probe leaves it.
  if (!site_.debug.has_dwarf()) return std::vector<FetchArg>{{name, "$retval", arg.type}};
  // A scalar from the raw DWARF of the function's unit when it can
  // (a return probe then reads no other unit), else through LLVM.
  auto scalar = site_.debug.scalar_return_type(site_.function);
  dwarf::TypeRef ref = scalar ? dwarf::TypeRef{} : site_.debug.return_type(site_.function);
  TypeInfo returned = scalar ? *scalar : site_.debug.describe(ref);
  // $retval is the integer return register: a floating-point result is
  // elsewhere, and any type given would show that register's bits.
  if (returned.kind == TypeInfo::Kind::Float) return float_result(site_, returned);
  if (!arg.type.empty() && !is_bare_integer_type(arg.type)) return std::vector<FetchArg>{{name, "$retval", arg.type}};
  if (!arg.type.empty()) {
    auto sized = sized_type(arg.type, returned.size, "$retval");
    if (!sized) return std::move(sized).error();
    return std::vector<FetchArg>{{name, "$retval", *sized}};
  }
  auto type = default_type(returned, ref, std::nullopt, "$retval");
  if (!type) return std::move(type).error();
  FetchArg result{name, "$retval", *type};
  add_display(returned, ref, site_.names_enums, result);  // an enum's names only when its type is known (not the fast scalar path)
  return std::vector<FetchArg>{std::move(result)};
}

Result<std::vector<FetchArg>> Resolver::go_retval(const ProbeArg &arg, const std::string &name) {
  if (!site_.debug.has_dwarf()) {
    auto sized = sized_type(arg.type, 8, "$retval");
    if (!sized) return std::move(sized).error();
    return std::vector<FetchArg>{{name, std::string(site_.formatter.regs.return_reg), *sized}};
  }
  std::vector<dwarf::Variable> results = site_.debug.go_results(site_.function);
  if (results.empty())
    return Error(site_.function.name + " returns nothing: it has no $retval", "probe it without $retval");
  std::vector<FetchArg> terms;
  auto value = result_value(results.front(), "$retval");
  if (!value) return std::move(value).error();
  auto fetch = typed_fetch(*value, arg.type, terms);
  if (!fetch) return std::move(fetch).error();
  return named_fields(name, std::move(*fetch), std::move(terms));
}

Result<Value> Resolver::result_value(const dwarf::Variable &result, const std::string &expr) {
  if (!result.place)
    return Error("cannot read the result '" + result.name + "' of " + site_.function.name + ": " + result.unavailable_why);
  return Value{*result.place, result.type, std::nullopt, expr};
}

Result<Value> Resolver::go_result(const std::string &name) {
  std::vector<dwarf::Variable> results = site_.debug.go_results(site_.function);
  std::vector<std::string> names;
  for (const dwarf::Variable &r : results) {
    if (r.name == name) return result_value(r, name);
    names.push_back(r.name);
  }
  return Error("a return probe reads the results of " + site_.function.name + " and $retval, not '" + name + "'",
               names.empty() ? "it has no results" : "its results: " + join(names));
}

Result<std::vector<FetchArg>> Resolver::named_value(const ProbeArg &arg, const std::string &name) {
  if (!site_.debug.has_dwarf()) {
    if (arg.kind == ProbeArg::Kind::Variable || !arg.chain.empty()) return needs_dwarf(site_, arg);
    // @SYM: the symbol table has its address, not its type.
    auto fetch = symbol_fetch(arg.base, 0);
    if (!fetch) return std::move(fetch).error();
    return std::vector<FetchArg>{{name, *fetch, arg.type}};
  }
  // perf's words; a Go function's results are read at its returns (go_result).
  if (site_.is_return && !site_.at_return_instruction)
    return Error("You can't specify local variable for kretprobe.",
                 "a %return probe sees only $retval, registers and globals; probe the entry for locals");
  auto value = site_.at_return_instruction && arg.kind == ProbeArg::Kind::Variable ? go_result(arg.base)
                                                                                    : lookup(arg.base);
  if (!value) return std::move(value).error();
  for (const ArgAccess &step : arg.chain) {
    auto next = access(*value, step);
    if (!next) return std::move(next).error();
    value = std::move(next);
  }
  std::vector<FetchArg> terms;
  auto fetch = typed_fetch(*value, arg.type, terms);
  if (!fetch) return std::move(fetch).error();
  auto fields = named_fields(name, std::move(*fetch), std::move(terms));
  if (!fields) return Error(fields.error().message, "name the argument yourself: 'N=" + arg.base + "...'");
  return fields;
}

Result<std::string> Resolver::raw_fetch(const ProbeArg &arg) {
  auto fetch = parse_raw_fetch(arg.base);
  if (!fetch) return std::move(fetch).error();
  std::string base;
  switch (fetch->base) {
    case RawFetch::Base::Register: base = "%" + fetch->name; break;
    case RawFetch::Base::Stack: base = "$stack"; break;
    case RawFetch::Base::StackEntry: base = "$stack" + std::to_string(fetch->number); break;
    case RawFetch::Base::Address: base = "@" + hex(fetch->number); break;
    case RawFetch::Base::Retval:
      if (!site_.is_return)
        return Error("$retval is only available in a return probe", "probe '" + site_.function.name + "%return'");
      // At a return instruction (Go): the first result register, as above.
      base = site_.at_return_instruction ? std::string(site_.formatter.regs.return_reg) : "$retval";
      break;
    case RawFetch::Base::Arg: {
      auto argument = argument_fetch(fetch->number);
      if (!argument) return std::move(argument).error();
      base = *argument;
      break;
    }
    case RawFetch::Base::Symbol: {
      auto symbol = symbol_fetch(fetch->name, fetch->offset);
      if (!symbol) return std::move(symbol).error();
      base = *symbol;
      break;
    }
  }
  return wrap_raw_loads(*fetch, base);
}

Result<std::string> Resolver::argument_fetch(uint64_t n) {
  std::string text = "$arg" + std::to_string(n);
  if (!site_.formatter.uprobe) return text;
  if (site_.is_return || site_.pc != site_.function.entry)
    return Error(text + " is an argument as the function receives it: only at its entry (" + site_.function.name +
                     " or " + site_.function.name + "+0) can " + text + " be read",
                 "name the parameter (with DWARF), or probe the entry");
  const auto &registers = site_.formatter.regs.arg_regs;
  if (n > registers.size())
    return Error(text + ": " + std::string(site_.formatter.regs.name) + " passes the first " +
                 std::to_string(registers.size()) + " arguments in registers, and uprobes read $argN from them",
                 "read a stack argument with +OFF($stack) or $stackN");
  return std::string(registers[n - 1]);
}

Result<std::string> Resolver::symbol_fetch(const std::string &symbol, int64_t offset) {
  auto found = site_.debug.elf().symbol_addresses({symbol});
  if (found.empty()) {
    if (!site_.formatter.uprobe)
      return "@" + symbol + (offset ? (offset < 0 ? "-" : "+") + std::to_string(offset < 0 ? -offset : offset) : "");
    return Error("no symbol '" + symbol + "' in '" + site_.debug.elf().path() + "'");
  }
  uint64_t address = found.begin()->second + static_cast<uint64_t>(offset);
  return site_.formatter.format(dwarf::value_of(Place::at_address(address)));
}

Result<Value> Resolver::lookup(const std::string &name) {
  if (std::optional<dwarf::Variable> v = site_.debug.variable_at(site_.function, site_.pc, name)) {
    if (!v->place)
      return Error("cannot read '" + name + "' at " + site_.where + ": " + v->unavailable_why,
                   "see where it can be read with 'kprobe-probe -V " + site_.function.name + "'");
    if (auto ready = prologue_pending(*v))
      return Error("cannot read '" + name + "' at " + site_.where +
                       ": it lives in a frame slot that the function's prologue fills (DW_OP_fbreg), which holds "
                       "an older value until " + site_.function.name + "+" + hex(*ready - site_.function.entry),
                   "probe '" + site_.function.name + "' (placed past the prologue, where gdb breaks) or a line");
    return Value{*v->place, v->type, std::nullopt, name};
  }
  // Not there: name what is, for the message.
  if (variables_.empty()) variables_ = site_.debug.variables_at(site_.function, site_.pc);
  std::vector<std::string> names;
  for (const dwarf::Variable &v : variables_) names.push_back(v.name);
  return Error("no variable '" + name + "' at " + site_.where,
               names.empty() ? "there are no variables in scope here" : "variables here: " + join(names));
}

std::optional<uint64_t> Resolver::prologue_pending(const dwarf::Variable &v) {
  if (!v.prologue_slot || site_.function.inlined || site_.pc < site_.function.entry) return std::nullopt;
  uint64_t ready = site_.debug.probe_entry(site_.function);
  if (site_.pc >= ready) return std::nullopt;
  return ready;
}

Result<std::vector<FetchArg>> Resolver::expand(bool params_only) {
  if (site_.is_return) return Error("a return probe cannot read variables; use $retval");
  if (variables_.empty()) variables_ = site_.debug.variables_at(site_.function, site_.pc);
  std::vector<FetchArg> out;
  for (const dwarf::Variable &v : variables_) {
    if (params_only && !v.is_parameter) continue;
    if (!v.place || prologue_pending(v)) continue;  // perf skips what cannot be read here, too
    if (v.place->kind == Place::Kind::Memory && !v.place->base) continue;  // globals are not $vars
    std::vector<FetchArg> terms;
    auto fetch = typed_fetch(Value{*v.place, v.type, std::nullopt, v.name}, "", terms);
    if (!fetch) continue;  // structs and the like: nothing to show as one value
    auto fields = named_fields(v.name, std::move(*fetch), std::move(terms));
    if (!fields) continue;
    for (FetchArg &f : *fields) out.push_back(std::move(f));
  }
  return out;
}

Result<Value> Resolver::access(const Value &value, const ArgAccess &step) {
  TypeInfo t = site_.debug.describe(value.type);
  if (step.kind == ArgAccess::Kind::Index) return element_of(value, t, step.index);
  // A smart pointer's '->' is its raw pointer's, as gdb's xmethods read it.
  if (step.kind == ArgAccess::Kind::Arrow)
    if (auto known = known_object(value, t))
      if (const auto *member = std::get_if<InnerMember>(&known->what); member && member->kind == InnerMember::Kind::Pointer) {
        auto raw = inner_value(value, known->object, *member);
        if (!raw) return std::move(raw).error();
        return access(*raw, step);
      }
  return member_of(value, t, step);
}

Result<Value> Resolver::element_of(const Value &value, const TypeInfo &t, int64_t index) {
  Value next = value;
  next.bitfield.reset();
  next.expr += "[" + std::to_string(index) + "]";
  TypeInfo element = site_.debug.describe(t.target);
  // An offset that overflows would wrap into another object; offsets are
  // bounded to 32 bits so that the additions after this one stay exact.
  int64_t offset = 0;
  if (__builtin_mul_overflow(index, static_cast<int64_t>(element.size), &offset) || offset > INT32_MAX ||
      offset < INT32_MIN)
    return Error("the index in '" + next.expr + "' is too large: its byte offset (" + std::to_string(index) + " x " +
                     std::to_string(element.size) + " bytes) does not fit in 32 bits",
                 "index within the array");
  if (t.kind == TypeInfo::Kind::Pointer) {
    auto target = pointee(value, t.size, offset);
    if (!target) return std::move(target).error();
    next.place = *target;
  } else if (t.kind == TypeInfo::Kind::Array) {
    auto p = dwarf::offset_into(value.place, offset);
    if (!p) return Error("'" + value.expr + "' is held in a register at " + site_.where + "; it cannot be indexed");
    next.place = *p;
  } else {
    return Error("'" + value.expr + "' is " + t.name + ", not an array or pointer");
  }
  next.type = t.target;
  return next;
}

Result<Value> Resolver::member_of(const Value &value, const TypeInfo &t, const ArgAccess &step) {
  Value next = value;
  next.bitfield.reset();
  // A C++ reference is a pointer that '.' goes through, as in the source.
  bool arrow = step.kind == ArgAccess::Kind::Arrow || (t.kind == TypeInfo::Kind::Pointer && t.is_reference);
  next.expr += (arrow ? "->" : ".") + step.member;
  dwarf::TypeRef aggregate = value.type;
  if (arrow) {
    if (t.kind != TypeInfo::Kind::Pointer)
      return Error("'" + value.expr + "' is " + t.name + ", not a pointer", "use '.' for a member of a struct");
    aggregate = t.target;
    auto target = pointee(value, t.size, 0);
    if (!target) return std::move(target).error();
    next.place = *target;
  } else if (t.kind == TypeInfo::Kind::Pointer) {
    return Error("'" + value.expr + "' is a pointer (" + t.name + ")", "use '->" + step.member + "'");
  }
  TypeInfo agg = site_.debug.describe(aggregate);
  if (agg.kind != TypeInfo::Kind::Struct && agg.kind != TypeInfo::Kind::Union)
    return Error("'" + value.expr + "' is " + t.name + ", which has no members");
  auto m = site_.debug.member(aggregate, step.member);
  if (!m)
    return Error(agg.name + " has no member '" + step.member + "'",
                 "its members: " + join(site_.debug.member_names(aggregate)));
  auto p = dwarf::offset_into(next.place, m->offset);
  if (!p) return Error("'" + value.expr + "' is held in a register at " + site_.where + "; its members cannot be read");
  next.place = *p;
  next.type = m->type;
  if (m->bit_size) {
    next.bitfield = m;
    // A packed struct's bitfield may run past its type's size from the
    // member's offset (int b:30 from bit 8): the kernel refuses b30@8/32,
    // so it is read from the byte it starts in, where it fits.
    uint64_t container = site_.debug.describe(m->type).size * 8;
    if (m->bit_offset + *m->bit_size > container && next.place.kind == Place::Kind::Memory)
      if (auto from = dwarf::offset_into(next.place, m->bit_offset / 8)) {
        next.place = *from;
        next.bitfield->bit_offset = m->bit_offset % 8;
      }
    if (next.bitfield->bit_offset + *m->bit_size > 64)  // default_type reads 8 bytes for one that still runs past
      return Error("'" + next.expr + "' is a bitfield of " + std::to_string(*m->bit_size) +
                   " bits that spans more than 64 from the byte it starts in, which one kernel bitfield fetch cannot read");
  }
  return next;
}

Result<std::string> Resolver::fetch_text(const Value &value, const dwarf::FetchExpr &expr) {
  auto text = site_.formatter.format(expr);
  if (!text) return std::move(text).error().context("cannot read '" + value.expr + "' at " + site_.where + ": ");
  return text;
}

Result<Place> Resolver::whole(const Value &value, uint64_t size) {
  if (auto p = dwarf::whole(value.place, size)) return *p;
  return Error("'" + value.expr + "' is split into pieces at " + site_.where +
               " and no single piece holds its " + std::to_string(size) + " bytes",
               "read one of its members, each lives in one piece");
}

Result<Place> Resolver::pointee(const Value &value, uint64_t size, int64_t offset) {
  auto pointer = whole(value, size);
  if (!pointer) return std::move(pointer).error();
  if (auto target = dwarf::pointee(*pointer, offset)) return *target;
  return Error("'" + value.expr + "' is computed by our decoder at " + site_.where +
               " (some of a register's bits, or arithmetic), which kernel fetch-args cannot load through");
}

Result<std::string> Resolver::default_type(const TypeInfo &t, dwarf::TypeRef ref,
                                 const std::optional<dwarf::Member> &bitfield, const std::string &expr) {
  if (bitfield) {
    // The bytes read hold it all: its type's size, or 8 (packed: member_of).
    uint64_t container = bitfield->bit_offset + *bitfield->bit_size > t.size * 8 ? 64 : t.size * 8;
    return "b" + std::to_string(*bitfield->bit_size) + "@" + std::to_string(bitfield->bit_offset) + "/" +
           std::to_string(container);
  }
  switch (t.kind) {
    case TypeInfo::Kind::Integer:
    case TypeInfo::Kind::Char:
    case TypeInfo::Kind::Bool:
    case TypeInfo::Kind::Enum:
      if (t.size == 1 || t.size == 2 || t.size == 4 || t.size == 8)
        return std::string(t.is_signed ? "s" : "u") + std::to_string(t.size * 8);
      return Error("'" + expr + "' is " + std::to_string(t.size) + " bytes long; the kernel fetches 1, 2, 4 or 8");
    case TypeInfo::Kind::Float:
      // 4 and 8 bytes are shown as numbers (scalar_fetch); an x87 long
      // double's 10 bytes are not one value the kernel fetches.
      if (t.size != 4 && t.size != 8)
        return Error("'" + expr + "' is " + t.name + " (" + std::to_string(t.size) +
                     " bytes), which the kernel cannot fetch as one value");
      return "x" + std::to_string(t.size * 8);
    case TypeInfo::Kind::Pointer:
      return "x" + std::to_string(t.size * 8);
    case TypeInfo::Kind::Struct:
    case TypeInfo::Kind::Union:
      return Error("'" + expr + "' is " + t.name + "; name one of its members",
                   "its members: " + join(site_.debug.member_names(ref)));
    case TypeInfo::Kind::Void:
      return Error("'" + expr + "' has no value (void)");
    default:
      return Error("'" + expr + "' is " + t.name + ", which has no value the kernel can fetch");
  }
}

Result<FetchArg> Resolver::typed_fetch(const Value &value, const std::string &given_type,
                                       std::vector<FetchArg> &terms) {
  TypeInfo t = site_.debug.describe(value.type);
  auto sized = sized_type(given_type, t.size, value.expr);
  if (!sized) return std::move(sized).error();
  const std::string &user_type = *sized;
  bool wants_string = user_type == "string" || user_type == "ustring";
  bool char_array = t.kind == TypeInfo::Kind::Array &&
                    site_.debug.describe(t.target).kind == TypeInfo::Kind::Char;
  if (value.place.kind == Place::Kind::Constant && value.place.text)
    return constant_string_fetch(value, t, user_type, wants_string || char_array);
  if (wants_string) return string_fetch(value, t, user_type);
  if (user_type.empty() && (t.kind == TypeInfo::Kind::Struct || t.is_reference))
    if (auto known = known_object(value, t)) return known_fetch(value, *known, terms);
  if (t.kind == TypeInfo::Kind::Array && user_type.empty()) return array_fetch(value, t);
  return scalar_fetch(value, t, user_type, terms);
}

std::optional<KnownValue> Resolver::known_object(const Value &value, const TypeInfo &t) {
  Value object = value;
  if (t.is_reference) {
    auto target = pointee(value, t.size, 0);
    if (!target) return std::nullopt;
    object.place = *target;
    object.type = t.target;
  } else if (t.kind != TypeInfo::Kind::Struct) {
    return std::nullopt;
  }
  auto what = recognise(site_.debug, object.type);
  if (!what) return std::nullopt;
  return KnownValue{std::move(object), std::move(*what)};
}

Result<FetchArg> Resolver::known_fetch(const Value &value, const KnownValue &known, std::vector<FetchArg> &terms) {
  if (const auto *counted = std::get_if<CountedLayout>(&known.what)) return counted_fields(known.object, *counted, terms);
  if (const auto *optional = std::get_if<Result<OptionalLayout>>(&known.what))
    return optional_fields(value, known.object, *optional, terms);
  const InnerMember &member = std::get<InnerMember>(known.what);
  auto inner = inner_value(value, known.object, member);
  if (!inner) return std::move(inner).error();
  TypeInfo t = site_.debug.describe(inner->type);
  // std::array is its elements; a smart pointer is its pointer, as gdb shows get().
  if (member.kind == InnerMember::Kind::Elements) return array_fetch(*inner, t);
  return scalar_fetch(*inner, t, "", terms);
}

Result<Value> Resolver::inner_value(const Value &value, const Value &object, const InnerMember &member) {
  bool elements = member.kind == InnerMember::Kind::Elements;
  auto place = dwarf::offset_into(object.place, member.offset);
  if (!place)
    return Error("'" + value.expr + "' is held in a register at " + site_.where + "; its " +
                     (elements ? "elements" : "pointer") + " cannot be read",
                 elements ? "read one element: " + value.expr + "[0]" : "");
  return Value{*place, member.type, std::nullopt, value.expr + (elements ? "._M_elems" : ".get()")};
}

Result<FetchArg> Resolver::optional_fields(const Value &value, const Value &object,
                                           const Result<OptionalLayout> &layout, std::vector<FetchArg> &terms) {
  auto refuse = [&](const std::string &why) {
    return Error("cannot read '" + value.expr + "' at " + site_.where + ": " + why);
  };
  if (!layout) return refuse(layout.error().message);
  const OptionalLayout &l = *layout;
  // The decoder shows one level of optional: an empty inner one would look
  // like an empty outer one (gdb: "containing std::optional<int> [no contained value]").
  if (auto inner = recognise(site_.debug, l.value_type); inner && std::holds_alternative<Result<OptionalLayout>>(*inner))
    return refuse("it is an optional value that holds another optional value, and kprobe-probe shows one level of them "
                  "(an empty inner one would look like an empty outer one)");
  auto contained = dwarf::offset_into(object.place, l.value_offset);
  auto flag = dwarf::offset_into(object.place, l.flag_offset);
  if (!contained || !flag) return refuse("its value or the flag that says it is there was optimized out");
  bool rust = l.flavor == OptionalLayout::Flavor::Rust;
  auto fetched = typed_fetch(Value{*contained, l.value_type, std::nullopt, value.expr + (rust ? ".0" : ".value()")},
                             "", terms);
  if (!fetched) return std::move(fetched).error();
  auto term = flag_term(*flag, l.flag_size, terms.size() + 1, fetched->at_entry);
  if (!term) return refuse(std::move(term).error().message);
  terms.push_back(std::move(*term));
  std::vector<ValueStep> test{{ValueOp::PushTerm, terms.size()}};
  if (l.present_when_equal || l.flag_value != 0)
    test.insert(test.end(), {{ValueOp::PushConst, l.flag_value}, {l.present_when_equal ? ValueOp::Eq : ValueOp::Ne}});
  test.push_back({ValueOp::Present, static_cast<uint64_t>(l.flavor)});
  fetched->fixup.steps.insert(fetched->fixup.steps.begin(), test.begin(), test.end());
  return fetched;
}

Result<FetchArg> Resolver::flag_term(const Place &place, uint64_t size, size_t index, bool at_entry) {
  dwarf::FetchExpr expr = site_.formatter.lower(dwarf::value_of(place));
  if (!expr.terms.empty() || !expr.program.empty() || expr.post_add || needs_entry(place) != at_entry)
    return Error("the flag that says whether it is there is computed, which kernel fetch-args cannot read as one value");
  auto text = site_.formatter.format(expr);
  if (!text) return std::move(text).error();
  unsigned width = static_cast<unsigned>(std::min<uint64_t>(size * 8, expr.bit_width));
  std::string type = !expr.has_bits() || (expr.bit_offset == 0 && width == size * 8 && width < 64)
                         ? "u" + std::to_string(size * 8)
                         : "b" + std::to_string(width) + "@" + std::to_string(expr.bit_offset) + "/64";
  FetchArg term{"", *text, type, at_entry};
  term.fixup.term = static_cast<unsigned>(index);
  return term;
}

Result<Value> Resolver::follow(Value value, const std::vector<std::string> &path) {
  for (const std::string &member : path) {
    auto next = access(value, ArgAccess{ArgAccess::Kind::Dot, member, 0});
    if (!next) return std::move(next).error();
    value = std::move(*next);
  }
  return value;
}

Result<FetchArg> Resolver::counted_term(const Value &value, unsigned index, bool at_entry) {
  TypeInfo t = site_.debug.describe(value.type);
  auto place = whole(value, t.size);
  if (!place) return std::move(place).error();
  dwarf::FetchExpr expr = site_.formatter.lower(dwarf::value_of(*place));
  if (expr.decoder_computed() || (t.size != 4 && t.size != 8) || needs_entry(*place) != at_entry)
    return Error("cannot read '" + value.expr + "' at " + site_.where + " as one value the kernel fetches");
  auto text = fetch_text(value, expr);
  if (!text) return std::move(text).error();
  FetchArg term{"", *text, "u" + std::to_string(t.size * 8), at_entry};
  term.fixup.term = index;
  return term;
}

Result<FetchArg> Resolver::counted_fields(const Value &value, const CountedLayout &layout,
                                          std::vector<FetchArg> &terms) {
  auto data = follow(value, layout.data);
  if (!data) return std::move(data).error();
  TypeInfo pointer = site_.debug.describe(data->type);
  TypeInfo element = site_.debug.describe(pointer.target);
  auto first = pointee(*data, pointer.size, 0);
  if (!first) return std::move(first).error();
  bool text = layout.shape == CountedLayout::Shape::Text;
  std::string element_type = "u8";
  if (!text) {
    auto type = default_type(element, pointer.target, std::nullopt, value.expr + "[0]");
    if (!type) return std::move(type).error().context("'" + value.expr + "' is " + layout.what + ": ");
    element_type = element.kind == TypeInfo::Kind::Float ? "u" + std::to_string(element.size * 8) : *type;
  }
  unsigned count = text ? max_array_len : site_.max_items;
  auto fetch = fetch_text(value, dwarf::value_of(*first));
  if (!fetch) return std::move(fetch).error();
  bool at_entry = needs_entry(*first);
  FetchArg primary{"", *fetch, element_type + "[" + std::to_string(count) + "]", at_entry};
  std::vector<ValueStep> &steps = primary.fixup.steps;
  const std::vector<std::string> &ends = layout.length.empty() ? layout.end : layout.length;
  auto end = follow(value, ends);
  if (!end) return std::move(end).error();
  auto term = counted_term(*end, 1, at_entry);
  if (!term) return std::move(term).error();
  terms.push_back(std::move(*term));
  steps.push_back({ValueOp::PushTerm, 1});
  if (layout.length.empty()) {
    // std::vector: (finish - start) / sizeof(T) elements.
    auto start = counted_term(*data, 2, at_entry);
    if (!start) return std::move(start).error();
    terms.push_back(std::move(*start));
    steps.insert(steps.end(), {{ValueOp::PushTerm, 2}, {ValueOp::Sub}, {ValueOp::PushConst, element.size},
                               {ValueOp::Div}});
  }
  if (!text && element.kind == TypeInfo::Kind::Float) steps.push_back({ValueOp::ShowFloat, element.size});
  steps.push_back({text ? ValueOp::ShowText : ValueOp::ShowItems});
  return primary;
}

Result<FetchArg> Resolver::constant_string_fetch(const Value &value, const TypeInfo &t, const std::string &user_type,
                                       bool as_string) {
  const std::string &text = *value.place.text;
  if (!as_string) return Error("'" + value.expr + "' is a constant string, not " + t.name);
  // uprobes read strings with user-memory accessors, which cannot read
  // the kernel's copy of an immediate (the event would show ""): read
  // the program's own copy of the literal, when it has one.
  if (site_.formatter.uprobe) {
    if (auto address = site_.debug.elf().find_read_only_bytes(std::string_view(text.c_str(), text.size() + 1))) {
      auto fetch = fetch_text(value, dwarf::value_of(Place::at_address(*address)));
      if (!fetch) return std::move(fetch).error();
      return FetchArg{"", *fetch, user_type.empty() ? "string" : user_type, false};
    }
    return Error("'" + value.expr + "' is the constant \"" + text + "\" (it has no place in memory, and the program holds no copy of it), and uprobes cannot carry a constant string");
  }
  if (text.find_first_of(" \t\n\"\\") != std::string::npos)
    return Error("'" + value.expr + "' is the constant \"" + text + "\", which has characters a kernel immediate cannot hold");
  return FetchArg{"", "\\\"" + text + "\"", "string", false};
}

Result<FetchArg> Resolver::string_fetch(const Value &value, const TypeInfo &t, const std::string &user_type) {
  Place first_char;
  if (t.kind == TypeInfo::Kind::Pointer) {
    auto target = pointee(value, t.size, 0);
    if (!target) return std::move(target).error();
    first_char = *target;
  }
  else if (t.kind == TypeInfo::Kind::Array && value.place.kind == Place::Kind::Memory) first_char = value.place;
  else
    return Error("':" + (user_type.empty() ? std::string("string") : user_type) + "' needs a char pointer or array; '" +
                 value.expr + "' is " + t.name);
  auto fetch = fetch_text(value, dwarf::value_of(first_char));
  if (!fetch) return std::move(fetch).error();
  return FetchArg{"", *fetch, user_type.empty() ? "string" : user_type, needs_entry(first_char)};
}

Result<FetchArg> Resolver::array_fetch(const Value &value, const TypeInfo &t) {
  TypeInfo element = site_.debug.describe(t.target);
  auto element_type = default_type(element, t.target, std::nullopt, value.expr + "[0]");
  if (!element_type) return std::move(element_type).error();
  if (!t.count) return Error("'" + value.expr + "' is an array of unknown size", "fetch one element: " + value.expr + "[0]");
  if (value.place.kind != Place::Kind::Memory)
    return Error("'" + value.expr + "' is not in memory at " + site_.where +
                     " (it is held in registers), and the kernel fetches a whole array from memory only",
                 "fetch one element: " + value.expr + "[0]");
  bool is_float = element.kind == TypeInfo::Kind::Float;
  // char, signed or unsigned char: text, as gdb shows it, of the array's own
  // bytes (the kernel's string fetch would read on past them to a NUL).
  bool is_text = element.kind == TypeInfo::Kind::Char && element.size == 1;
  if (is_float && element.size != 4 && element.size != 8)
    return Error("'" + value.expr + "' is an array of " + element.name + ", whose elements kprobe-probe reads one at a time",
                 "fetch one element: " + value.expr + "[0]");
  auto fetch = fetch_text(value, dwarf::value_of(value.place));
  if (!fetch) return std::move(fetch).error();
  // The kernel fetches at most max_array_len elements: a longer array is cut
  // as a sequence is, its first --max-items elements and its length.
  // Text is cut as a counted string is, at its first 64 bytes.
  uint64_t count = *t.count;
  uint64_t fetched = count <= max_array_len ? count : is_text ? max_array_len : site_.max_items;
  // Floating-point elements: their bits fetched, made numbers by the decoder.
  std::string type = is_float ? "u" + std::to_string(element.size * 8) : is_text ? "u8" : *element_type;
  FetchArg arg{"", *fetch, type + "[" + std::to_string(fetched) + "]", needs_entry(value.place)};
  if (!is_float && !is_text && fetched == count) return arg;  // the kernel's own {a,b,c}
  // Text or a sequence of `count` elements for the decoder (l; g<size>, z),
  // which shows the cut beside the fetched ones.
  arg.fixup.steps.push_back({ValueOp::PushConst, count});
  if (is_float) arg.fixup.steps.push_back({ValueOp::ShowFloat, element.size});
  arg.fixup.steps.push_back({is_text ? ValueOp::ShowCharArray : ValueOp::ShowItems});
  return arg;
}

Result<FetchArg> Resolver::scalar_fetch(const Value &value, const TypeInfo &t, const std::string &user_type,
                              std::vector<FetchArg> &terms) {
  if (t.kind == TypeInfo::Kind::Float && t.size > 8 && user_type.empty()) return x87_fetch(value, t);
  auto place = whole(value, t.size);
  if (!place) return std::move(place).error();
  dwarf::FetchExpr expr = site_.formatter.lower(dwarf::value_of(*place));
  std::string type = user_type;
  bool computed = expr.decoder_computed();
  if (computed && !user_type.empty())
    return Error("'" + value.expr + "' is computed from registers or memory at " + site_.where +
                 " by our decoder; its type cannot be chosen", "leave the type off");
  if (type.empty()) {
    // A program's result shows as the primary field's kind: a 64-bit
    // signed value is fetched s64 (the same bits), a narrower one ends in s<bits>.
    auto deduced = !expr.program.empty() ? leaf_type(expr, t.kind == TypeInfo::Kind::Pointer,
                                                     t.is_signed && t.size == 8)
                   : computed            ? bits_type(t, expr, value.expr)
                                         : default_type(t, value.type, value.bitfield, value.expr);
    if (!deduced) return std::move(deduced).error();
    type = *deduced;
  }
  auto fetch = fetch_text(value, expr);
  if (!fetch) return std::move(fetch).error();
  FetchArg arg{"", *fetch, type, needs_entry(*place)};
  if (user_type.empty()) arg.fixup = fixup_for(t, expr, value.bitfield);
  else arg.fixup = ValueFixup::add_and_keep(expr.post_add, 0, 0);
  if (user_type.empty()) add_display(t, value.type, site_.names_enums, arg);
  if (Status st = add_terms(value, expr, arg.at_entry, terms); !st) return std::move(st).error();
  return arg;
}

Result<FetchArg> Resolver::x87_fetch(const Value &value, const TypeInfo &t) {
  if (site_.formatter.regs.name != "x86_64" || t.size != 16)
    return Error("'" + value.expr + "' is " + t.name + " (" + std::to_string(t.size) +
                 " bytes), whose format kprobe-probe reads only as x86_64's x87 80-bit one");
  if (value.place.kind != Place::Kind::Memory || value.bitfield)
    return Error("cannot read '" + value.expr + "' at " + site_.where + ": it is " + t.name +
                 " held outside memory here (an x87 or vector register), which kernel fetch-args cannot read");
  auto fetch = fetch_text(value, dwarf::value_of(value.place));
  if (!fetch) return std::move(fetch).error();
  FetchArg arg{"", *fetch, "u8[10]", needs_entry(value.place)};
  arg.fixup.steps.push_back({ValueOp::ShowFloat, 10});
  return arg;
}

Status Resolver::add_terms(const Value &value, const dwarf::FetchExpr &expr, bool at_entry,
                           std::vector<FetchArg> &terms) {
  for (size_t i = 0; i < expr.terms.size(); ++i) {
    const dwarf::FetchExpr &term = expr.terms[i];
    if (dwarf::needs_entry_values(term) != at_entry)
      return Error("cannot read '" + value.expr + "' at " + site_.where +
                   ": it is computed from a register's value at the function's entry (DW_OP_entry_value, read by "
                   "a companion probe there) and a value at this probe; the decoder finishes a value from the "
                   "fields of one event, and these come in two");
    if (site_.formatter.lower(term) != term)
      return Error("cannot read '" + value.expr + "' at " + site_.where +
                   ": it is computed from a global's run-time address and another value");
    auto text = fetch_text(value, term);
    if (!text) return std::move(text).error();
    auto term_type = leaf_type(term, false);
    if (!term_type) return std::move(term_type).error();
    FetchArg field{"", *text, *term_type, at_entry};
    field.fixup.term = static_cast<unsigned>(i + 1);
    terms.push_back(std::move(field));
  }
  return Ok{};
}

}  // namespace arg_resolution

Result<std::vector<FetchArg>> resolve_args(const ProbeSpec &spec, const ArgSite &site) {
  return arg_resolution::Resolver(spec, site).run();
}

}  // namespace kpp