// How a resolved value's fields are typed, named and finished: the kernel
// type of a fetched leaf, the decoder's steps that finish or show a value
// (util/value_fixup.h), and the fields' names that carry those steps.
// Free of any probe site: the Resolver (resolver.h) calls them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "src/definition/trace_definition.h"

namespace kpp::arg_resolution {

using dwarf::TypeInfo;

// The value's field and its terms (see ValueFixup::term), all named
// `name`. The decoder's program, all in the primary's fixup so far, is
// spread over the fields in their order (terms first, the primary's last:
// value_fixup.h), each name within the kernel's 32 bytes.
Result<std::vector<FetchArg>> named_fields(const std::string &name, FetchArg primary, std::vector<FetchArg> terms);

// How the decoder shows a scalar the kernel has no type for
// (value_fixup.h): a float's bits as a number, a bool as true or false,
// a char as its code and character, an enum by its enumerators' names
// (their type's DIE handle, for the decoder to find them), as gdb does.
void add_display(const TypeInfo &t, dwarf::TypeRef type, bool names_enums, FetchArg &arg);

// The kernel type of one leaf of a value the decoder computes: the whole
// 64 bits, the bits DWARF takes, or a window of memory as an array.
Result<std::string> leaf_type(const dwarf::FetchExpr &leaf, bool pointer, bool is_signed = false);

// The kernel's bitfield type for the bits `expr` takes of a fetched value.
Result<std::string> bits_type(const TypeInfo &t, const dwarf::FetchExpr &expr, const std::string &what);

// What our decoder must still do to the fetched bits to give the value of
// type `t`: sign-extend a signed bitfield or a register's low bits, add
// what DWARF adds (value_fixup.h).
ValueFixup fixup_for(const TypeInfo &t, const dwarf::FetchExpr &expr,
                     const std::optional<dwarf::Member> &bitfield);
}  // namespace kpp::arg_resolution
