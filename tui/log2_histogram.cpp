#include "tui/log2_histogram.h"

#include <bit>

namespace kpp::tui {

int Log2Histogram::bucket_of(uint64_t value) { return value == 0 ? 0 : 64 - std::countl_zero(value); }

uint64_t Log2Histogram::bucket_low(int b) { return b == 0 ? 0 : uint64_t{1} << (b - 1); }

uint64_t Log2Histogram::bucket_high(int b) {
  if (b == 0) return 0;
  if (b == 64) return ~uint64_t{0};
  return (uint64_t{1} << b) - 1;
}

void Log2Histogram::add(uint64_t value) {
  ++counts_[static_cast<size_t>(bucket_of(value))];
  ++total_;
}

int Log2Histogram::first() const {
  for (int b = 0; b < kBuckets; ++b)
    if (counts_[static_cast<size_t>(b)]) return b;
  return -1;
}

int Log2Histogram::last() const {
  for (int b = kBuckets - 1; b >= 0; --b)
    if (counts_[static_cast<size_t>(b)]) return b;
  return -1;
}

}  // namespace kpp::tui
