// EventEnums: the enumerators of the enum-typed fields of the events shown,
// so that each value is named as gdb names it ("GREEN", "(F_A | F_B)").
//
// A field that holds an enum says so in its name (value_fixup.h's step
// q<handle>: the type's DIE handle in the probed file's DWARF); the caller,
// which can read that DWARF, fills the table from the events' definitions
// (src/cli/session_report.cpp). Without it (a trace.dat read where the
// program is gone), an enum is shown as its number.
#pragma once

#include <string>
#include <unordered_map>

#include "event/event.h"
#include "util/enumeration.h"

namespace kpp {

class EventEnums {
 public:
  // The enumerators of field `field` (its plain name) of "group:event".
  void add(const std::string &event, const std::string &field, Enumeration type);
  bool empty() const { return types_.empty(); }

  // Names the Enum fields of `event` whose type is known: value.text as gdb
  // prints the value, value.u/value.i its number as gdb reads it (signed
  // only when an enumerator is negative).
  void name(Event &event) const;

 private:
  // "group:event" -> field -> type
  std::unordered_map<std::string, std::unordered_map<std::string, Enumeration>> types_;
  mutable std::string key_;
};

}  // namespace kpp
