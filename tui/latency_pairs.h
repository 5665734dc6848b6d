// LatencyPairs: entry/return probe pairs and their latency histograms.
// A return is matched with the latest unmatched entry of the same thread
// (a stack per thread, so recursion pairs inner calls first), as
// funclatency does; a return with no entry on its thread is "unmatched".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

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
  // Entries deeper than this on one thread drop their oldest (a missed
  // return must not grow memory forever).
  static constexpr size_t kMaxDepth = 256;

  size_t add_pair(std::string label, size_t entry, size_t ret);
  void on_entry(size_t pair, int tid, uint64_t time_ns);
  void on_return(size_t pair, int tid, uint64_t time_ns);

  const std::vector<LatencyPair> &pairs() const { return pairs_; }

 private:
  std::vector<LatencyPair> pairs_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> open_;  // (pair << 32 | tid) -> entry times
};

}  // namespace kpp::tui
