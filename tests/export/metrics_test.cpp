// The exporter's pure parts: power-of-two buckets, the Prometheus text of a
// registry (exact, as a scraper reads it), latency pairing by definitions,
// and the sink that turns events into metrics.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "src/export/export_sink.h"
#include "src/export/metrics_text.h"
#include "src/export/power_histogram.h"
#include "tests/common/test_events.h"

namespace kpp {
namespace {

TEST(PowerHistogram, AValueLandsUnderTheFirstBoundNotBelowIt) {
  // le is inclusive: 4 is under le="4", 5 under le="8".
  EXPECT_EQ(PowerHistogram::bucket_of(0), 0);
  EXPECT_EQ(PowerHistogram::bucket_of(1), 1);
  EXPECT_EQ(PowerHistogram::bucket_of(2), 2);
  EXPECT_EQ(PowerHistogram::bucket_of(3), 3);
  EXPECT_EQ(PowerHistogram::bucket_of(4), 3);
  EXPECT_EQ(PowerHistogram::bucket_of(5), 4);
  EXPECT_EQ(PowerHistogram::bucket_of(uint64_t{1} << 63), 64);
  EXPECT_EQ(PowerHistogram::bucket_of(UINT64_MAX), 65);
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{1000}, uint64_t{1} << 40}) {
    int b = PowerHistogram::bucket_of(v);
    EXPECT_LE(static_cast<double>(v), PowerHistogram::upper_bound(b)) << v;
    if (b > 0) EXPECT_GT(static_cast<double>(v), PowerHistogram::upper_bound(b - 1)) << v;
  }
}

TEST(PowerHistogram, NegativeValuesCountUnderZero) {
  PowerHistogram h;
  h.add_signed(-5);
  h.add_signed(3);
  EXPECT_EQ(h.count(0), 1u);
  EXPECT_EQ(h.count(3), 1u);
  EXPECT_EQ(h.total(), 2u);
  EXPECT_EQ(h.sum(), -2.0);
  EXPECT_EQ(h.last(), 3);
}

TEST(MetricsText, RendersEveryFamilyAsPrometheusReadsIt) {
  MetricsRegistry r;
  r.declare_event({"probe_prog", "work"});
  r.declare_event({"probe_prog", "silent"});
  r.add_hit({"probe_prog", "work"});
  r.add_hit({"probe_prog", "work"});
  r.set_misses({"probe", "vfs_read"}, 7);
  r.declare_cpus(2);
  r.add_lost(1, 12);
  r.add_lost(1, -1);
  size_t pair = r.add_latency_pair("probe_prog", "work", "work__return");
  r.add_latency(pair, 1000);  // 1 us: under 1.024e-06
  r.add_latency(pair, 1500);  // under 2.048e-06
  r.add_unmatched(pair);
  r.add_arg_value({"probe_prog", "work", "n"}, uint64_t{3});
  r.add_arg_value({"probe_prog", "work", "n"}, int64_t{-1});
  std::string text = render_metrics(r);

  EXPECT_NE(text.find("# TYPE kprobe_probe_hits_total counter\n"
                      "kprobe_probe_hits_total{group=\"probe\",event=\"vfs_read\"} 0\n"
                      "kprobe_probe_hits_total{group=\"probe_prog\",event=\"silent\"} 0\n"
                      "kprobe_probe_hits_total{group=\"probe_prog\",event=\"work\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kprobe_probe_misses_total{group=\"probe\",event=\"vfs_read\"} 7\n"), std::string::npos);
  EXPECT_EQ(text.find("kprobe_probe_misses_total{group=\"probe_prog\""), std::string::npos) << "uprobes have no misses";
  EXPECT_NE(text.find("kprobe_probe_lost_events_total{cpu=\"0\"} 0\n"
                      "kprobe_probe_lost_events_total{cpu=\"1\"} 12\n"),
            std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_lost_unknown_total{cpu=\"1\"} 1\n"), std::string::npos);
  // Cumulative buckets from le=0 up to the highest one used, then +Inf.
  const std::string lat = "kprobe_probe_latency_seconds_bucket{group=\"probe_prog\",entry=\"work\",return=\"work__return\",";
  EXPECT_NE(text.find(lat + "le=\"0\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(lat + "le=\"5.12e-07\"} 0\n" + lat + "le=\"1.024e-06\"} 1\n" + lat + "le=\"2.048e-06\"} 2\n" +
                      lat + "le=\"+Inf\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kprobe_probe_latency_seconds_sum{group=\"probe_prog\",entry=\"work\",return=\"work__return\"} 2.5e-06\n"
                      "kprobe_probe_latency_seconds_count{group=\"probe_prog\",entry=\"work\",return=\"work__return\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_unmatched_returns_total{group=\"probe_prog\",entry=\"work\",return=\"work__return\"} 1\n"),
            std::string::npos);
  const std::string arg = "kprobe_probe_arg_bucket{group=\"probe_prog\",event=\"work\",arg=\"n\",";
  EXPECT_NE(text.find(arg + "le=\"0\"} 1\n" + arg + "le=\"1\"} 1\n" + arg + "le=\"2\"} 1\n" + arg + "le=\"4\"} 2\n" + arg +
                      "le=\"+Inf\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kprobe_probe_arg_sum{group=\"probe_prog\",event=\"work\",arg=\"n\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE kprobe_probe_arg histogram\n"), std::string::npos);
}

TEST(MetricsText, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  MetricsRegistry r;
  r.add_hit({"g", "e\"vil"});
  EXPECT_NE(render_metrics(r).find("event=\"e\\\"vil\"} 1\n"), std::string::npos);
}

Event event(const std::string &name, int pid, uint64_t t, int64_t n = 0) {
  Event e = test_events::test_event("g", name, pid, t);
  e.fields.push_back(test_events::signed_field("n", n));
  return e;
}

TEST(ExportSink, ReturnsMatchTheLatestEntryOfTheirThread) {
  ExportPlan plan;
  plan.events = {{"g", "in"}, {"g", "out"}};
  plan.pairs = {{{"g", "in"}, {"g", "out"}}};
  plan.hist_args = {"n"};
  ExportSink sink(plan);
  StreamInfo info;
  info.cpus = 1;
  ASSERT_TRUE(sink.on_start(info));
  // Thread 1 recurses: in@100, in@200, out@250 (inner: 50), out@1100 (outer: 1000).
  // Thread 2 interleaves: in@150, out@3150 (3000). A return with no entry is unmatched.
  for (const Event &e : {event("in", 1, 100, 4), event("in", 1, 200, 4), event("in", 2, 150, -3), event("out", 1, 250),
                         event("out", 1, 1100), event("out", 2, 3150), event("out", 3, 4000)})
    ASSERT_TRUE(sink.on_event(e));
  sink.on_lost(0, 5);
  std::string text = sink.render();
  const std::string lat = "kprobe_probe_latency_seconds_bucket{group=\"g\",entry=\"in\",return=\"out\",";
  EXPECT_NE(text.find(lat + "le=\"6.4e-08\"} 1\n"), std::string::npos) << text;      // 50 ns
  EXPECT_NE(text.find(lat + "le=\"1.024e-06\"} 2\n"), std::string::npos) << text;    // 1000 ns
  EXPECT_NE(text.find(lat + "le=\"4.096e-06\"} 3\n"), std::string::npos) << text;    // 3000 ns
  EXPECT_NE(text.find("kprobe_probe_latency_seconds_sum{group=\"g\",entry=\"in\",return=\"out\"} 4.05e-06\n"),
            std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_unmatched_returns_total{group=\"g\",entry=\"in\",return=\"out\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_hits_total{group=\"g\",event=\"in\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_hits_total{group=\"g\",event=\"out\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_lost_events_total{cpu=\"0\"} 5\n"), std::string::npos);
  // n of every event that has it: 4, 4, -3 and 0 for each "out".
  EXPECT_NE(text.find("kprobe_probe_arg_count{group=\"g\",event=\"in\",arg=\"n\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kprobe_probe_arg_bucket{group=\"g\",event=\"in\",arg=\"n\",le=\"0\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("kprobe_probe_arg_bucket{group=\"g\",event=\"in\",arg=\"n\",le=\"4\"} 3\n"), std::string::npos);
}

TEST(ExportSink, AThreadThatNeverReturnsDoesNotGrowMemoryForever) {
  ExportPlan plan;
  plan.pairs = {{{"g", "in"}, {"g", "out"}}};
  ExportSink sink(plan);
  for (uint64_t i = 0; i < ExportSink::kMaxDepth + 10; ++i) ASSERT_TRUE(sink.on_event(event("in", 1, i)));
  // The oldest entries were dropped: only kMaxDepth returns match.
  for (uint64_t i = 0; i < ExportSink::kMaxDepth + 10; ++i) ASSERT_TRUE(sink.on_event(event("out", 1, 10000)));
  std::string text = sink.render();
  EXPECT_NE(text.find("kprobe_probe_latency_seconds_count{group=\"g\",entry=\"in\",return=\"out\"} " +
                      std::to_string(ExportSink::kMaxDepth) + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kprobe_probe_unmatched_returns_total{group=\"g\",entry=\"in\",return=\"out\"} 10\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kpp
