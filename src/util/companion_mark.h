// How an entry-value companion probe is recognised from tracefs alone.
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
// So the rule is: an event whose first field is `_kpp_entry` (`_kpp_exit`)
// and whose name is "EVENT__entry" ("EVENT__exit") is a companion of
// "GROUP:EVENT" in the same group. The mark is not a value: consumers drop
// it from what they show.
#pragma once

#include <string>
#include <string_view>

namespace kpp {

inline constexpr std::string_view companion_entry_mark = "_kpp_entry";
inline constexpr std::string_view companion_exit_mark = "_kpp_exit";
inline constexpr std::string_view companion_entry_suffix = "__entry";
inline constexpr std::string_view companion_exit_suffix = "__exit";
// The fetch-arg a mark is written with: an immediate 1, one byte.
inline constexpr std::string_view companion_mark_fetch = "\\1";
inline constexpr std::string_view companion_mark_type = "u8";

enum class CompanionMark { None, Entry, Exit };

// The role an event plays, from its name and the name of its first field.
inline CompanionMark companion_mark_of(std::string_view event, std::string_view first_field) {
  auto ends_with = [&](std::string_view suffix) {
    return event.size() > suffix.size() && event.substr(event.size() - suffix.size()) == suffix;
  };
  if (first_field == companion_entry_mark && ends_with(companion_entry_suffix)) return CompanionMark::Entry;
  if (first_field == companion_exit_mark && ends_with(companion_exit_suffix)) return CompanionMark::Exit;
  return CompanionMark::None;
}

// "EVENT" of a companion "EVENT__entry" / "EVENT__exit" (the role must not be None).
inline std::string marked_companion_owner(std::string_view event, CompanionMark role) {
  size_t cut = (role == CompanionMark::Entry ? companion_entry_suffix : companion_exit_suffix).size();
  return std::string(event.substr(0, event.size() - cut));
}

// Whether a field is a companion mark, not a value to show.
inline bool is_companion_mark(std::string_view field) {
  return field == companion_entry_mark || field == companion_exit_mark;
}

}  // namespace kpp
