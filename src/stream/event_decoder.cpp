#include "src/stream/event_decoder.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include <traceevent/event-parse.h>

namespace kpp {

namespace {

// Names of the fields the event's print fmt shows in hex (%x, %lx, %p...).
// Conversions and print args pair up in order; a '*' width eats an arg.
std::vector<std::string> hex_fields(tep_event *ev) {
  std::vector<std::string> out;
  const char *fmt = ev->print_fmt.format;
  tep_print_arg *arg = ev->print_fmt.args;
  if (!fmt) return out;
  for (const char *p = fmt; *p && arg; ++p) {
    if (*p != '%') continue;
    if (p[1] == '%') { ++p; continue; }
    ++p;
    while (*p && std::strchr("-+ #0123456789.*hlLzjt", *p)) {
      if (*p == '*' && arg) arg = arg->next;
      ++p;
    }
    if (!*p || !arg) break;
    bool hex = *p == 'x' || *p == 'X' || *p == 'p';
    if (hex && arg->type == TEP_PRINT_FIELD && arg->field.name) out.emplace_back(arg->field.name);
    arg = arg->next;
  }
  return out;
}

struct KernelElement {
  int size;
  bool is_signed;
  bool hex;
};

// The element of an array field whose type is a fetch-arg type ("s32[]",
// "u64[]", "x16[]"), when `field_size` holds a whole number of them.
std::optional<KernelElement> kernel_type_element(std::string_view type, int field_size) {
  if (type.ends_with("[]")) type.remove_suffix(2);  // libtraceevent keeps the brackets
  if (type.size() < 2 || (type[0] != 's' && type[0] != 'u' && type[0] != 'x')) return std::nullopt;
  std::string_view bits = type.substr(1);
  int size = bits == "8" ? 1 : bits == "16" ? 2 : bits == "32" ? 4 : bits == "64" ? 8 : 0;
  if (size == 0 || field_size <= 0 || field_size % size != 0) return std::nullopt;
  return KernelElement{size, type[0] == 's', type[0] == 'x'};
}

int64_t sign_extend(uint64_t v, int size) {
  if (size >= 8) return static_cast<int64_t>(v);
  unsigned shift = 64 - 8 * size;
  return static_cast<int64_t>(v << shift) >> shift;
}

}  // namespace

EventDecoder::EventDecoder(tep_handle *tep, CommCache *comms) : tep_(tep), comms_(comms) {}

EventDecoder::EventPlan EventDecoder::build_plan(tep_event *ev) const {
  EventPlan plan;
  plan.event = ev;
  plan.system = ev->system ? ev->system : "";
  plan.name = ev->name ? ev->name : "";
  plan.key = plan.system + ":" + plan.name;
  auto hex = hex_fields(ev);
  for (tep_format_field *f = ev->format.fields; f; f = f->next) {
    std::string name = f->name ? f->name : "";
    if (name == "__probe_ip") { plan.probe_ip = f; continue; }
    // Probe bookkeeping (kretprobe/uretprobe function and return address).
    if (name.rfind("__probe_", 0) == 0) continue;
    bool is_hex = std::find(hex.begin(), hex.end(), name) != hex.end();
    FieldPlan p = field_plan(f, is_hex, plan.system, plan.shown);
    if (p.term_of < 0) ++plan.shown;
    if (!p.fixup.empty()) plan.has_fixups = true;
    plan.fields.push_back(std::move(p));
  }
  join_programs(plan);
  return plan;
}

EventDecoder::FieldPlan EventDecoder::field_plan(tep_format_field *f, bool hex, const std::string &system, size_t shown) {
  FieldPlan p{};
  p.field = f;
  p.name = f->name ? f->name : "";
  p.dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
  p.relative = f->flags & TEP_FIELD_IS_RELATIVE;
  p.elem_signed = f->flags & TEP_FIELD_IS_SIGNED;
  p.elem_hex = hex;
  p.elem_size = static_cast<int>(f->elementsize);
  // Uprobe events declare a fetched array as "s32 counts[]" with the whole
  // size: the element's size and sign come from the kernel's type name.
  if ((f->flags & TEP_FIELD_IS_ARRAY) && !p.dynamic && !(f->flags & TEP_FIELD_IS_STRING))
    if (auto element = kernel_type_element(f->type ? f->type : "", f->size)) {
      p.elem_size = element->size;
      p.elem_signed = element->is_signed;
      p.elem_hex = p.elem_hex || element->hex;
    }
  if (f->flags & TEP_FIELD_IS_STRING)
    p.kind = FieldKind::String;
  else if (p.dynamic || (f->flags & TEP_FIELD_IS_ARRAY))
    p.kind = (p.elem_size == 1 || p.elem_size == 2 || p.elem_size == 4 || p.elem_size == 8)
                 ? FieldKind::Array
                 : FieldKind::Bytes;
  else if (p.elem_hex || (f->flags & TEP_FIELD_IS_POINTER))
    p.kind = FieldKind::Hex;
  else
    p.kind = p.elem_signed ? FieldKind::Signed : FieldKind::Unsigned;
  p.raw_kind = p.kind;
  NamedFixup named = split_fixup(p.name);
  // A string's own steps can only show its bytes as counted text or as an
  // x87 long double (u8[N] reads as a string).
  const ValueStep *last = named.fixup.steps.empty() ? nullptr : &named.fixup.steps.back();
  bool counted_text = last && (last->op == ValueOp::ShowText || last->op == ValueOp::ShowCharArray ||
                               (last->op == ValueOp::ShowFloat && last->operand == 10));
  if (p.kind != FieldKind::String || counted_text) {
    // Arithmetic the kernel could not do, named in the field (value_fixup.h).
    if (named.fixup.term && shown > 0) {
      p.fixup = named.fixup;
      p.term_of = static_cast<int>(shown - 1);
    } else if (!named.fixup.empty() && !named.fixup.term && p.kind != FieldKind::Bytes) {
      // An array's own steps can only be how it is shown (a counted
      // string's bytes, a sequence's elements): its value is not a number.
      p.name = std::move(named.name);
      p.fixup = named.fixup;
    }
  }
  // The kernel's own stack events declare caller[8] but size it by the
  // stack's depth (kernel_stack): the last array of an ftrace event runs
  // to the end of the record.
  p.to_record_end = system == "ftrace" && !f->next && p.kind == FieldKind::Array && !p.dynamic;
  return p;
}

void EventDecoder::join_programs(EventPlan &plan) {
  FieldPlan *owner = nullptr;
  auto finish = [&] {
    if (owner) owner->program.insert(owner->program.end(), owner->fixup.steps.begin(), owner->fixup.steps.end());
  };
  for (size_t i = 0; i < plan.fields.size(); ++i) {
    FieldPlan &p = plan.fields[i];
    if (p.term_of < 0) {
      finish();
      owner = &p;
      p.terms = {i};
      continue;
    }
    if (p.fixup.term >= owner->terms.size()) owner->terms.resize(p.fixup.term + 1, i);
    owner->terms[p.fixup.term] = i;
    owner->program.insert(owner->program.end(), p.fixup.steps.begin(), p.fixup.steps.end());
  }
  finish();
  // A program's result is a number, of the primary's kind unless it ends
  // keeping bits or saying how it is shown.
  for (FieldPlan &p : plan.fields) {
    if (p.term_of >= 0 || p.program.empty()) continue;
    p.optional = static_cast<uint8_t>(optional_flavor(p.program));
    const ValueStep &last = p.program.back();
    // libtraceevent takes a u8[N] array for a string: its bytes are a window too.
    bool window = p.kind == FieldKind::Array || p.kind == FieldKind::String || p.kind == FieldKind::Bytes;
    if ((last.op == ValueOp::ShowText || last.op == ValueOp::ShowCharArray) && window) {
      p.kind = FieldKind::String;
      if (p.raw_kind == FieldKind::String) p.raw_kind = FieldKind::Bytes;  // every byte, NULs too
    } else if (last.op == ValueOp::ShowItems && p.kind == FieldKind::Array) {
      p.kind = FieldKind::Array;
    } else if (last.op == ValueOp::ShowFloat && !window) {
      p.kind = FieldKind::Float;
    } else if (last.op == ValueOp::ShowFloat && last.operand == 10 && window) {
      p.kind = FieldKind::Float;  // an x87 long double's 10 bytes (show_counted)
      if (p.raw_kind == FieldKind::String) p.raw_kind = FieldKind::Bytes;  // every byte, NULs too
    } else if (last.op == ValueOp::ShowBool && !window) {
      p.kind = FieldKind::Bool;
    } else if (last.op == ValueOp::ShowChar && !window) {
      p.kind = FieldKind::Char;
    } else if (last.op == ValueOp::ShowEnum && !window) {
      p.kind = FieldKind::Enum;
    } else if (window || is_display_op(last.op)) {
      p.kind = FieldKind::String;  // malformed: said so (finish_field)
    } else if (last.op == ValueOp::SignExtend) {
      p.kind = FieldKind::Signed;
    } else if (last.op == ValueOp::ZeroExtend && p.kind == FieldKind::Signed) {
      p.kind = FieldKind::Unsigned;
    }
  }
}

const EventDecoder::EventPlan *EventDecoder::plan_for(const void *data, int size) {
  if (size < 8) return nullptr;
  tep_record rec{};
  rec.data = const_cast<void *>(data);
  rec.size = size;
  int id = tep_data_type(tep_, &rec);
  auto it = plans_.find(id);
  if (it != plans_.end()) return it->second.event ? &it->second : nullptr;
  tep_event *ev = tep_find_event(tep_, id);
  EventPlan plan = ev ? build_plan(ev) : EventPlan{};
  if (!ev) plan.key = "unknown:" + std::to_string(id);
  auto [ins, _] = plans_.emplace(id, std::move(plan));
  return ins->second.event ? &ins->second : nullptr;
}

const std::string &EventDecoder::event_key(const void *data, int size) {
  const EventPlan *plan = plan_for(data, size);
  return plan ? plan->key : empty_;
}

void EventDecoder::decode_field(const FieldPlan &p, const uint8_t *data, int size, FieldValue &v) const {
  const tep_format_field *f = p.field;
  v.kind = p.raw_kind;
  v.i = 0;
  v.u = 0;
  v.text.clear();
  v.items.clear();
  v.items_signed = p.elem_signed;
  v.items_hex = p.elem_hex;
  v.cut_from = 0;
  v.float_bytes = 0;
  v.optional = 0;
  v.absent = false;
  if (f->offset < 0 || f->offset + f->size > size) return;  // truncated record
  const uint8_t *base = data + f->offset;
  int len = p.to_record_end ? size - f->offset : f->size;
  if (p.dynamic) {
    // __data_loc: low 16 bits offset, high 16 bits length (rel_loc: offset
    // counts from the end of this field).
    uint64_t loc = tep_read_number(tep_, base, f->size);
    int off = static_cast<int>(loc & 0xffff);
    len = static_cast<int>((loc >> 16) & 0xffff);
    if (p.relative) off += f->offset + f->size;
    if (off < 0 || off + len > size) return;
    base = data + off;
  }
  switch (p.raw_kind) {
    case FieldKind::String:
      v.text.assign(reinterpret_cast<const char *>(base), strnlen(reinterpret_cast<const char *>(base), len));
      return;
    case FieldKind::Bytes:
      v.text.assign(reinterpret_cast<const char *>(base), len);
      return;
    case FieldKind::Array:
      for (int at = 0; at + p.elem_size <= len; at += p.elem_size) {
        uint64_t e = tep_read_number(tep_, base + at, p.elem_size);
        v.items.push_back(p.elem_signed ? static_cast<uint64_t>(sign_extend(e, p.elem_size)) : e);
      }
      return;
    case FieldKind::Signed:
    case FieldKind::Unsigned:
    case FieldKind::Hex:
    case FieldKind::Float:
    case FieldKind::Bool:
    case FieldKind::Char:
    case FieldKind::Enum: {
      uint64_t raw = tep_read_number(tep_, base, len);
      v.u = p.elem_signed ? static_cast<uint64_t>(sign_extend(raw, len)) : raw;
      v.i = static_cast<int64_t>(v.u);
      return;
    }
  }
}

bool EventDecoder::decode(const void *data, int size, uint64_t ts, int cpu, Event &out) {
  out.time_ns = ts;
  out.cpu = cpu;
  out.probe_ip = 0;
  out.stack.clear();
  const EventPlan *plan = plan_for(data, size);
  if (!plan) {
    out.pid = 0;
    out.comm = "<...>";
    out.system = "unknown";
    out.name.clear();
    out.fields.clear();
    return false;
  }
  tep_record rec{};
  rec.data = const_cast<void *>(data);
  rec.size = size;
  out.pid = tep_data_pid(tep_, &rec);
  if (comms_) out.comm = comms_->comm(out.pid);
  else out.comm = "<...>";
  out.system = plan->system;
  out.name = plan->name;
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (plan->probe_ip && plan->probe_ip->offset + plan->probe_ip->size <= size)
    out.probe_ip = tep_read_number(tep_, bytes + plan->probe_ip->offset, plan->probe_ip->size);
  // Resize without freeing: field strings keep their capacity across events.
  if (out.fields.size() > plan->shown) out.fields.resize(plan->shown);
  while (out.fields.size() < plan->shown) out.fields.emplace_back();
  if (term_values_.size() < plan->fields.size()) term_values_.resize(plan->fields.size());
  size_t shown = 0;
  for (size_t i = 0; i < plan->fields.size(); ++i) {
    const FieldPlan &p = plan->fields[i];
    if (p.term_of >= 0) {
      decode_field(p, bytes, size, term_values_[i]);
      continue;
    }
    Field &f = out.fields[shown++];
    if (f.name != p.name) f.name = p.name;
    decode_field(p, bytes, size, f.value);
  }
  // The arithmetic the kernel could not do (value_fixup.h), over all terms.
  if (!plan->has_fixups) return true;
  shown = 0;
  for (const FieldPlan &p : plan->fields) {
    if (p.term_of >= 0) continue;
    FieldValue &v = out.fields[shown++].value;
    if (!p.program.empty()) finish_field(*plan, p, v);
  }
  return true;
}

void EventDecoder::finish_field(const EventPlan &plan, const FieldPlan &p, FieldValue &v) {
  leaves_.assign(p.terms.size(), ProgramLeaf{});
  if (windows_.size() < p.terms.size()) windows_.resize(p.terms.size());
  for (size_t n = 0; n < p.terms.size(); ++n) {
    size_t index = p.terms[n];
    const FieldValue &raw = n == 0 ? v : term_values_[index];
    leaves_[n].value = raw.u;
    if (raw.kind == FieldKind::Bytes) {  // a window of memory whose elements the format does not size
      leaves_[n].bytes = std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(raw.text.data()), raw.text.size());
      continue;
    }
    if (raw.kind != FieldKind::Array) continue;
    // A window of memory (an array field): its bytes, as the kernel read them.
    int elem = plan.fields[index].elem_size;
    std::vector<uint8_t> &bytes = windows_[n];
    bytes.clear();
    for (uint64_t item : raw.items)
      for (int b = 0; b < elem; ++b) bytes.push_back(static_cast<uint8_t>(item >> (8 * b)));
    leaves_[n].bytes = bytes;
  }
  ProgramResult r = run_value_program(p.program, leaves_);
  v.optional = p.optional;
  if (r.absent) {  // an optional value that is not there: what was fetched for it is not its value
    v.absent = true;
    v.kind = p.kind;
    v.u = 0;
    v.i = 0;
    v.text.clear();
    v.items.clear();
    return;
  }
  if (r.value && show_counted(p, *r.value, v)) return;
  v.items.clear();
  if (!r.value || p.kind == FieldKind::String) {
    // Not a number: say why where the value would be.
    v.kind = FieldKind::String;
    v.text = std::string("<") + (r.value ? "a display step that does not fit the field" : r.why) + ">";
    return;
  }
  v.kind = p.kind;
  v.u = *r.value;
  v.i = static_cast<int64_t>(v.u);
  if (v.kind == FieldKind::Float) v.float_bytes = static_cast<unsigned>(p.program.back().operand);
}

bool EventDecoder::show_counted(const FieldPlan &p, uint64_t length, FieldValue &v) const {
  if (p.raw_kind != FieldKind::Array && p.raw_kind != FieldKind::Bytes) return false;
  ValueOp shows = p.program.back().op;
  if (shows == ValueOp::ShowText || shows == ValueOp::ShowCharArray) {
    // The window the kernel fetched, cut at the length: never a byte past it.
    std::span<const uint8_t> bytes = leaves_.front().bytes;
    size_t shown = length < bytes.size() ? static_cast<size_t>(length) : bytes.size();
    // A char array's NULs that end it are its padding (gdb: '\000' <repeats N times>).
    if (shows == ValueOp::ShowCharArray)
      while (shown > 0 && bytes[shown - 1] == 0) --shown;
    v.kind = FieldKind::String;
    v.text.assign(reinterpret_cast<const char *>(bytes.data()), shown);
    v.items.clear();
    v.cut_from = length > bytes.size() ? length : 0;
    return true;
  }
  if (p.program.back().op == ValueOp::ShowFloat && p.program.back().operand == 10) {
    // An x87 long double: its 10 bytes, kept for the printers to make a number of.
    std::span<const uint8_t> bytes = leaves_.front().bytes;
    if (bytes.size() < 10) return false;
    v.kind = FieldKind::Float;
    v.float_bytes = 10;
    v.text.assign(reinterpret_cast<const char *>(bytes.data()), 10);
    v.items.clear();
    return true;
  }
  if (p.program.back().op == ValueOp::ShowItems && p.raw_kind == FieldKind::Array) {
    v.kind = FieldKind::Array;
    // Floating-point elements say so just before (g4, g8).
    if (p.program.size() >= 2 && p.program[p.program.size() - 2].op == ValueOp::ShowFloat)
      v.float_bytes = static_cast<unsigned>(p.program[p.program.size() - 2].operand);
    v.cut_from = length > v.items.size() ? length : 0;
    if (length < v.items.size()) v.items.resize(static_cast<size_t>(length));
    return true;
  }
  return false;
}

}  // namespace kpp
