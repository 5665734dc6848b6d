// A hash map from 64-bit keys (DIE offsets, string addresses) to 32-bit
// values, for the passes that ask it tens of thousands of times in a row:
// one array probed linearly, no allocation per entry, no key bytes read.
// (An LTO python3.11's 62,000 functions are each named through a DIE of
// another unit; a binary search per function over the file's 21,000 names
// cost 4 ms, std::unordered_map's allocations about as much.)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace kpp {

class OffsetMap {
 public:
  // Room for `expected` keys without growing.
  explicit OffsetMap(size_t expected) {
    size_t capacity = 16;
    while (capacity < expected * 2) capacity *= 2;
    slots_.resize(capacity);
    mask_ = capacity - 1;
  }

  // Stores `value` for `key` unless the key is there already; returns the
  // value the map holds for `key` then.
  uint32_t insert(uint64_t key, uint32_t value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    Slot &s = slots_[slot_for(key)];
    if (!s.used) {
      s = {key, value, true};
      ++count_;
    }
    return s.value;
  }

  std::optional<uint32_t> find(uint64_t key) const {
    const Slot &s = slots_[slot_for(key)];
    if (!s.used) return std::nullopt;
    return s.value;
  }

  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t key = 0;
    uint32_t value = 0;
    bool used = false;
  };

  // The index of the slot that holds `key`, or of the empty one where it
  // would go. The table is never more than half full, so the probe ends.
  size_t slot_for(uint64_t key) const {
    // Fibonacci hashing: offsets that differ in their low bits spread out.
    size_t i = static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask_;
    return i;
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    mask_ = slots_.size() - 1;
    for (const Slot &s : old)
      if (s.used) slots_[slot_for(s.key)] = s;
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace kpp
