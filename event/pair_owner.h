// Who the entry and the return of a latency pair belong to: a return is
// matched with the latest open entry of the same owner. The thread for C,
// C++ and Rust; for Go the goroutine, which the scheduler moves between
// threads while a call runs (a return seen on another thread than its entry
// would be left unmatched, and a call on the thread that picked up another
// goroutine mismatched). A probe on Go code carries the goroutine as its
// field `goroutine` (Go's g pointer, in r14 at a call and a return:
// src/definition/probe_builder.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "event/event.h"
#include "util/goroutine_field.h"

namespace kpp {

// The event's owner: its goroutine's g pointer, else its thread id.
inline uint64_t pair_owner(const Event &e) {
  if (const Field *g = e.field(goroutine_field); g && (g->value.kind == FieldKind::Hex || g->value.kind == FieldKind::Unsigned))
    return g->value.u;
  return static_cast<uint32_t>(e.pid);
}

// A latency pair's open entries of one owner.
struct PairOwner {
  size_t pair = 0;
  uint64_t owner = 0;
  bool operator==(const PairOwner &) const = default;
};

struct PairOwnerHash {
  size_t operator()(const PairOwner &k) const { return std::hash<uint64_t>{}(k.owner * 0x9e3779b97f4a7c15ull ^ k.pair); }
};

}  // namespace kpp
