// The HTTP side of the exporter, over real sockets: what a scraper gets,
// and what bad and oversized requests get.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "http_client.h"
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

}  // namespace
}  // namespace kpp
