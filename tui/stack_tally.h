// StackTally: the distinct stacks one probe fired with (--stack), and how
// often each: what the live view's Stacks pane lists, most frequent first
// (bpftrace's @[kstack] = count(), kept in user space).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "event/event.h"

namespace kpp::tui {

class StackTally {
 public:
  // At most `max_stacks` distinct stacks are kept; later new ones are only counted (other()).
  explicit StackTally(size_t max_stacks = 512) : max_(max_stacks) {}

  // Counts the stack (its frames' labels, event/stack_format.h).
  void add(const std::vector<StackFrame> &stack);

  struct Entry {
    std::vector<std::string> frames;  // labels, innermost first
    uint64_t count = 0;
  };
  // The `n` most frequent, ties by their frames.
  std::vector<const Entry *> top(size_t n) const;
  size_t distinct() const { return entries_.size(); }
  uint64_t other() const { return other_; }

 private:
  size_t max_;
  std::unordered_map<std::string, Entry> entries_;  // by the labels joined
  uint64_t other_ = 0;
  std::string key_;
};

}  // namespace kpp::tui
