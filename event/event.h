// The decoded event model every consumer uses (printers, live view, tests).
// Plain data: no library handles inside, safe to copy and keep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpp {

enum class FieldKind {
  Signed,    // value.i
  Unsigned,  // value.u
  Hex,       // value.u, shown as 0x.. (probe args declared :x8..:x64)
  String,    // value.text
  Array,     // value.items (each element; signed elements reinterpret as int64)
  Bytes,     // value.text holds the raw bytes
  Float,     // value.u holds the IEEE bits of a float_bytes (4 or 8) byte float
  Bool,      // value.u: 0 false, 1 true (another number shown as itself)
  Char,      // value.i: a character's code (a C char, signed or not)
  Enum,      // value.u/value.i: the number; value.text: how gdb names it ("GREEN",
             // "(A | B)"), empty when the enumerators are not known (event_enums.h)
};

struct FieldValue {
  FieldKind kind = FieldKind::Unsigned;
  int64_t i = 0;
  uint64_t u = 0;
  std::string text;
  std::vector<uint64_t> items;
  bool items_signed = false;  // Array: elements are signed; Enum: fetched signed (its DWARF type is)
  bool items_hex = false;     // Array: elements shown as hex
  // Float: 4 (float, f32) or 8 (double, f64); Array: the same when its
  // elements are floats, 0 when they are integers.
  unsigned float_bytes = 0;
  // A counted String or an Array shown in part (its first bytes or
  // elements): its whole length; 0 when shown whole.
  uint64_t cut_from = 0;
  // An optional value (std::optional, Rust's Option; util/value_fixup.h's
  // a<N>): how it is shown, 1 as libstdc++'s printer does ({[contained
  // value] = 5}, [no contained value]), 2 as Rust's (Some(5), None); 0 for
  // any other value. `absent`: it holds no value (the rest is empty).
  uint8_t optional = 0;
  bool absent = false;

  bool operator==(const FieldValue &) const = default;
};

struct Field {
  std::string name;
  FieldValue value;
  bool operator==(const Field &) const = default;
};

// One frame of an event's stack (--stack): its address, and what the
// symbolizer (src/stack) could say of it. Inlining gives several frames of
// one address: the inlined functions (inlined = true), then the function
// they are in. Kernel frames come first, then the user frames.
struct StackFrame {
  uint64_t ip = 0;
  bool user = false;     // a user-space address (of the event's process)
  std::string sym;       // function name; empty when unknown
  uint64_t off = 0;      // ip's offset into the ELF symbol (frames that are not inlined)
  std::string file;      // source file; empty when unknown
  int line = 0;          // 0 when unknown
  bool inlined = false;
  std::string object;    // the module ("[ext4]") or the binary's path, when known
  bool operator==(const StackFrame &) const = default;
};

struct Event {
  uint64_t time_ns = 0;   // trace clock of the instance (mono by default)
  int cpu = 0;
  int pid = 0;
  int ns_pid = 0;         // the pid in its own pid namespace (a -p target in a container); 0 otherwise
  std::string comm;       // "<...>" when unknown
  std::string system;     // group, e.g. "probe_prog"
  std::string name;       // event, e.g. "walk_L5"
  uint64_t probe_ip = 0;  // __probe_ip of kprobe/uprobe events, 0 otherwise
  std::string site;       // the probe site that fired, "walk:5@prog.c"; empty when unknown (event_sites.h)
  std::vector<Field> fields;  // event fields in format order, common_* left out
  std::vector<StackFrame> stack;  // --stack: kernel frames, then user frames; empty otherwise

  // The field named `name`, or nullptr.
  const Field *field(const std::string &field_name) const {
    for (const auto &f : fields)
      if (f.name == field_name) return &f;
    return nullptr;
  }
};

}  // namespace kpp
