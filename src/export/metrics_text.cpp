#include "src/export/metrics_text.h"

#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

namespace kpp {

namespace {

using Labels = std::vector<std::pair<const char *, std::string>>;

// The shortest text that reads back as `v` ("1.024e-06", "0.5", "3"), which
// Prometheus parses as a float; "+Inf" for infinity.
std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : "NaN";
}

class Writer {
 public:
  void family(const char *name, const char *type, const char *help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }

  void sample(const std::string &name, const Labels &labels, const std::string &value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i) out_ += ',';
        out_ += labels[i].first;
        out_ += "=\"";
        out_ += escape_label_value(labels[i].second);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    out_ += value;
    out_ += '\n';
  }

  void sample(const std::string &name, const Labels &labels, uint64_t value) {
    sample(name, labels, std::to_string(value));
  }

  // _bucket lines up to the highest bucket ever used, then +Inf, _sum and
  // _count. Values are divided by `per_unit` (1e9: nanoseconds to seconds;
  // a division, so 1024 ns prints as 1.024e-06 exactly).
  void histogram(const std::string &name, Labels labels, const PowerHistogram &h, double per_unit) {
    uint64_t cumulative = 0;
    labels.emplace_back("le", "");
    for (int b = 0; b <= h.last(); ++b) {
      cumulative += h.count(b);
      labels.back().second = number(PowerHistogram::upper_bound(b) / per_unit);
      sample(name + "_bucket", labels, cumulative);
    }
    labels.back().second = "+Inf";
    sample(name + "_bucket", labels, h.total());
    labels.pop_back();
    sample(name + "_sum", labels, number(h.sum() / per_unit));
    sample(name + "_count", labels, h.total());
  }

  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::string escape_label_value(const std::string &value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string render_metrics(const MetricsRegistry &registry) {
  Writer w;
  w.family("kprobe_probe_hits_total", "counter", "Probe hits the exporter read from its ring buffer, per event.");
  for (const auto &[key, c] : registry.events())
    w.sample("kprobe_probe_hits_total", {{"group", key.group}, {"event", key.event}}, c.hits);

  w.family("kprobe_probe_misses_total", "counter",
           "Kprobe hits the kernel missed (kprobe_profile), per event; uprobes report none.");
  for (const auto &[key, c] : registry.events())
    if (c.has_misses) w.sample("kprobe_probe_misses_total", {{"group", key.group}, {"event", key.event}}, c.misses);

  w.family("kprobe_probe_lost_events_total", "counter",
           "Events the kernel dropped because the exporter's ring buffer was full, per CPU.");
  for (const auto &[cpu, c] : registry.lost())
    w.sample("kprobe_probe_lost_events_total", {{"cpu", std::to_string(cpu)}}, c.events);
  w.family("kprobe_probe_lost_unknown_total", "counter",
           "Times the kernel dropped events without saying how many, per CPU.");
  for (const auto &[cpu, c] : registry.lost())
    w.sample("kprobe_probe_lost_unknown_total", {{"cpu", std::to_string(cpu)}}, c.unknown);

  w.family("kprobe_probe_latency_seconds", "histogram",
           "Time from an entry probe to the return probe of the same function on the same thread.");
  for (const LatencyMetric &m : registry.latency())
    w.histogram("kprobe_probe_latency_seconds", {{"group", m.group}, {"entry", m.entry}, {"return", m.ret}}, m.ns, 1e9);
  w.family("kprobe_probe_unmatched_returns_total", "counter",
           "Return probe hits with no entry hit on their thread (the entry came before the exporter started).");
  for (const LatencyMetric &m : registry.latency())
    w.sample("kprobe_probe_unmatched_returns_total", {{"group", m.group}, {"entry", m.entry}, {"return", m.ret}},
             m.unmatched);

  w.family("kprobe_probe_arg", "histogram", "Values of the probe arguments chosen with --hist, in power-of-two buckets.");
  for (const auto &[key, h] : registry.args())
    w.histogram("kprobe_probe_arg", {{"group", key.group}, {"event", key.event}, {"arg", key.arg}}, h, 1.0);
  return w.take();
}

}  // namespace kpp
