#include "tui/stack_tally.h"

#include <algorithm>

#include "event/stack_format.h"

namespace kpp::tui {

void StackTally::add(const std::vector<StackFrame> &stack) {
  key_.clear();
  for (const StackFrame &f : stack) key_.append(frame_label(f)).append(1, '\n');
  auto it = entries_.find(key_);
  if (it == entries_.end()) {
    if (entries_.size() >= max_) {
      ++other_;
      return;
    }
    Entry e;
    for (const StackFrame &f : stack) e.frames.push_back(frame_label(f));
    it = entries_.emplace(key_, std::move(e)).first;
  }
  ++it->second.count;
}

std::vector<const StackTally::Entry *> StackTally::top(size_t n) const {
  std::vector<const Entry *> all;
  all.reserve(entries_.size());
  for (const auto &[key, e] : entries_) all.push_back(&e);
  auto by_count = [](const Entry *a, const Entry *b) { return a->count != b->count ? a->count > b->count : a->frames < b->frames; };
  size_t k = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), by_count);
  all.resize(k);
  return all;
}

}  // namespace kpp::tui
