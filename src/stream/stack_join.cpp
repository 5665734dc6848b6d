#include "src/stream/stack_join.h"

#include <algorithm>
#include <optional>

namespace kpp {

namespace {

bool is_stack_event(const Event &e, bool &user) {
  if (e.system != kStackSystem) return false;
  if (e.name == kUserStackEvent) {
    user = true;
    return true;
  }
  user = false;
  return e.name == kKernelStackEvent;
}

}  // namespace

StackJoin::StackJoin(StackJoinOptions options, EventSink *downstream)
    : options_(std::move(options)), downstream_(downstream) {}

StackJoin::Held &StackJoin::push_held() {
  if (count_ == ring_.size()) {
    // Full: unroll the ring into a larger one, oldest first.
    std::vector<Held> larger(std::max<size_t>(16, ring_.size() * 2));
    for (size_t i = 0; i < count_; ++i) larger[i] = std::move(held(i));
    ring_ = std::move(larger);
    head_ = 0;
  }
  return held(count_++);
}

void StackJoin::pop_held() {
  head_ = (head_ + 1) % ring_.size();
  --count_;
}

StackJoin::Held *StackJoin::held_on(int cpu) {
  auto it = last_on_cpu_.find(cpu);
  if (it == last_on_cpu_.end() || count_ == 0) return nullptr;
  uint64_t first = held(0).serial;
  if (it->second < first) return nullptr;
  return &held(static_cast<size_t>(it->second - first));
}

void StackJoin::add_frames(Held &held, const Event &stack_event, bool user) {
  const Field *caller = stack_event.field("caller");
  if (!caller) return;
  for (uint64_t ip : caller->value.items) {
    // The user stack ends at the first empty slot (0, or ~0 on old kernels).
    if (ip == 0 || ip == ~uint64_t{0}) break;
    StackFrame f;
    f.ip = ip;
    f.user = user;
    held.event.stack.push_back(std::move(f));
  }
}

void StackJoin::try_dwarf(Held &held, bool last) {
  if (!held.wants_dwarf || !options_.dwarf) return;
  std::optional<std::vector<uint64_t>> ips = options_.dwarf->take(held.event, last);
  if (!ips) return;
  for (uint64_t ip : *ips) {
    StackFrame f;
    f.ip = ip;
    f.user = true;
    held.event.stack.push_back(std::move(f));
  }
  held.wants_dwarf = false;
  --dwarf_waiting_;
}

Status StackJoin::on_event(const Event &event) {
  if (options_.mode == StackMode::Off) return downstream_->on_event(event);
  bool user = false;
  if (is_stack_event(event, user)) {
    Held *h = held_on(event.cpu);
    if (!h || h->ready) return Ok{};  // a stack whose event is gone (or our own, filtered)
    if (!user) {
      // Kernel frames first: the user stack, when it came before, goes after them.
      std::vector<StackFrame> user_frames = std::move(h->event.stack);
      h->event.stack.clear();
      add_frames(*h, event, false);
      for (StackFrame &f : user_frames) h->event.stack.push_back(std::move(f));
      h->wants_kernel = false;
    } else {
      add_frames(*h, event, true);
      h->wants_user = false;
    }
    // The kernel stack is the last one written; a user stack alone ends a uprobe's.
    if (options_.mode == StackMode::Expected && !h->wants_kernel && !h->wants_user) h->ready = true;
    if (options_.mode == StackMode::AsTheyCome && !user) h->ready = true;
    return release_ready();
  }
  // Another event on this CPU: what was held there has all it will get.
  if (Held *h = held_on(event.cpu)) h->ready = true;
  Held &h = push_held();
  h.event = event;  // into the slot's storage
  h.serial = next_serial_++;
  h.wants_kernel = h.wants_user = h.wants_dwarf = h.ready = h.forced = false;
  h.batches = 0;
  if (options_.mode == StackMode::Expected) {
    key_.assign(event.system).append(1, ':').append(event.name);
    h.wants_kernel = options_.kernel_stack_events.count(key_) > 0;
    h.wants_dwarf = options_.dwarf_stack_events.count(key_) > 0;
    h.wants_user = options_.user_stacks && !h.wants_dwarf;
    h.ready = !h.wants_kernel && !h.wants_user;
    // The DWARF stacks are taken in the events' order (a source tells an
    // event's sample from its thread's older ones by what was taken).
    if (h.wants_dwarf && dwarf_waiting_++ == 0) try_dwarf(h);
  }
  last_on_cpu_[event.cpu] = h.serial;
  // DWARF stacks come from a thread that unwinds behind the stream: a burst
  // of hits may wait a while for it (a held event is ~200 bytes).
  while (count_ > (options_.dwarf ? kMaxHeldForDwarf : kMaxHeld)) {
    try_dwarf(held(0), true);
    held(0).forced = true;
    if (Status st = release_ready(); !st) return st;
  }
  return release_ready();
}

Status StackJoin::forward(Held &held) {
  if (options_.symbolizer && !held.event.stack.empty()) options_.symbolizer->symbolize(held.event, held.event.stack);
  return downstream_->on_event(held.event);
}

bool StackJoin::releasable(const Held &held) const {
  if (held.forced) return true;
  if (!held.ready || held.wants_dwarf) return false;
  // The oldest waits for its frames' symbols (the events behind it, for it).
  return !options_.symbolizer || held.event.stack.empty() || options_.symbolizer->ready(held.event, held.event.stack);
}

Status StackJoin::release_ready() {
  while (count_ > 0 && releasable(held(0))) {
    Status st = forward(held(0));
    pop_held();
    if (!st) return st;
  }
  return Ok{};
}

Status StackJoin::release_all() {
  for (size_t i = 0; i < count_; ++i) {
    try_dwarf(held(i), true);
    held(i).forced = true;
  }
  return release_ready();
}

Status StackJoin::on_batch_end() {
  // A stack stamped after this poll's watermark comes with the next poll:
  // an event waits over one batch end, not two.
  // A DWARF stack is waited for longer: the unwinding thread may lag.
  bool in_order = true;  // no older event still waits for its DWARF stack
  for (size_t i = 0; i < count_; ++i) {
    Held &h = held(i);
    ++h.batches;
    if (in_order) try_dwarf(h, h.batches >= options_.dwarf_wait_batches);
    in_order = in_order && !h.wants_dwarf;
    if (h.batches >= 2) h.ready = true;
  }
  if (Status st = release_ready(); !st) return st;
  return downstream_->on_batch_end();
}

Status StackJoin::on_finish() {
  if (Status st = release_all(); !st) {
    (void)downstream_->on_finish();
    return st;
  }
  return downstream_->on_finish();
}

}  // namespace kpp
