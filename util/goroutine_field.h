// The field a probe on Go code carries the current goroutine in: Go's g
// pointer, which Go's register ABI keeps in r14 on x86-64 at a call and at a
// return (src/cmd/compile/abi-internal.md). The builder adds it
// (src/definition/probe_builder.cpp); latency pairs match a return with the
// entry of the same goroutine by it (event/pair_owner.h), since Go's
// scheduler moves a goroutine between threads while its call runs.
#pragma once

namespace kpp {

inline constexpr const char *goroutine_field = "goroutine";
inline constexpr const char *goroutine_fetch_x86_64 = "%r14";

}  // namespace kpp
