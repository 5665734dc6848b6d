// The two halves of parse_probe_spec, each working on one whitespace-separated
// token of the spec. Internal to src/spec.
#pragma once

#include <cstddef>
#include <string_view>

#include "src/spec/probe_spec.h"
#include "src/util/result.h"

namespace kpp::spec_detail {

// perf's MAX_EVENT_NAME_LEN: group and event names live in 64-byte buffers,
// NUL included, in perf and in the kernel's trace_probe.c.
inline constexpr size_t kMaxEventNameLen = 64;

// perf's MAX_PROBE_ARGS (and the kernel's MAX_TRACE_ARGS).
inline constexpr size_t kMaxProbeArgs = 128;

// Parses spec[begin, end), the first token: [[GROUP:]EVENT=]POINT. Fills
// out.group, out.event and out.point; errors point into `spec`.
Status parse_point_token(std::string_view spec, size_t begin, size_t end, ProbeSpec &out);

// Parses spec[begin, end) as one ARG. Errors point into `spec`. A variable
// after %return is left to the resolver: a Go function's results are read
// by name at its returns; elsewhere it refuses them as perf does.
Result<ProbeArg> parse_arg_token(std::string_view spec, size_t begin, size_t end);

}  // namespace kpp::spec_detail
