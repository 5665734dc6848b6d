// LatencyPairs: entry/return probe pairs and their latency histograms.
// A return is matched with the latest unmatched entry of the same owner, its
// thread or, for Go, its goroutine (event/pair_owner.h) (a stack per
// owner, so recursion pairs inner calls first), as funclatency does; a
// return with no entry of its owner is "unmatched".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "event/pair_owner.h"
#include "tui/log2_histogram.h"

namespace kpp::tui {

struct LatencyPair {
  std::string label;   // the function, e.g. "add"
  size_t entry = 0;    // probe indexes in the model
  size_t ret = 0;
  Log2Histogram hist;  // nanoseconds
  uint64_t calls = 0;  // matched returns
  uint64_t unmatched = 0;
  uint64_t max_ns = 0;
  uint64_t sum_ns = 0;
};

class LatencyPairs {
 public:
  // Entries deeper than this of one owner drop their oldest (a missed
  // return must not grow memory forever).
  static constexpr size_t kMaxDepth = 256;

  size_t add_pair(std::string label, size_t entry, size_t ret);
  // `owner`: pair_owner() of the event.
  void on_entry(size_t pair, uint64_t owner, uint64_t time_ns);
  void on_return(size_t pair, uint64_t owner, uint64_t time_ns);

  const std::vector<LatencyPair> &pairs() const { return pairs_; }

 private:
  std::vector<LatencyPair> pairs_;
  std::unordered_map<PairOwner, std::vector<uint64_t>, PairOwnerHash> open_;  // -> entry times
};

}  // namespace kpp::tui
