// format_error is used for every error main() prints, spec or not.
#include <gtest/gtest.h>

#include <string>

#include "src/spec/error_format.h"

namespace kpp {
namespace {

struct FormatCase {
  const char *why;
  Error error;
  std::string shown;
};

void PrintTo(const FormatCase &c, std::ostream *os) { *os << c.why; }

Error spanned(std::string message, std::string source, Span span, std::string hint = {}) {
  return Error(std::move(message), std::move(hint)).at(std::move(source), span);
}

Error span_without_source() {
  Error e("bad", "try again");
  e.span = Span{0, 3};
  return e;
}

class FormatError : public testing::TestWithParam<FormatCase> {};

TEST_P(FormatError, PrintsTheLinesTheUserSees) {
  EXPECT_EQ(format_error(GetParam().error), GetParam().shown);
}

INSTANTIATE_TEST_SUITE_P(
    Layout, FormatError,
    testing::Values(
        FormatCase{"message only", Error("tracefs is not mounted"), "kprobe-probe: error: tracefs is not mounted\n"},
        FormatCase{"hint without span", Error("cannot open 'vmlinux'", "pass the kernel image with -k PATH"),
                   "kprobe-probe: error: cannot open 'vmlinux'\n"
                   "  hint: pass the kernel image with -k PATH\n"},
        FormatCase{"one column", spanned("bad", "abc", {1, 2}), "kprobe-probe: error: bad\n  abc\n   ^\n"},
        FormatCase{"empty span still gets a caret", spanned("bad", "abc", {2, 2}),
                   "kprobe-probe: error: bad\n  abc\n    ^\n"},
        FormatCase{"span past the end points just after the text", spanned("missing", "f:", {2, 3}),
                   "kprobe-probe: error: missing\n  f:\n    ^\n"},
        FormatCase{"tabs keep the caret aligned", spanned("bad", "f\tx:u7", {4, 6}),
                   "kprobe-probe: error: bad\n  f\tx:u7\n   \t  ^~\n"},
        FormatCase{"caret, tildes and hint", spanned("bad", "abcdef", {1, 5}, "try x"),
                   "kprobe-probe: error: bad\n  abcdef\n   ^~~~\n  hint: try x\n"},
        FormatCase{"span without source shows no caret", span_without_source(),
                   "kprobe-probe: error: bad\n  hint: try again\n"}));

}  // namespace
}  // namespace kpp
