// ValueFixup: arithmetic on a fetched value that kernel fetch-args cannot do,
// done by kprobe-probe's decoder instead. The kernel has no signed bitfield
// type (b5@4/32 extracts unsigned) and cannot add: a signed 5-bit member, a
// variable DWARF describes as "register rbx minus 1", or the run-time address
// of a global in a PIE (%ip plus a link-time distance) need one more step
// after the kernel has fetched the raw bits.
//
// The step travels in the event's field name, so that it survives wherever
// the definition goes (uprobe_events, --list, trace.dat) and needs no state
// of ours: "delta__ks5" is field "delta", sign-extended from 5 bits;
// "level__km1s32" is "level" minus 1 as a signed 32-bit value;
// "a__kp2ed0" is "a" plus 0x2ed0; "w__kn1" is subtracted from the field
// "w" before it. Our trace, JSON, live view and report show
// the fixed value under the plain name; trace-cmd shows the raw field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kpp {

struct ValueFixup {
  int64_t add = 0;         // added first (wrapping)
  unsigned sign_bits = 0;  // then: the low N bits as a signed number (0 = leave)
  unsigned zero_bits = 0;  //   or: the low N bits as an unsigned number (0 = leave)
  // This field is not a value of its own but the N-th term of the field
  // before it, added to (or, negated, subtracted from) that field's raw value
  // before its fixup: a value DWARF computes from two run-time values
  // ("w__kp0s32" then "w__kn1": w = first - second, as an int).
  unsigned term = 0;
  bool negated = false;

  bool empty() const { return add == 0 && sign_bits == 0 && zero_bits == 0 && term == 0; }
  bool operator==(const ValueFixup &) const = default;

  // The fixed value; the result is signed when sign_bits is set.
  uint64_t apply(uint64_t raw) const;
};

// "name" plus the fixup's suffix; just "name" for an empty fixup.
std::string field_name_with_fixup(std::string_view name, const ValueFixup &fixup);

struct NamedFixup {
  std::string name;
  ValueFixup fixup;
};
// The plain name and the fixup of a field name; a name without a well-formed
// suffix is returned whole with an empty fixup.
NamedFixup split_fixup(std::string_view field_name);

}  // namespace kpp
