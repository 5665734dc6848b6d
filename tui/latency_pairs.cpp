#include "tui/latency_pairs.h"

namespace kpp::tui {

size_t LatencyPairs::add_pair(std::string label, size_t entry, size_t ret) {
  LatencyPair p;
  p.label = std::move(label);
  p.entry = entry;
  p.ret = ret;
  pairs_.push_back(std::move(p));
  return pairs_.size() - 1;
}

void LatencyPairs::on_entry(size_t pair, uint64_t owner, uint64_t time_ns) {
  auto &stack = open_[PairOwner{pair, owner}];
  if (stack.size() >= kMaxDepth) stack.erase(stack.begin());
  stack.push_back(time_ns);
}

void LatencyPairs::on_return(size_t pair, uint64_t owner, uint64_t time_ns) {
  LatencyPair &p = pairs_[pair];
  auto it = open_.find(PairOwner{pair, owner});
  if (it == open_.end() || it->second.empty()) {
    ++p.unmatched;
    return;
  }
  uint64_t start = it->second.back();
  it->second.pop_back();
  if (it->second.empty()) open_.erase(it);
  uint64_t ns = time_ns >= start ? time_ns - start : 0;
  p.hist.add(ns);
  ++p.calls;
  p.sum_ns += ns;
  if (ns > p.max_ns) p.max_ns = ns;
}

}  // namespace kpp::tui
