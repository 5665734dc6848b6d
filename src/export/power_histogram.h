// PowerHistogram: counts of values under power-of-two upper bounds, the
// shape of a Prometheus histogram with buckets le="0", "1", "2", "4", ...
// Bucket 0 holds v <= 0; bucket k >= 1 holds 2^(k-2) < v <= 2^(k-1), so a
// value lands in the first bucket whose bound is >= it, as Prometheus's
// cumulative `le` counts need. 2^64 - 1 lands in the last one (le = 2^64).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kpp {

class PowerHistogram {
 public:
  static constexpr int kBuckets = 66;

  void add(uint64_t value);
  // Negative values count in bucket 0 (le="0") and in the sum.
  void add_signed(int64_t value);

  // The bucket index of `value`, and the upper bound of bucket `b` (0, 1, 2, 4, ... 2^64).
  static int bucket_of(uint64_t value);
  static double upper_bound(int b);

  uint64_t count(int b) const { return counts_[static_cast<size_t>(b)]; }
  uint64_t total() const { return total_; }
  double sum() const { return sum_; }
  // The highest bucket that has ever held a value; -1 when empty. Buckets are
  // rendered up to it, so the set only grows from one scrape to the next.
  int last() const { return last_; }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
  double sum_ = 0;
  int last_ = -1;
};

}  // namespace kpp
