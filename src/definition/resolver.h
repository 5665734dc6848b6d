// The resolution of a probe's arguments into fetch-args behind
// resolve_args() (arg_resolver.h), internal to src/definition: the value
// being resolved and the Resolver that walks an argument's C expression
// over the DWARF (resolver.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/definition/arg_resolver.h"
#include "src/definition/known_objects.h"
#include "src/definition/value_fields.h"

namespace kpp::arg_resolution {

using dwarf::Place;
using dwarf::TypeInfo;

// A value being resolved: where it is, what type, and the bitfield it is, if any.
struct Value {
  Place place;
  dwarf::TypeRef type;
  std::optional<dwarf::Member> bitfield;
  std::string expr;  // the C expression so far, for messages ("p->next")
};

// A library object a recogniser knows (known_objects.h), and the value that
// holds it (`value` itself, or what a C++ reference `value` refers to).
struct KnownValue {
  Value object;
  KnownObject what;
};

class Resolver {
 public:
  Resolver(const ProbeSpec &spec, const ArgSite &site);

  Result<std::vector<FetchArg>> run();

 private:
  Result<std::vector<FetchArg>> resolve(const ProbeArg &arg, size_t position);

  // $retval, typed by the function's return type.
  Result<std::vector<FetchArg>> retval(const ProbeArg &arg, const std::string &name);

  // $retval at a Go function's return instruction: its first result, where
  // Go's ABI puts it (without DWARF, the first result register, untyped:
  // Go's first integer result register is the C ABI's return register).
  Result<std::vector<FetchArg>> go_retval(const ProbeArg &arg, const std::string &name);

  Result<Value> result_value(const dwarf::Variable &result, const std::string &expr);

  // A Go function's result by name at its return instruction ("~r0", or
  // the name the source gives it); the other variables are gone there.
  Result<Value> go_result(const std::string &name);

  // A variable (or @SYM) by name, through its member and index chain.
  Result<std::vector<FetchArg>> named_value(const ProbeArg &arg, const std::string &name);

  // A raw fetch arg (src/spec/raw_fetch.h) in this probe's terms: what the
  // kernel has for uprobes and kprobes alike goes as it is; a uprobe has no
  // $argN (the calling convention's register is read instead) and no @SYM
  // (the symbol's offset in the file is).
  Result<std::string> raw_fetch(const ProbeArg &arg);

  // $argN: the kernel reads it at a kernel function's entry; for a uprobe,
  // the register the calling convention passes it in, valid at the entry.
  Result<std::string> argument_fetch(uint64_t n);

  // @SYM(+|-OFF) by the symbol table, fetched as a global DWARF places
  // (fetch_format.h: a uprobe by its offset from the probe's mapping). A
  // kprobe on a symbol the file does not have is left to the kernel's
  // kallsyms.
  Result<std::string> symbol_fetch(const std::string &symbol, int64_t offset);

  Result<Value> lookup(const std::string &name);

  // Where a parameter kept in a frame slot that the prologue fills becomes
  // valid, when the probe is before it (an offset or line at the entry).
  std::optional<uint64_t> prologue_pending(const dwarf::Variable &v);

  Result<std::vector<FetchArg>> expand(bool params_only);

  Result<Value> access(const Value &value, const ArgAccess &step);

  // value[index]: through a pointer, or within an array.
  Result<Value> element_of(const Value &value, const TypeInfo &t, int64_t index);

  // value.member or value->member.
  Result<Value> member_of(const Value &value, const TypeInfo &t, const ArgAccess &step);

  // The fetch-arg text, or why `value` cannot be written as one.
  Result<std::string> fetch_text(const Value &value, const dwarf::FetchExpr &expr);

  // The place holding all `size` bytes of the value; a value split into
  // pieces (DW_OP_piece) qualifies when its first piece holds them all.
  Result<Place> whole(const Value &value, uint64_t size);

  // What the pointer `value` (of `size` bytes) points to, plus `offset`.
  Result<Place> pointee(const Value &value, uint64_t size, int64_t offset);

  // The kernel type perf would use for a value of type `t`, with no type given.
  Result<std::string> default_type(const TypeInfo &t, dwarf::TypeRef ref,
                                   const std::optional<dwarf::Member> &bitfield, const std::string &expr);

  // The fetch-arg for `value`; a value DWARF computes from several run-time
  // values also gets `terms`, the fields the decoder adds to it.
  Result<FetchArg> typed_fetch(const Value &value, const std::string &given_type, std::vector<FetchArg> &terms);

  // The library object (known_objects.h: recognise) that `value` is, or
  // that it refers to when it is a C++ reference; nullopt when it is none
  // (or when the reference cannot be loaded through).
  std::optional<KnownValue> known_object(const Value &value, const TypeInfo &t);

  // The fields of a known object `value` is (or refers to), as its
  // language's debugger shows it.
  Result<FetchArg> known_fetch(const Value &value, const KnownValue &known, std::vector<FetchArg> &terms);

  // The member a known object is shown as (std::array's elements, a smart
  // pointer's raw pointer), named for messages as `value` then the member.
  Result<Value> inner_value(const Value &value, const Value &object, const InnerMember &member);

  // An optional value (std::optional, Rust's Option): its contained value's
  // fields, and a term for the flag that says whether it is there, which the
  // program tests first (a<N>: absent, it stops).
  Result<FetchArg> optional_fields(const Value &value, const Value &object, const Result<OptionalLayout> &layout,
                                   std::vector<FetchArg> &terms);

  // The term that fetches an optional value's flag (or discriminant) of
  // `size` bytes at `place`, read at the same time as the value.
  Result<FetchArg> flag_term(const Place &place, uint64_t size, size_t index, bool at_entry);

  // The member at the end of `path` from `value`.
  Result<Value> follow(Value value, const std::vector<std::string> &path);

  // A term of a counted value: a length or a pointer, fetched whole.
  Result<FetchArg> counted_term(const Value &value, unsigned index, bool at_entry);

  // The bytes or elements a counted value's pointer points to, as a bounded
  // array, and the terms its length comes from; the decoder cuts the array
  // at the length (value_fixup.h: y, z).
  Result<FetchArg> counted_fields(const Value &value, const CountedLayout &layout, std::vector<FetchArg> &terms);

  // A known constant string, given to a kprobe as an immediate (\"text");
  // the kernel's argument parser splits on white space, so text with spaces
  // or quotes cannot be passed.
  Result<FetchArg> constant_string_fetch(const Value &value, const TypeInfo &t, const std::string &user_type,
                                         bool as_string);

  // A string is fetched by the address of its first character, written as
  // a load from it: "+0(%si):string" reads the string at %si.
  Result<FetchArg> string_fetch(const Value &value, const TypeInfo &t, const std::string &user_type);

  // A whole array of known size in memory, as the kernel's TYPE[N]; one
  // longer than the kernel's 64 elements as a sequence is cut: its first
  // --max-items elements and its length (value_fixup.h: z). A char array is
  // text of its own bytes, the first 64 of a longer one (value_fixup.h: l).
  Result<FetchArg> array_fetch(const Value &value, const TypeInfo &t);

  // A scalar (or a bitfield, or a value the decoder computes, whose other
  // run-time values become `terms`).
  Result<FetchArg> scalar_fetch(const Value &value, const TypeInfo &t, const std::string &user_type,
                                std::vector<FetchArg> &terms);

  // An x87 long double (x86_64's: the 80-bit extended format in 16 bytes)
  // in memory: its 10 bytes fetched as an array, made a number by the
  // decoder (g10). In a register (st0-st7) or elsewhere it is refused.
  Result<FetchArg> x87_fetch(const Value &value, const TypeInfo &t);

  // The fields of the run-time values besides the primary one that the
  // decoder combines into `value`; all read at the same time (entry or not).
  Status add_terms(const Value &value, const dwarf::FetchExpr &expr, bool at_entry, std::vector<FetchArg> &terms);

  const ProbeSpec &spec_;
  const ArgSite &site_;
  std::vector<dwarf::Variable> variables_;
};

}  // namespace kpp::arg_resolution
