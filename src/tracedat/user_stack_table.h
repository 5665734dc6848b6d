// UserStackTable: the user stacks `record --stack` unwound from DWARF
// (dwarf_user_stacks.h), kept in the trace.dat beside the ring-buffer pages
// so that `report` shows them.
//
// The kernel writes no such stack into the ring buffer (perf samples the
// hit, kprobe-probe unwinds it in user space), so the recording stores
// each event's frames in an option of its own (kOptionUserStacks), keyed
// by what report decodes again from the pages: the event's time, CPU and
// thread id. The frames are stored named (function, offset, file:line,
// inlined, object) as the recording's symbolizer named them while the
// processes were alive: report needs neither the processes nor their
// binaries, and a file read on another machine shows the same stacks.
// Stacks repeat, so each distinct stack and string is stored once.
//
// The option is read back from a file that may be hostile: decode() checks
// every count, size and index against the payload and refuses what does not
// fit, never reading past it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "event/event.h"
#include "src/stream/event_sink.h"
#include "util/result.h"

namespace kpp {

class PayloadReader;  // user_stack_table.cpp

class UserStackTable {
 public:
  // Keeps `event`'s user frames (none: nothing is kept).
  void add(const Event &event);
  bool empty() const { return entries_.empty(); }
  size_t events() const { return entries_.size(); }

  // The option's payload, and back. decode() errors say what does not fit.
  std::string encode() const;
  std::string encode_if_any() const { return empty() ? std::string() : encode(); }
  static Result<UserStackTable> decode(std::string_view payload);

  // The frames recorded for `event` (its time, CPU and thread), to follow
  // its own; nullopt when none were. Each recorded stack goes to one event.
  std::optional<std::vector<StackFrame>> take(const Event &event);

 private:
  struct Frame {
    uint64_t ip = 0, off = 0;
    uint32_t sym = 0, file = 0, object = 0;  // string ids
    int32_t line = 0;
    uint8_t flags = 0;  // kUser, kInlined
  };
  struct Entry {
    uint64_t time_ns = 0;
    int32_t cpu = 0, pid = 0;
    uint32_t stack = 0;
  };
  static constexpr uint8_t kUser = 1, kInlined = 2;
  uint32_t string_id(const std::string &s);
  static void put_frame(std::string &out, const Frame &f);
  uint32_t stack_id(std::vector<Frame> frames);
  StackFrame frame_of(const Frame &f) const;
  Status decode_strings(PayloadReader &in);
  Status decode_stacks(PayloadReader &in);
  Status decode_entries(PayloadReader &in);

  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> string_ids_;
  std::vector<std::vector<Frame>> stacks_;
  std::unordered_map<std::string, uint32_t> stack_ids_;  // by the stack's bytes
  std::vector<Entry> entries_;  // by time, once decoded
  std::vector<bool> taken_;
};

// Puts the recorded user stacks on the events passing to `downstream`
// (not owned), as report reads a trace.dat back.
class RecordedUserStacks : public EventSink {
 public:
  RecordedUserStacks(UserStackTable table, EventSink *downstream)
      : table_(std::move(table)), downstream_(downstream) {}
  Status on_start(const StreamInfo &info) override { return downstream_->on_start(info); }
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override { downstream_->on_lost(cpu, count); }
  Status on_batch_end() override { return downstream_->on_batch_end(); }
  Status on_finish() override { return downstream_->on_finish(); }

 private:
  UserStackTable table_;
  EventSink *downstream_;
  Event with_stack_;  // reused
};

}  // namespace kpp
