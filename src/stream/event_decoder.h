// EventDecoder: raw ring-buffer record -> kpp::Event, using libtraceevent's
// parsed format files. Field typing comes from the format: signedness,
// __data_loc strings and arrays, fixed arrays; a field the print fmt shows
// with %x (a probe argument declared :x64) is Hex.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/stream/comm_cache.h"
#include "event/event.h"
#include "util/value_fixup.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;

namespace kpp {

class EventDecoder {
 public:
  // `tep` (not owned) must outlive the decoder; `comms` (not owned) may be
  // null, then comm is "<...>".
  EventDecoder(tep_handle *tep, CommCache *comms);

  // Decodes one record (the bytes after the ring-buffer event header) into
  // `out`, reusing its storage. Returns false if the record is too short or
  // its event id is unknown to the tep (out then names "unknown:<id>").
  bool decode(const void *data, int size, uint64_t ts, int cpu, Event &out);

  // The "system:name" of the record's event, or empty when unknown; cheap
  // (no field decoding) for counting.
  const std::string &event_key(const void *data, int size);

 private:
  struct FieldPlan {
    tep_format_field *field;
    std::string name;
    FieldKind kind;      // as shown (a program may finish it as another kind)
    FieldKind raw_kind;  // as the kernel's format stores it
    bool dynamic;
    bool relative;
    bool elem_signed;
    bool elem_hex;
    int elem_size;
    ValueFixup fixup;  // from the field name's suffix (util/value_fixup.h)
    bool to_record_end = false;  // an array as long as the record (ftrace:kernel_stack's caller)
    int term_of = -1;  // a term: the index, among the shown fields, of the field it belongs to
    // A shown field's whole program: its terms' steps in field order, then its
    // own; `terms[N]` is the index in `fields` of its term N (0: itself).
    std::vector<ValueStep> program;
    std::vector<size_t> terms;
    uint8_t optional = 0;  // FieldValue::optional, from the program's a<N>
  };
  struct EventPlan {
    tep_event *event = nullptr;
    std::string system, name, key;
    tep_format_field *probe_ip = nullptr;
    std::vector<FieldPlan> fields;
    size_t shown = 0;         // fields that are not terms of another
    bool has_fixups = false;  // some field's value is finished by us (value_fixup.h)
  };
  const EventPlan *plan_for(const void *data, int size);
  EventPlan build_plan(tep_event *ev) const;
  // One field's plan; `shown` counts the fields shown before it.
  static FieldPlan field_plan(tep_format_field *f, bool hex, const std::string &system, size_t shown);
  // Each shown field's program: its terms' steps, then its own.
  static void join_programs(EventPlan &plan);
  // The field's raw value (sign-extended when the kernel's type is signed);
  // fixups are applied once its terms are in.
  void decode_field(const FieldPlan &p, const uint8_t *data, int size, FieldValue &v) const;

  tep_handle *tep_;
  CommCache *comms_;
  std::unordered_map<int, EventPlan> plans_;
  int type_offset_ = 0, type_size_ = 2, pid_offset_ = 4, pid_size_ = 4;
  std::string empty_;
  // Runs the program of the shown field `p` over its fetched terms.
  void finish_field(const EventPlan &plan, const FieldPlan &p, FieldValue &v);
  // A counted string or sequence (value_fixup.h's y and z): the primary's
  // fetched bytes or elements cut at `length`; false for other fields.
  bool show_counted(const FieldPlan &p, uint64_t length, FieldValue &v) const;
  std::vector<FieldValue> term_values_;  // scratch: the terms' raw values, by index in the plan
  std::vector<ProgramLeaf> leaves_;
  std::vector<std::vector<uint8_t>> windows_;
};

}  // namespace kpp
