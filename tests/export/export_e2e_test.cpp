// `kprobe-probe export` end to end: the real binary serves the hits,
// latencies and argument values of real uprobes on a fixture whose calls,
// arguments and minimum latencies are known from its source; promtool
// checks the text; a real Prometheus scrapes it and its HTTP API returns the
// hit count. Each test uses its own group kpptest_export_<pid>_<n> and
// leaves none of it behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/run_program.h"
#include "background_process.h"
#include "http_client.h"
#include "slow_clients.h"

namespace {

const std::string kpp_bin = KPP_BIN;
const std::string fixture = KPP_EXPORT_FIXTURE;

std::string tracing_dir() {
  for (const char *d : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (access((std::string(d) + "/uprobe_events").c_str(), F_OK) == 0) return d;
  return "";
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

// The value of the sample `series` (name and labels exactly as rendered).
std::optional<double> sample(const std::string &text, const std::string &series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  return std::nullopt;
}

std::string url_encode(const std::string &s) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '_' || c == '-' || c == '.') out += static_cast<char>(c);
    else out += {'%', hex[c >> 4], hex[c & 15]};
  }
  return out;
}

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "export tests put uprobes and need root";
    if (tracing_dir().empty()) GTEST_SKIP() << "no uprobe_events in tracefs (kernel without CONFIG_UPROBE_EVENTS?)";
    static int counter = 0;
    group_ = "kpptest_export_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
    char dir[] = "/tmp/kpp-export-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    tmp_ = dir;
  }

  void TearDown() override {
    exporter_.reset();
    if (!group_.empty() && slurp(tracing_dir() + "/uprobe_events").find(group_ + "/") != std::string::npos) {
      run_result r = run_program({kpp_bin, "-q", "-d", group_ + ":*"});
      EXPECT_EQ(r.status, 0) << describe(r);
    }
    if (!group_.empty()) EXPECT_EQ(slurp(tracing_dir() + "/uprobe_events").find(group_ + "/"), std::string::npos);
    if (!tmp_.empty()) std::filesystem::remove_all(tmp_);
  }

  // work's entry with its argument, and its return.
  void add_probes() {
    run_result r = run_program({kpp_bin, "-q", "-x", fixture, "-a", group_ + ":work=work n", "-a",
                                group_ + ":work_ret=work%return r=$retval"});
    ASSERT_EQ(r.status, 0) << describe(r);
  }

  // Starts `export` on a port of the kernel's choice; returns the port.
  uint16_t start_exporter() {
    exporter_ = std::make_unique<background_process>(
        std::vector<std::string>{kpp_bin, "export", "-e", group_ + ":*", "--listen", "127.0.0.1:0", "--hist", "n"},
        tmp_ + "/exporter");
    std::smatch m;
    static const std::regex serving(R"(serving metrics at http://127\.0\.0\.1:([0-9]+)/metrics)");
    bool up = exporter_->wait_for(
        [&] {
          std::string err = exporter_->err();
          return std::regex_search(err, m, serving);
        },
        30);
    if (!up) {
      ADD_FAILURE() << "the exporter did not say where it serves:\n" << exporter_->err();
      return 0;
    }
    return static_cast<uint16_t>(std::stoi(m[1].str()));
  }

  // A Prometheus on 127.0.0.1:`prom_port` scraping the exporter at `port`
  // every second (`global` adds settings), once it is ready; null if it does not get ready.
  std::unique_ptr<background_process> start_prometheus(uint16_t port, uint16_t prom_port, const std::string &global) {
    std::ofstream(tmp_ + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n" << global
                                            << "scrape_configs:\n  - job_name: kpp\n    static_configs:\n"
                                            << "      - targets: ['127.0.0.1:" << port << "']\n";
    auto prometheus = std::make_unique<background_process>(
        std::vector<std::string>{"/usr/bin/prometheus", "--config.file=" + tmp_ + "/prometheus.yml",
                                 "--storage.tsdb.path=" + tmp_ + "/data",
                                 "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
        tmp_ + "/prometheus");
    if (prometheus->wait_for([&] { return http_get(prom_port, "/-/ready").status == 200; }, 60)) return prometheus;
    ADD_FAILURE() << "Prometheus did not get ready:\n" << prometheus->err();
    return nullptr;
  }

  std::string hits(const std::string &event) const {
    return "kprobe_probe_hits_total{group=\"" + group_ + "\",event=\"" + event + "\"}";
  }

  std::string group_;
  std::string tmp_;
  std::unique_ptr<background_process> exporter_;
};

TEST_F(Export, ServesHitsLatenciesAndArgumentsOfTheWorkload) {
  add_probes();
  uint16_t port = start_exporter();
  ASSERT_NE(port, 0);
  http_answer before = http_get(port, "/metrics");
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(sample(before.body, hits("work")), 0.0) << "a probe is listed before it fires\n" << before.body;
  EXPECT_EQ(sample(before.body, hits("work_ret")), 0.0);

  run_result work = run_program({fixture, "6"});  // work(1), work(2), ... work(32), 2 ms each
  ASSERT_EQ(work.status, 0) << describe(work);
  std::string body;
  ASSERT_TRUE(exporter_->wait_for(
      [&] {
        body = http_get(port, "/metrics").body;
        return sample(body, hits("work")) == 6.0 && sample(body, hits("work_ret")) == 6.0;
      },
      15))
      << body << exporter_->err();
  // The HTTP server library is loaded by the command that serves (and only then, see below):
  // by its working process, the child of the one started (src/cli/supervisor.h).
  std::ifstream maps("/proc/" + std::to_string(first_child(exporter_->pid())) + "/maps");
  std::string mapped((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  EXPECT_NE(mapped.find("libmicrohttpd.so"), std::string::npos) << "the exporter serves without libmicrohttpd?";

  std::string labels = "{group=\"" + group_ + "\",entry=\"work\",return=\"work_ret\"";
  EXPECT_EQ(sample(body, "kprobe_probe_latency_seconds_count" + labels + "}"), 6.0) << body;
  // Every call sleeps 2 ms: none is under 2^20 ns.
  EXPECT_EQ(sample(body, "kprobe_probe_latency_seconds_bucket" + labels + ",le=\"0.001048576\"}"), 0.0) << body;
  EXPECT_GE(*sample(body, "kprobe_probe_latency_seconds_sum" + labels + "}"), 6 * 0.002);
  // n = 1, 2, 4, ... 32: one value under each power-of-two bound.
  std::string arg = "kprobe_probe_arg_bucket{group=\"" + group_ + "\",event=\"work\",arg=\"n\",le=\"";
  for (int k = 0; k <= 5; ++k)
    EXPECT_EQ(sample(body, arg + std::to_string(1 << k) + "\"}"), k + 1.0) << "le=" << (1 << k) << "\n" << body;
  EXPECT_EQ(sample(body, "kprobe_probe_arg_sum{group=\"" + group_ + "\",event=\"work\",arg=\"n\"}"), 63.0);

  if (access("/usr/bin/promtool", X_OK) == 0) {
    std::ofstream(tmp_ + "/metrics.txt") << body;
    run_result check = run_program({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + tmp_ + "/metrics.txt"});
    EXPECT_EQ(check.status, 0) << "promtool refuses the text:\n" << describe(check);
  }

  pid_t pid = exporter_->pid();
  EXPECT_EQ(exporter_->stop(SIGTERM), 0) << exporter_->err();
  EXPECT_FALSE(std::filesystem::exists(tracing_dir() + "/instances/kprobe-probe-" + std::to_string(pid)))
      << "the exporter left its tracefs instance";
  EXPECT_EQ(http_get(port, "/metrics").status, 0) << "still served after the exporter ended";
}

// Every other command starts without the HTTP server library and the TLS
// libraries it loads (~1 ms of start-up), nor the debuginfod client (libcurl): the
// dynamic loader is asked to say which files it loads.
TEST(ExportLibraries, OtherCommandsStartWithoutTheHttpServerLibrary) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--version"}, {"-x", fixture, "-F"}}) {
    std::vector<std::string> argv{"/usr/bin/env", "LD_DEBUG=files", kpp_bin};
    argv.insert(argv.end(), args.begin(), args.end());
    run_result r = run_program(argv);
    ASSERT_EQ(r.status, 0) << describe(r);
    ASSERT_NE(r.err.find("file=libc.so.6"), std::string::npos) << "LD_DEBUG said nothing:\n" << r.err;
    for (const char *lib : {"libmicrohttpd", "libgnutls", "libdebuginfod", "libcurl"})
      EXPECT_EQ(r.err.find(lib), std::string::npos) << args[0] << " loads " << lib;
  }
}

TEST_F(Export, EndsWhenTheCommandExits) {
  add_probes();
  run_result r = run_program({kpp_bin, "export", "-e", group_ + ":*", "--listen", "127.0.0.1:0", "--", fixture, "3"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_NE(r.err.find("serving metrics at http://127.0.0.1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("6 events"), std::string::npos) << "3 calls, 3 returns\n" << r.err;
}

TEST_F(Export, BadListenAddressesAreRefusedBeforeAnythingStarts) {
  run_result r = run_program({kpp_bin, "export", "-e", group_ + ":*", "--listen", "127.0.0.1:http"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--listen: expected [HOST:]PORT"), std::string::npos) << r.err;
  r = run_program({kpp_bin, "export", "-e", group_ + ":*"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("export needs an address"), std::string::npos) << r.err;
  // A name is not looked up unless asked for; "0" is not every interface.
  r = run_program({kpp_bin, "export", "-e", group_ + ":*", "--listen", "no.such.host.invalid:9464"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'no.such.host.invalid' is not a numeric address"), std::string::npos) << r.err;
  r = run_program({kpp_bin, "export", "-e", group_ + ":*", "--listen-name", "--listen", "no.such.host.invalid:9464"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot listen on no.such.host.invalid:9464"), std::string::npos) << r.err;
  r = run_program({kpp_bin, "export", "-e", group_ + ":*", "--listen", "0:9464"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'0' is not a whole IPv4 address"), std::string::npos) << r.err;
}

TEST_F(Export, PrometheusScrapesTheHitCountTheWorkloadCaused) {
  if (access("/usr/bin/prometheus", X_OK) != 0)
    GTEST_SKIP() << "no /usr/bin/prometheus (Debian package prometheus; scripts/install-deps.sh --tests)";
  add_probes();
  uint16_t port = start_exporter();
  ASSERT_NE(port, 0);
  uint16_t prom_port = free_port();
  auto prometheus_server = start_prometheus(port, prom_port, "");
  ASSERT_TRUE(prometheus_server);
  background_process &prometheus = *prometheus_server;

  run_result work = run_program({fixture, "7"});
  ASSERT_EQ(work.status, 0) << describe(work);
  std::string query = "/api/v1/query?query=" + url_encode(hits("work"));
  static const std::regex value(R"re("value":\[[0-9.]+,"([0-9.e+]+)"\])re");
  std::string answer;
  bool seen = prometheus.wait_for(
      [&] {
        answer = http_get(prom_port, query).body;
        std::smatch m;
        return std::regex_search(answer, m, value) && m[1].str() == "7";
      },
      60);
  EXPECT_TRUE(seen) << "Prometheus's answer: " << answer << "\n" << prometheus.err().substr(0, 4000);
  EXPECT_EQ(prometheus.stop(SIGTERM, 20), 0);
}

TEST_F(Export, PrometheusScrapesWhileSlowClientsHoldConnectionsAndShutdownIsQuick) {
  if (access("/usr/bin/prometheus", X_OK) != 0)
    GTEST_SKIP() << "no /usr/bin/prometheus (Debian package prometheus; scripts/install-deps.sh --tests)";
  add_probes();
  uint16_t port = start_exporter();
  ASSERT_NE(port, 0);
  // 100 slow connections from 20 addresses (5 each, under the per-address
  // share), a byte each every 500 ms, for the whole test.
  auto attack = std::make_unique<slow_clients>(port, 100, 20, std::chrono::milliseconds(500));
  uint16_t prom_port = free_port();
  auto prometheus_server = start_prometheus(port, prom_port, "  scrape_timeout: 1s\n");
  ASSERT_TRUE(prometheus_server);
  background_process &prometheus = *prometheus_server;
  run_result work = run_program({fixture, "7"});
  ASSERT_EQ(work.status, 0) << describe(work);
  static const std::regex value(R"re("value":\[[0-9.]+,"([0-9.e+]+)"\])re");
  auto query = [&](const std::string &promql) {
    std::string answer = http_get(prom_port, "/api/v1/query?query=" + url_encode(promql)).body;
    std::smatch m;
    return std::regex_search(answer, m, value) ? m[1].str() : "none: " + answer;
  };
  EXPECT_TRUE(prometheus.wait_for([&] { return query(hits("work")) == "7"; }, 60)) << query(hits("work"));
  // Over two of the exporter's request deadlines: every scrape came back.
  std::this_thread::sleep_for(std::chrono::seconds(12));
  std::string scrapes = query("count_over_time(up{job=\"kpp\"}[10s])");
  EXPECT_EQ(query("min_over_time(up{job=\"kpp\"}[10s])"), "1") << "scrapes in the last 10 s: " << scrapes;
  EXPECT_GE(std::stoi(scrapes), 8) << scrapes;
  EXPECT_GT(attack->opened(), 100) << "the server never cut a slow connection";
  // Ends within a second with the slow connections still held.
  auto stopping = std::chrono::steady_clock::now();
  EXPECT_EQ(exporter_->stop(SIGINT, 10), 0) << exporter_->err();
  double shutdown = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopping).count();
  EXPECT_LT(shutdown, 1.0) << exporter_->err();
  std::printf("Prometheus scrapes in 10 s under attack: %s, all up; slow connections opened: %d; exporter stopped "
              "in %.3f s\n", scrapes.c_str(), attack->opened(), shutdown);
  attack.reset();
  EXPECT_EQ(prometheus.stop(SIGTERM, 20), 0);
}

TEST_F(Export, ANonLoopbackAddressIsServedWithAWarning) {
  add_probes();
  background_process exporter({kpp_bin, "export", "-e", group_ + ":*", "--listen", "0.0.0.0:0"}, tmp_ + "/open");
  ASSERT_TRUE(exporter.wait_for([&] { return exporter.err().find("serving metrics") != std::string::npos; }, 30))
      << exporter.err();
  EXPECT_NE(exporter.err().find("is reachable from other hosts, without authentication or TLS"), std::string::npos)
      << exporter.err();
  EXPECT_EQ(exporter.stop(SIGINT, 10), 0);
  // Loopback: no warning.
  ASSERT_NE(start_exporter(), 0);
  EXPECT_EQ(exporter_->err().find("warning"), std::string::npos) << exporter_->err();
}

}  // namespace
