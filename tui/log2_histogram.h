// Log2Histogram: counts of values in power-of-two buckets, as funclatency
// and bpftrace's hist() draw them. Bucket 0 holds 0; bucket b >= 1 holds
// [2^(b-1), 2^b - 1], so 1 -> b1, 2..3 -> b2, 4..7 -> b3, 256..511 -> b9.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kpp::tui {

class Log2Histogram {
 public:
  static constexpr int kBuckets = 65;

  void add(uint64_t value);
  static int bucket_of(uint64_t value);
  // Smallest and largest value bucket `b` holds.
  static uint64_t bucket_low(int b);
  static uint64_t bucket_high(int b);

  uint64_t count(int b) const { return counts_[static_cast<size_t>(b)]; }
  uint64_t total() const { return total_; }
  // The lowest and highest non-empty buckets; -1 when empty.
  int first() const;
  int last() const;

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace kpp::tui
