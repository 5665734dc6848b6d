// Throughput benchmark (not a test): the fixture fires its uprobe in a tight
// loop on every CPU at once; a session consumes as `trace` (text to
// /dev/null), `json`, `record` (trace.dat in /tmp) or `count` (no sink).
// Prints events produced/consumed, lost, rate and the consumer's CPU use.
//   kpp_stream_bench MODE [CALLS_PER_CPU]        (root)
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "src/output/printer_sink.h"
#include "src/stream/session.h"
#include "src/tracedat/tracedat_writer.h"
#include "tests/stream/uprobe_helper.h"

using namespace kpp;

static double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "trace";
  long calls = argc > 2 ? std::atol(argv[2]) : 200000;
  if (auto why = test::kernel_skip_reason(); !why.empty()) {
    std::fprintf(stderr, "skip: %s\n", why.c_str());
    return 0;
  }
  test::FixtureUprobe probe(test::fixture_path(), "bench");
  if (!probe.ok()) {
    std::fprintf(stderr, "cannot create uprobe: %s\n", probe.error().c_str());
    return 1;
  }
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  std::string script;
  for (long c = 0; c < ncpu; ++c)
    script += "taskset -c " + std::to_string(c) + " " + test::fixture_path() + " bench " + std::to_string(calls) + " >/dev/null & ";
  script += "wait";
  SessionOptions o;
  o.events = {probe.pattern()};
  o.command = {"/bin/sh", "-c", script};
  std::FILE *devnull = std::fopen("/dev/null", "w");
  std::unique_ptr<EventSink> sink;
  std::string dat = "/tmp/kpp-bench-" + std::to_string(getpid()) + ".dat";
  if (mode == "trace") sink = std::make_unique<PrinterSink>(PrintFormat::Text, devnull);
  else if (mode == "json") sink = std::make_unique<PrinterSink>(PrintFormat::Json, devnull);
  else if (mode == "record") {
    auto w = TraceDatWriter::create(dat);
    if (!w) return 1;
    sink = std::move(*w);
  }
  std::vector<EventSink *> sinks;
  if (sink) sinks.push_back(sink.get());
  double cpu0 = cpu_seconds();
  auto sum = run_session(o, sinks);
  double cpu = cpu_seconds() - cpu0;
  if (!sum) {
    std::fprintf(stderr, "error: %s\n", sum.error().message.c_str());
    return 1;
  }
  uint64_t lost = 0;
  for (auto l : sum->lost_per_cpu) lost += l;
  std::printf("mode=%s produced=%ld consumed=%llu lost=%llu seconds=%.2f events/s=%.0f (%.0f per CPU) consumer_cpu=%.2fs (%.1f%% of one core) bytes=%llu\n",
              mode.c_str(), calls * ncpu, (unsigned long long)sum->events, (unsigned long long)lost, sum->seconds,
              sum->events / sum->seconds, sum->events / sum->seconds / ncpu, cpu, 100 * cpu / sum->seconds,
              (unsigned long long)sum->bytes_read);
  for (const auto &w : sum->warnings) std::printf("warning: %s\n", w.c_str());
  std::remove(dat.c_str());
  return 0;
}
