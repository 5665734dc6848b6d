// The HTTP side of the exporter, over real sockets: what a scraper gets,
// and what bad and oversized requests get.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http_client.h"
#include "slow_clients.h"
#include "src/export/metrics_server.h"

namespace kpp {
namespace {

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = MetricsServer::start({"127.0.0.1", 0}, [this] {
      ++renders_;
      return std::string("kprobe_probe_hits_total{group=\"g\",event=\"e\"} 3\n");
    });
    ASSERT_TRUE(s) << s.error().message;
    server_ = std::move(*s);
    ASSERT_NE(server_->port(), 0);
  }

  std::atomic<int> renders_{0};
  std::unique_ptr<MetricsServer> server_;
};

TEST_F(MetricsServerTest, GetMetricsServesTheRenderedTextAsPrometheusText) {
  http_answer a = http_get(server_->port(), "/metrics");
  EXPECT_EQ(a.status, 200) << a.headers;
  EXPECT_NE(a.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8"), std::string::npos) << a.headers;
  EXPECT_EQ(a.body, "kprobe_probe_hits_total{group=\"g\",event=\"e\"} 3\n");
  EXPECT_EQ(server_->url(), "http://127.0.0.1:" + std::to_string(server_->port()) + "/metrics");
}

TEST_F(MetricsServerTest, HeadHasNoBody) {
  http_answer a = http_raw(server_->port(), "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "");
}

TEST_F(MetricsServerTest, OtherPathsAreNotFound) {
  for (const char *path : {"/metric", "/metrics/", "/metrics/../etc/passwd", "/favicon.ico"}) {
    http_answer a = http_get(server_->port(), path);
    EXPECT_EQ(a.status, 404) << path;
  }
  EXPECT_EQ(renders_.load(), 0) << "a bad path must not cost a render";
}

TEST_F(MetricsServerTest, OtherMethodsAreNotAllowedAndSaySo) {
  for (const char *method : {"POST", "PUT", "DELETE"}) {
    http_answer a = http_raw(server_->port(), std::string(method) +
                                                  " /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                                                  "Connection: close\r\n\r\nhello");
    EXPECT_EQ(a.status, 405) << method;
    EXPECT_NE(a.headers.find("Allow: GET, HEAD"), std::string::npos) << a.headers;
  }
  EXPECT_EQ(renders_.load(), 0);
}

TEST_F(MetricsServerTest, OversizedRequestsAreRefusedAndTheServerStaysUp) {
  std::string long_target = "/metrics?" + std::string(64 * 1024, 'a');
  http_answer uri = http_get(server_->port(), long_target);
  EXPECT_TRUE(uri.status == 414 || uri.status == 431) << uri.status << " " << uri.headers;
  std::string big_header = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'b') +
                           "\r\nConnection: close\r\n\r\n";
  http_answer header = http_raw(server_->port(), big_header);
  EXPECT_EQ(header.status, 431) << header.headers;
  EXPECT_EQ(renders_.load(), 0);
  EXPECT_EQ(http_get(server_->port(), "/metrics").status, 200);
}

TEST_F(MetricsServerTest, GarbageIsABadRequest) {
  http_answer a = http_raw(server_->port(), "this is not http\r\n\r\n");
  EXPECT_EQ(a.status, 400) << a.headers;
  EXPECT_EQ(http_get(server_->port(), "/metrics").status, 200);
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

TEST_F(MetricsServerTest, OneAddressGetsNoMoreThanItsShareOfConnections) {
  std::vector<int> held;
  for (int i = 0; i < 40; ++i) held.push_back(connect_from("127.0.0.2", server_->port()));
  // Past its share, the server closes an address's new connections at once.
  int open = 0;
  for (int fd : held) open += fd >= 0 && !closed_within(fd, 200);
  EXPECT_EQ(open, static_cast<int>(MetricsServer::kMaxPerAddress));
  // Another address is served meanwhile.
  auto start = Clock::now();
  EXPECT_EQ(http_get(server_->port(), "/metrics").status, 200);
  EXPECT_LT(seconds_since(start), 0.5);
  for (int fd : held)
    if (fd >= 0) close(fd);
}

TEST_F(MetricsServerTest, AByteAtATimeDoesNotExtendTheDeadline) {
  int fd = connect_from("127.0.0.2", server_->port());
  ASSERT_GE(fd, 0);
  // A request one byte every 400 ms, for ever: the library's own timeout
  // (10 s) would restart on each; the deadline does not.
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  auto start = Clock::now();
  bool closed = false;
  for (size_t i = 0; !closed && seconds_since(start) < 15; ++i) {
    char c = i < request.size() ? request[i] : 'a';
    send(fd, &c, 1, MSG_NOSIGNAL);
    closed = closed_within(fd, 400);
  }
  double lived = seconds_since(start);
  close(fd);
  EXPECT_TRUE(closed);
  double deadline = std::chrono::duration<double>(ConnectionDeadline::kDeadline).count();
  EXPECT_GE(lived, deadline - 0.1);
  EXPECT_LT(lived, deadline + 1.0);
}

TEST_F(MetricsServerTest, ScrapesAreAnsweredWhileSlowClientsHoldConnectionsAndShutdownIsQuick) {
  // 150 connections from 75 addresses: 2 each, under the per-address share;
  // together over the server's 128.
  auto attack = std::make_unique<slow_clients>(server_->port(), 150, 75, std::chrono::milliseconds(200));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double slowest = 0;
  int answered = 0;
  int tried = 0;
  for (auto start = Clock::now(); seconds_since(start) < 12; ++tried) {  // over two deadlines
    auto t = Clock::now();
    answered += http_get(server_->port(), "/metrics").status == 200;
    slowest = std::max(slowest, seconds_since(t));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(answered, tried);
  EXPECT_GT(answered, 20);
  EXPECT_GT(attack->opened(), 150) << "the attack never had connections cut";
  EXPECT_LT(slowest, 1.0) << "a scrape waited " << slowest << " s";
  auto stopping = Clock::now();
  server_.reset();
  double shutdown = seconds_since(stopping);
  int opened = attack->opened();
  attack.reset();
  EXPECT_LT(shutdown, 1.0) << "shutdown took " << shutdown << " s";
  std::printf("scrapes answered: %d of %d, slowest %.3f s; attack connections opened: %d; shutdown with them held: "
              "%.3f s\n", answered, tried, slowest, opened, shutdown);
}

TEST(MetricsServer, APortInUseIsNamed) {
  auto first = MetricsServer::start({"127.0.0.1", 0}, [] { return std::string(); });
  ASSERT_TRUE(first);
  auto second = MetricsServer::start({"127.0.0.1", (*first)->port()}, [] { return std::string(); });
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message,
            "cannot listen on 127.0.0.1:" + std::to_string((*first)->port()) + ": Address already in use");
}

TEST(ListenAddress, LoopbackUnlessAHostIsGiven) {
  struct Case {
    const char *text;
    const char *host;
    uint16_t port;
  };
  for (const Case &c : {Case{"9464", "127.0.0.1", 9464}, Case{":9464", "127.0.0.1", 9464},
                        Case{"0.0.0.0:80", "0.0.0.0", 80}, Case{"[::1]:9464", "::1", 9464}}) {
    auto a = parse_listen_address(c.text);
    ASSERT_TRUE(a) << c.text;
    EXPECT_EQ(a->host, c.host) << c.text;
    EXPECT_EQ(a->port, c.port) << c.text;
  }
  for (const char *bad : {"", "host:", "host:http", "1:65536", "::1:80", "[::1]", "9464x", "-1"}) {
    auto r = parse_listen_address(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("--listen"), std::string::npos);
  }
}

TEST(ListenAddress, OnlyWholeNumericAddressesUnlessNamesAreAskedFor) {
  // What inet_aton would read as addresses: "0" is every interface.
  for (const char *partial : {"0:9464", "127.1:9464", "0x7f000001:9464", "10.1:80"}) {
    auto r = parse_listen_address(partial);
    ASSERT_FALSE(r) << partial;
    EXPECT_NE(r.error().message.find("is not a whole IPv4 address"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().hint.find("0.0.0.0:PORT for every interface"), std::string::npos);
  }
  auto name = parse_listen_address("localhost:9464");
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().message, "--listen: 'localhost' is not a numeric address");
  EXPECT_NE(name.error().hint.find("--listen-name"), std::string::npos);
  auto allowed = parse_listen_address("localhost:9464", /*allow_names=*/true);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->host, "localhost");
  EXPECT_FALSE(parse_listen_address("[fe80::zz]:1"));
}

TEST(ListenAddress, LoopbackIsTheOnlyAddressWithoutAWarning) {
  for (const char *host : {"127.0.0.1", "127.9.9.9", "::1"}) EXPECT_TRUE(is_loopback_host(host)) << host;
  for (const char *host : {"0.0.0.0", "::", "10.0.0.1", "192.168.1.1", "localhost", "::ffff:127.0.0.1"})
    EXPECT_FALSE(is_loopback_host(host)) << host;
}

}  // namespace
}  // namespace kpp
