// JSON string literals (util/json_string.h), the one quoting that event
// lines, --list --json and hist tables share: checked against the spec's
// escapes and against a real JSON parser (python3's json module), which
// must read back every valid UTF-8 input unchanged and still accept input
// that is not UTF-8.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "tests/common/run_command.h"
#include "util/json_string.h"

namespace kpp {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControlBytes) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("l1\nl2\r\t"), "\"l1\\nl2\\r\\t\"");
  EXPECT_EQ(json_quote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(json_quote(std::string("a\0b", 3)), "\"a\\u0000b\"");
  EXPECT_EQ(json_quote(""), "\"\"");
}

TEST(JsonString, KeepsUtf8AndShowsOtherBytesAsCodePoints) {
  EXPECT_EQ(json_quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  // A lone continuation byte, a truncated sequence, an overlong lead byte.
  EXPECT_EQ(json_quote("\x80"), "\"\\u0080\"");
  EXPECT_EQ(json_quote("x\xe2\x82"), "\"x\\u00e2\\u0082\"");
  EXPECT_EQ(json_quote("\xc0\xaf"), "\"\\u00c0\\u00af\"");
}

TEST(JsonString, AppendsToWhatIsThere) {
  std::string out = "{\"k\":";
  append_json_string(out, "v");
  EXPECT_EQ(out, "{\"k\":\"v\"");
}

// Each input on a line of its own, as a JSON literal; python3 decodes each
// and prints it back as a JSON literal with \u escapes only (ensure_ascii),
// which must equal what json.dumps makes of the original: same string.
TEST(JsonString, APythonJsonParserReadsEveryLiteralBack) {
  if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  std::vector<std::string> inputs = {"plain", "q\"b\\s/", std::string("nul\0x", 5), "\x01\x02\n\t\r\x7f",
                                     "caf\xc3\xa9 \xf0\x9f\x98\x80", "bad \xff\xfe \x80", "trunc \xe2\x82"};
  std::string path = "/tmp/kpp_json_string_test_" + std::to_string(getpid());
  {
    std::ofstream f(path);
    for (const std::string &s : inputs) f << json_quote(s) << "\n";
  }
  std::string cmd = "python3 -c 'import json,sys\nfor l in open(sys.argv[1]): print(json.dumps(json.loads(l)))' " + path;
  kpp::test::CommandRun python = kpp::test::run_command(cmd);
  unlink(path.c_str());
  ASSERT_TRUE(python.started);
  ASSERT_EQ(python.status, 0) << "python3 could not parse our literals:\n" << python.out;
  const std::string &got = python.out;
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = got.find('\n', at)) != std::string::npos; at = nl + 1) lines.push_back(got.substr(at, nl - at));
  ASSERT_EQ(lines.size(), inputs.size());
  // Valid UTF-8 reads back unchanged (json.dumps escapes the non-ASCII).
  EXPECT_EQ(lines[0], "\"plain\"");
  EXPECT_EQ(lines[1], "\"q\\\"b\\\\s/\"");
  EXPECT_EQ(lines[2], "\"nul\\u0000x\"");
  EXPECT_EQ(lines[3], "\"\\u0001\\u0002\\n\\t\\r\\u007f\"");
  EXPECT_EQ(lines[4], "\"caf\\u00e9 \\ud83d\\ude00\"");
  // Not UTF-8: each byte's value as a code point.
  EXPECT_EQ(lines[5], "\"bad \\u00ff\\u00fe \\u0080\"");
  EXPECT_EQ(lines[6], "\"trunc \\u00e2\\u0082\"");
}

}  // namespace
}  // namespace kpp
