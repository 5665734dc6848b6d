#include "src/export/power_histogram.h"

#include <bit>
#include <cmath>

namespace kpp {

int PowerHistogram::bucket_of(uint64_t value) { return value == 0 ? 0 : 1 + std::bit_width(value - 1); }

double PowerHistogram::upper_bound(int b) { return b == 0 ? 0.0 : std::ldexp(1.0, b - 1); }

void PowerHistogram::add(uint64_t value) {
  int b = bucket_of(value);
  ++counts_[static_cast<size_t>(b)];
  ++total_;
  sum_ += static_cast<double>(value);
  if (b > last_) last_ = b;
}

void PowerHistogram::add_signed(int64_t value) {
  if (value >= 0) return add(static_cast<uint64_t>(value));
  ++counts_[0];
  ++total_;
  sum_ += static_cast<double>(value);
  if (last_ < 0) last_ = 0;
}

}  // namespace kpp
