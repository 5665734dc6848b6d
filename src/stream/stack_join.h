// StackJoin: puts each event's stacks (--stack) back on it.
//
// The kernel writes a stack as an event of its own, right after the event
// it belongs to, on the same CPU: ftrace:kernel_stack (the `stacktrace`
// trigger, posted after the event is committed) and ftrace:user_stack (the
// instance's `userstacktrace` option, written as the event is committed).
// For a kprobe event with both, the user stack comes first and the kernel
// stack last; a uprobe event has only the user stack.
//
// So the join holds each event until its stacks are in: it is released
// when its last expected stack arrives, when another event comes on its
// CPU, when it has waited over a whole batch (the stack was stamped after
// the poll's watermark: it comes with the next poll), when more than
// kMaxHeld events wait, or at the end. Events leave in the order they came.
// The stack events themselves are not passed on; their addresses become
// Event::stack, symbolized by the FrameSymbolizer when there is one.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/stream/event_sink.h"

namespace kpp {

// Names the frames of a stack (src/stack implements it with kallsyms and DWARF).
class FrameSymbolizer {
 public:
  virtual ~FrameSymbolizer() = default;
  // Replaces `frames` (addresses only: ip and user set) by the frames they
  // stand for: function+offset, file:line, inlined calls expanded. `event`
  // is the event the stack belongs to (its pid, its probe).
  virtual void symbolize(const Event &event, std::vector<StackFrame> &frames) = 0;
  // False while what names a frame of `frames` is still on its way (a debug
  // file a debuginfod server is sending, in the background): the event then
  // waits in the join -- the stream goes on reading, nothing is lost -- and
  // is asked about again at each batch end. The wait is bounded by the
  // fetch's own bounds, by kMaxHeld events and by the end of the session,
  // after which the frames are named with what is there.
  virtual bool ready(const Event &event, const std::vector<StackFrame> &frames) {
    (void)event;
    (void)frames;
    return true;
  }
};

// The user stacks of some events, unwound from DWARF (dwarf_user_stacks.h):
// addresses, innermost first, once they are in.
class UserStackSource {
 public:
  virtual ~UserStackSource() = default;
  // `event`'s stack (empty: it has none), or nullopt while that cannot be
  // told yet; `last` asks for an answer now, from what has come.
  virtual std::optional<std::vector<uint64_t>> take(const Event &event, bool last) = 0;
};

// The kernel's stack events, as the join and the tests name them.
inline constexpr const char *kStackSystem = "ftrace";
inline constexpr const char *kKernelStackEvent = "kernel_stack";
inline constexpr const char *kUserStackEvent = "user_stack";

enum class StackMode {
  Off,         // no stacks: events pass straight on
  Expected,    // a live session asked for them: each event waits for what it gets
  AsTheyCome,  // a trace.dat read back: what follows an event on its CPU is its
};

struct StackJoinOptions {
  StackMode mode = StackMode::Off;
  // Expected: "group:event" of the events that get a kernel stack (the
  // trigger's); with user_stacks (the userstacktrace option), every event
  // gets a user stack too.
  std::set<std::string> kernel_stack_events;
  bool user_stacks = false;
  FrameSymbolizer *symbolizer = nullptr;  // not owned; null: addresses only
  // Expected: "group:event" of the events whose user stack comes from
  // `dwarf` (not owned) rather than from the userstacktrace option.
  std::set<std::string> dwarf_stack_events;
  UserStackSource *dwarf = nullptr;
  // Batch ends an event waits for its DWARF stack (the unwinding thread
  // may lag behind the stream) before it goes on without it.
  int dwarf_wait_batches = 20;
};

class StackJoin : public EventSink {
 public:
  static constexpr size_t kMaxHeld = 4096;
  static constexpr size_t kMaxHeldForDwarf = 1 << 16;
  // `downstream` is not owned.
  StackJoin(StackJoinOptions options, EventSink *downstream);

  Status on_start(const StreamInfo &info) override { return downstream_->on_start(info); }
  bool wants_events() const override { return downstream_->wants_events(); }
  bool wants_pages() const override { return downstream_->wants_pages(); }
  Status on_page(int cpu, std::span<const uint8_t> page) override { return downstream_->on_page(cpu, page); }
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override { downstream_->on_lost(cpu, count); }
  Status on_batch_end() override;
  Status on_finish() override;

 private:
  struct Held {
    Event event;
    uint64_t serial = 0;
    bool wants_kernel = false, wants_user = false;
    bool wants_dwarf = false;  // waits for its DWARF user stack
    bool ready = false;        // its ftrace stacks are in (or will not come)
    bool forced = false;       // goes on now, with what it has
    int batches = 0;  // batch ends it has waited over
  };
  Held *held_on(int cpu);
  void add_frames(Held &held, const Event &stack_event, bool user);
  // Puts the DWARF stack on `held` when it is in.
  void try_dwarf(Held &held, bool last = false);
  // Forced, or with all its stacks and its frames' symbols at hand.
  bool releasable(const Held &held) const;
  Status release_ready();
  Status release_all();
  Status forward(Held &held);

  // The held events, oldest first: a ring of slots that are reused, so
  // that holding an event copies into storage it already has (a report of
  // millions of events allocates nothing per event).
  Held &held(size_t i) { return ring_[(head_ + i) % ring_.size()]; }
  Held &push_held();
  void pop_held();

  StackJoinOptions options_;
  EventSink *downstream_;
  std::vector<Held> ring_;
  size_t head_ = 0, count_ = 0;
  uint64_t next_serial_ = 0;
  size_t dwarf_waiting_ = 0;  // held events that want their DWARF stack still
  std::unordered_map<int, uint64_t> last_on_cpu_;  // cpu -> serial of its newest held event
  std::string key_;
};

}  // namespace kpp
