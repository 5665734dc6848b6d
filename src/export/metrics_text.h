// The Prometheus text exposition format (version 0.0.4, which every
// Prometheus and the OpenMetrics parsers read) for a MetricsRegistry.
#pragma once

#include <string>

#include "src/export/metrics_registry.h"

namespace kpp {

// The Content-Type a /metrics response carries with render_metrics' text.
inline constexpr const char *kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Every metric family with its HELP and TYPE lines, series sorted by label:
//   kprobe_probe_hits_total{group,event}          counter
//   kprobe_probe_misses_total{group,event}        counter (kprobes only)
//   kprobe_probe_lost_events_total{cpu}           counter
//   kprobe_probe_lost_unknown_total{cpu}          counter
//   kprobe_probe_latency_seconds{group,entry,return}  histogram (le = 2^k ns)
//   kprobe_probe_unmatched_returns_total{group,entry,return}  counter
//   kprobe_probe_arg{group,event,arg}             histogram (le = 0, 1, 2, 4, ...)
std::string render_metrics(const MetricsRegistry &registry);

// A label value with \, " and newline escaped as the format requires.
std::string escape_label_value(const std::string &value);

}  // namespace kpp
