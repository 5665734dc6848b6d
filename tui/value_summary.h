// ValueSummary: what one argument of one probe has been, for the Args pane.
// Strings, hex values (pointers, flags) and integers with few distinct
// values are shown as their most frequent values; integers that spread
// (sizes, lengths) as a log2 histogram of their magnitude.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "event/event.h"
#include "tui/log2_histogram.h"

namespace kpp::tui {

class ValueSummary {
 public:
  // Distinct values remembered; later new values only count as "other".
  static constexpr size_t kMaxDistinct = 4096;
  // Integers with at most this many distinct values are shown as top values.
  static constexpr size_t kTopValuesLimit = 16;

  void add(const FieldValue &value);

  enum class View { TopValues, Histogram };
  View view() const;

  // The `n` most frequent values, formatted, most frequent first (ties:
  // smaller value / earlier string first, so the order is stable).
  std::vector<std::pair<std::string, uint64_t>> top(size_t n) const;
  const Log2Histogram &histogram() const { return hist_; }
  uint64_t samples() const { return samples_; }
  uint64_t other() const { return other_; }      // values past kMaxDistinct
  uint64_t negative() const { return negative_; }  // signed values below 0 (histogram of |v|)

 private:
  FieldKind kind_ = FieldKind::Unsigned;
  std::unordered_map<uint64_t, uint64_t> numbers_;
  std::unordered_map<std::string, uint64_t> texts_;
  Log2Histogram hist_;
  uint64_t samples_ = 0, other_ = 0, negative_ = 0;
};

}  // namespace kpp::tui
