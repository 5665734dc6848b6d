// Every spec perf probe refuses, with the message that names the rule and the
// exact columns the caret goes under.
#include <gtest/gtest.h>

#include <string>

#include "src/spec/error_format.h"
#include "src/spec/probe_spec.h"

namespace kpp {
namespace {

struct ErrorCase {
  std::string text;
  std::string message;
  Span span;
};

void PrintTo(const ErrorCase &c, std::ostream *os) { *os << "'" << c.text << "'"; }

class Refuse : public testing::TestWithParam<ErrorCase> {};

TEST_P(Refuse, WithTheRuleAndItsColumns) {
  const ErrorCase &c = GetParam();
  auto parsed = parse_probe_spec(c.text);
  ASSERT_FALSE(parsed) << "accepted '" << c.text << "'";
  EXPECT_EQ(parsed.error().message, c.message);
  EXPECT_EQ(parsed.error().source, c.text);
  ASSERT_TRUE(parsed.error().span.has_value());
  EXPECT_EQ(parsed.error().span->begin, c.span.begin) << format_error(parsed.error());
  EXPECT_EQ(parsed.error().span->end, c.span.end) << format_error(parsed.error());
}

const std::string k64 = std::string(64, 'e');

// perf's exclusion checks at the end of parse_perf_probe_point, one message each.
INSTANTIATE_TEST_SUITE_P(
    PointRules, Refuse,
    testing::Values(
        ErrorCase{"f:12;x", "Lazy pattern can't be used with line number.", {4, 6}},
        ErrorCase{"f+4;x", "Lazy pattern can't be used with offset.", {3, 5}},
        ErrorCase{"vfs_read:12+4 count", "Offset can't be used with line number.", {11, 13}},
        ErrorCase{"f+4:12", "Offset can't be used with line number.", {3, 6}},
        ErrorCase{"@fs/read_write.c", "File always requires line number or lazy pattern.", {0, 16}},
        // A source file's name with line 0 keeps perf's rule (a Go "main.Split:0" is a function).
        ErrorCase{"prog.c:0", "File always requires line number or lazy pattern.", {6, 8}},
        ErrorCase{"fs/inode.x:0", "File always requires line number or lazy pattern.", {10, 12}},
        ErrorCase{"main.go:0 n", "File always requires line number or lazy pattern.", {7, 9}},
        ErrorCase{"+4", "Offset requires an entry function.", {0, 2}},
        ErrorCase{"@a.c:3+4", "Offset can't be used with line number.", {6, 8}},
        ErrorCase{"f:3%return", "Line number can't be used with %return.", {3, 10}},
        ErrorCase{"f%return:3", "Line number can't be used with %return.", {8, 10}},
        ErrorCase{"f+8%return", "Offset can't be used with %return.", {3, 10}},
        ErrorCase{"f%return;x", "Lazy pattern can't be used with %return.", {8, 10}},
        ErrorCase{":12", "the probe point names no function and no source file", {0, 1}},
        ErrorCase{"@*:12", "the probe point names no function and no source file", {0, 1}}));

INSTANTIATE_TEST_SUITE_P(
    PointParts, Refuse,
    testing::Values(
        ErrorCase{"f%entry", "%entry is not supported.", {1, 7}},
        ErrorCase{"f:1x", "There is non-digit char in line number.", {2, 4}},
        ErrorCase{"f:0x10", "There is non-digit char in line number.", {2, 6}},
        ErrorCase{"f:99999999999", "line number '99999999999' is too large", {2, 13}},
        ErrorCase{"f+1x", "There is non-digit character in offset.", {2, 4}},
        ErrorCase{"f@a.c@b.c:3", "SRC@SRC is not allowed.", {5, 9}},
        ErrorCase{"0xfoo", "Invalid absolute address.", {0, 5}},
        ErrorCase{"f:", "line number is missing after ':'", {1, 2}},
        ErrorCase{"f+", "offset is missing after '+'", {1, 2}},
        ErrorCase{"f@", "source file is missing after '@'", {1, 2}},
        ErrorCase{"f;", "lazy pattern is missing after ';'", {1, 2}},
        ErrorCase{"f:1:2", "a line number is given twice in the probe point", {3, 5}},
        ErrorCase{"f+1+2", "an offset is given twice in the probe point", {3, 5}},
        ErrorCase{"f%return%return", "%return is given twice in the probe point", {8, 15}},
        ErrorCase{"f\\", "a backslash at the end of the probe point escapes nothing", {1, 2}},
        ErrorCase{"'f:3", "unterminated quote ' in the probe point", {0, 4}},
        ErrorCase{"%sdt_lib-c:setjmp", "'sdt_lib-c' is not an SDT provider name", {1, 10}},
        ErrorCase{"sdt_libc:set.jmp", "'set.jmp' is not an SDT marker name", {9, 16}},
        ErrorCase{"%", "'' is not an SDT marker name", {1, 2}},
        ErrorCase{"", "the probe spec is empty", {0, 1}},
        ErrorCase{"   ", "the probe spec is empty", {0, 1}},
        // Control characters other than white space (fuzz_spec found a NUL and
        // 0x1d in a quoted C++ name formatting to a different spec).
        ErrorCase{std::string("vfs_read\0 count", 15), "the probe spec has a control character (0x00)", {8, 9}},
        ErrorCase{"'f(int)\x1d' x", "the probe spec has a control character (0x1d)", {7, 8}},
        ErrorCase{"f x\x7f", "the probe spec has a control character (0x7f)", {3, 4}}));

// [[GROUP:]EVENT=]: C identifiers that fit perf's 64-byte MAX_EVENT_NAME_LEN.
INSTANTIATE_TEST_SUITE_P(
    EventNames, Refuse,
    testing::Values(
        ErrorCase{"1bad=f", "'1bad' is bad for an event name: it must follow the C symbol-naming rule", {0, 4}},
        ErrorCase{"my-ev=f", "'my-ev' is bad for an event name: it must follow the C symbol-naming rule", {0, 5}},
        ErrorCase{"g-1:ev=f", "'g-1' is bad for a group name: it must follow the C symbol-naming rule", {0, 3}},
        ErrorCase{"=f", "event name is empty before '='", {0, 1}},
        ErrorCase{"g:=f", "event name is empty before '='", {2, 3}},
        ErrorCase{":ev=f", "group name is empty before ':'", {0, 1}},
        ErrorCase{"ev=", "the probe point is missing after '='", {2, 3}},
        ErrorCase{k64 + "=f",
                  "an event name '" + k64 + "' is too long: 64 bytes, at most 63 fit in perf's MAX_EVENT_NAME_LEN",
                  {0, 64}},
        ErrorCase{k64 + ":ev=f",
                  "a group name '" + k64 + "' is too long: 64 bytes, at most 63 fit in perf's MAX_EVENT_NAME_LEN",
                  {0, 64}}));

INSTANTIATE_TEST_SUITE_P(
    Arguments, Refuse,
    testing::Values(
        ErrorCase{"f a[x]", "Array index must be a number.", {3, 6}},
        ErrorCase{"f a[]", "Array index must be a number.", {3, 5}},
        ErrorCase{"f a[1", "Array index must be a number.", {3, 5}},
        ErrorCase{"f a-b", "unexpected '-' in argument: expected '->', '.' or '['", {3, 4}},
        ErrorCase{"f a->", "member name expected after '->'", {3, 5}},
        ErrorCase{"f a.1", "member name expected after '.'", {3, 5}},
        ErrorCase{"f $foo", "unknown special variable '$foo': expected $retval, $params, $vars, $comm, $stack, $stackN or $argN", {2, 6}},
        ErrorCase{"f $retvalue", "unknown special variable '$retvalue': expected $retval, $params, $vars, $comm, $stack, $stackN or $argN",
                  {2, 11}},
        ErrorCase{"f $retval->x", "'$retval' can't be followed by '->x'", {9, 12}},
        ErrorCase{"f %ax->x", "'%ax' can't be followed by '->x'", {5, 8}},
        ErrorCase{"f %", "register name expected after '%'", {2, 3}},
        ErrorCase{"f @", "symbol name expected after '@'", {2, 3}},
        ErrorCase{"f =x", "argument name is empty before '='", {2, 3}},
        ErrorCase{"f 1a=x", "'1a' is bad for an argument name: it must follow the C symbol-naming rule", {2, 4}},
        ErrorCase{"f n=", "the argument has no variable", {4, 5}},
        ErrorCase{"f :u8", "the argument has no variable", {2, 3}},
        ErrorCase{"f v=$vars", "'$vars' can't be given a NAME: it expands to one argument per variable", {2, 3}},
        ErrorCase{"f $params:u8", "'$params' can't be given a TYPE: it expands to one argument per variable",
                  {9, 12}}));

// TYPES: what perf-probe.txt and the kernel's fetch-arg types allow.
INSTANTIATE_TEST_SUITE_P(
    Types, Refuse,
    testing::Values(
        ErrorCase{"f x:u7", "unknown type 'u7': integer types are 8, 16, 32 or 64 bits wide", {4, 6}},
        ErrorCase{"f x:s128", "unknown type 's128': integer types are 8, 16, 32 or 64 bits wide", {4, 8}},
        ErrorCase{"f x:int",
                  "unknown type 'int': expected u8/u16/u32/u64, s8..s64, x8..x64, u, s, x, string, ustring, "
                  "symbol, b<width>@<offset>/<container> or TYPE[N]",
                  {4, 7}},
        ErrorCase{"f x:", "type is missing after ':'", {3, 4}},
        ErrorCase{"f x:b4@2", "bad bitfield type 'b4@2': expected b<width>@<offset>/<container>", {4, 8}},
        ErrorCase{"f x:b4@2/24", "bad bitfield type 'b4@2/24': the container must be 8, 16, 32 or 64 bits",
                  {4, 11}},
        ErrorCase{"f x:b0@2/32", "bad bitfield type 'b0@2/32': the width must be at least 1 bit", {4, 11}},
        ErrorCase{"f x:b4@30/32", "bad bitfield type 'b4@30/32': width + offset is 34, more than the 32-bit container",
                  {4, 12}},
        ErrorCase{"f x:u8[0]", "bad array type 'u8[0]': the length must be a number from 1 to 64", {4, 9}},
        ErrorCase{"f x:u8[65]", "bad array type 'u8[65]': the length must be a number from 1 to 64", {4, 10}},
        ErrorCase{"f x:u8[4", "bad array type 'u8[4': expected ELEM[N]", {4, 8}},
        ErrorCase{"f x:u[4]",
                  "bad array type 'u[4]': elements must be a sized integer (u8..u64, s8..s64, x8..x64) or a string",
                  {4, 8}}));

TEST(ParseProbeSpec, RefusesMoreThan128Arguments) {
  std::string text = "f";
  for (int i = 0; i < 129; ++i) text += " a" + std::to_string(i);
  auto parsed = parse_probe_spec(text);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "Too many probe arguments (129).");
  size_t last = text.rfind(' ') + 1;  // the 129th argument, the first one too many
  EXPECT_EQ(parsed.error().span, (Span{last, text.size()}));
}

// What the user sees, whole: message, the spec, the caret line, the hint.
struct ShownCase {
  std::string text;
  std::string shown;
};

void PrintTo(const ShownCase &c, std::ostream *os) { *os << "'" << c.text << "'"; }

class Shown : public testing::TestWithParam<ShownCase> {};

TEST_P(Shown, AsTheUserSeesIt) {
  auto parsed = parse_probe_spec(GetParam().text);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(format_error(parsed.error()), GetParam().shown);
}

INSTANTIATE_TEST_SUITE_P(
    FormatError, Shown,
    testing::Values(
        ShownCase{"vfs_read:12+4 count",
                  "kprobe-probe: error: Offset can't be used with line number.\n"
                  "  vfs_read:12+4 count\n"
                  "             ^~\n"},
        ShownCase{"walk:5 p->name:string n:u7",
                  "kprobe-probe: error: unknown type 'u7': integer types are 8, 16, 32 or 64 bits wide\n"
                  "  walk:5 p->name:string n:u7\n"
                  "                          ^~\n"},
        ShownCase{"probe:my-read=vfs_read",
                  "kprobe-probe: error: 'my-read' is bad for an event name: it must follow the C symbol-naming rule\n"
                  "  probe:my-read=vfs_read\n"
                  "        ^~~~~~~\n"
                  "  hint: use letters, digits and '_', not starting with a digit\n"},
        ShownCase{"schedule:3;rq=cpu_rq*",
                  "kprobe-probe: error: Lazy pattern can't be used with line number.\n"
                  "  schedule:3;rq=cpu_rq*\n"
                  "            ^~~~~~~~~~~\n"},
        ShownCase{"f x:",
                  "kprobe-probe: error: type is missing after ':'\n"
                  "  f x:\n"
                  "     ^\n"
                  "  hint: write a type after ':', e.g. 'count:u64' or 'name:string'\n"}));

}  // namespace
}  // namespace kpp
