// CLOCK_MONOTONIC in nanoseconds: the clock of tracefs's "mono" trace clock
// and of the perf samples opened with it, so times from both compare.
#pragma once

#include <time.h>

#include <cstdint>

namespace kpp {

inline uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace kpp
