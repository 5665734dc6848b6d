// How entry-value companion probes are spelled: the builder
// (src/definition/probe_builder.cpp) writes them so, and Companions
// (src/stream/companions.h), the one recogniser, reads them so.
//
// A probe that reads values at its function's entry (DW_OP_entry_value)
// comes with two companion probes (see ResolvedProbe::companions):
// "GROUP:EVENT__entry", which reads those values at the entry, and
// "GROUP:EVENT__exit", a return probe that pops them. The name alone does
// not make a companion (a user's own "my__entry" is an ordinary event):
// each companion's FIRST fetch-arg is a mark, an immediate the kernel
// records with every hit, named for its role:
//
//   p:G/E__entry /prog:0x1139 _kpp_entry=\1:u8 a=%di:s32
//   r:G/E__exit  /prog:0x1139 _kpp_exit=\1:u8
//
// The mark is not a value: consumers drop it from what they show.
#pragma once

#include <string_view>

namespace kpp {

inline constexpr std::string_view companion_entry_mark = "_kpp_entry";
inline constexpr std::string_view companion_exit_mark = "_kpp_exit";
inline constexpr std::string_view companion_entry_suffix = "__entry";
inline constexpr std::string_view companion_exit_suffix = "__exit";
// The fetch-arg a mark is written with: an immediate 1, one byte.
inline constexpr std::string_view companion_mark_fetch = "\\1";
inline constexpr std::string_view companion_mark_type = "u8";

// Whether a field is a companion mark, not a value to show.
inline bool is_companion_mark(std::string_view field) {
  return field == companion_entry_mark || field == companion_exit_mark;
}

}  // namespace kpp
