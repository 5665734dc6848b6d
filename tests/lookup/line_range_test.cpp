// -L's LINE SYNTAX, as perf-probe.txt defines it:
//   FUNC[@SRC][:RLN[+NUM|-RLN2]] | SRC:ALN[+NUM|-ALN2]
#include <gtest/gtest.h>

#include "src/lookup/line_range.h"
#include "src/spec/error_format.h"

using kpp::parse_line_range;

TEST(LineRange, WholeFunction) {
  auto r = parse_line_range("vfs_read");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->function, "vfs_read");
  EXPECT_EQ(r->begin, 0);
  EXPECT_FALSE(r->end);
}

TEST(LineRange, FunctionFromALine) {
  auto r = parse_line_range("walk:3");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->begin, 3);
  EXPECT_FALSE(r->end) << "FUNC:RLN runs to the end of the function";
}

TEST(LineRange, PlusCountsLinesAfterTheFirst) {
  auto r = parse_line_range("walk:3+2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->begin, 3);
  EXPECT_EQ(r->end, 5);
}

TEST(LineRange, MinusGivesTheLastLine) {
  auto r = parse_line_range("walk@prog.c:2-7");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->function, "walk");
  EXPECT_EQ(r->file, "prog.c");
  EXPECT_EQ(r->begin, 2);
  EXPECT_EQ(r->end, 7);
}

TEST(LineRange, SourceFileLineIsOneLine) {
  auto r = parse_line_range("fs/read_write.c:450");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->function.empty());
  EXPECT_EQ(r->file, "fs/read_write.c");
  EXPECT_EQ(r->begin, 450);
  EXPECT_EQ(r->end, 450);
}

TEST(LineRange, SourceFileRange) {
  auto r = parse_line_range("prog.c:10+5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->begin, 10);
  EXPECT_EQ(r->end, 15);
}

TEST(LineRange, ErrorsPointAtTheSpec) {
  auto r = parse_line_range("walk:3+");
  ASSERT_FALSE(r);
  EXPECT_EQ(kpp::format_error(r.error()),
            "kprobe-probe: error: expected '+NUM' or '-LAST' after the line number\n"
            "  walk:3+\n"
            "        ^\n");
}

TEST(LineRange, RejectsBackwardsRangeAndFileWithoutLine) {
  EXPECT_FALSE(parse_line_range("walk:7-3"));
  EXPECT_FALSE(parse_line_range("src/prog.c"));
  EXPECT_TRUE(parse_line_range("prog.c")->could_be_function) << "-L decides: a file needs a line, a function not";
  EXPECT_FALSE(parse_line_range(":3"));
  EXPECT_FALSE(parse_line_range("walk:x"));
  EXPECT_FALSE(parse_line_range("walk:3-5junk"));
}

// perf-probe.txt LAZY MATCHING: a glob against the whole line, white space
// ignored in both.
#include "src/lookup/lazy_match.h"

TEST(LazyMatch, IgnoresWhiteSpaceInBoth) {
  EXPECT_TRUE(kpp::lazy_match("  rq = cpu_rq(cpu);", "rq=*"));
  EXPECT_TRUE(kpp::lazy_match("\tif (a  >  b)", "if (a>b)"));
  EXPECT_FALSE(kpp::lazy_match("  x = rq;", "rq=*")) << "the pattern matches the whole line";
  EXPECT_TRUE(kpp::lazy_match("  x = rq;", "*rq*"));
}

// C++ names: "::" belongs to the name; the line follows a single ':'.
TEST(LineRange, CxxQualifiedFunction) {
  auto r = parse_line_range("shapes::Box::area:1+2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->function, "shapes::Box::area");
  EXPECT_EQ(r->begin, 1);
  EXPECT_EQ(r->end, 3);
  auto escaped = parse_line_range("shapes\\:\\:Box\\:\\:area:1");
  ASSERT_TRUE(escaped);
  EXPECT_EQ(escaped->function, "shapes::Box::area") << "perf's escaped form";
  EXPECT_EQ(escaped->begin, 1);
  auto whole = parse_line_range("ns::max<int>");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->function, "ns::max<int>");
  EXPECT_FALSE(whole->end);
}

// Issue 12 item 7: "FILE:1+10000000" meant "to the end" and looped for ever;
// sums of line numbers near INT_MAX wrapped around.
TEST(LineRange, HugeCountEndsAtTheLargestLine) {
  auto r = parse_line_range("prog.c:1+10000000000000000000000");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->end, kpp::kMaxLine);
  auto near_max = parse_line_range("walk:16777000+2147483647");
  ASSERT_TRUE(near_max);
  EXPECT_EQ(near_max->end, kpp::kMaxLine) << "no wrap to a negative line";
}

TEST(LineRange, LineNumbersPastTheLargestAreRefused) {
  auto r = parse_line_range("prog.c:2147483648");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("line numbers go up to 16777216"), std::string::npos) << r.error().message;
  EXPECT_FALSE(parse_line_range("prog.c:1-99999999999"));
}

TEST(LineRange, WalkStopsAtTheLastLineThatExists) {
  using kpp::last_line_walked;
  EXPECT_EQ(last_line_walked(1, 10000001, 120, std::nullopt), 120) << "the source's last line";
  EXPECT_EQ(last_line_walked(1, 10000001, std::nullopt, 37), 37) << "the last line with code";
  EXPECT_EQ(last_line_walked(5, 10000001, std::nullopt, std::nullopt), 5 + kpp::kLinesWalkedBlind - 1);
  EXPECT_EQ(last_line_walked(1, 9, 120, 37), 9) << "a range inside the file is walked whole";
  EXPECT_EQ(last_line_walked(1, 2147483647, std::nullopt, 2147483647), kpp::kMaxLine) << "++line never wraps";
}

TEST(LineRange, AQualifiedNameWithADotCouldBeAFunction) {
  // perf reads "main.Split" as a file; Go's and Rust's names have dots: the
  // caller tries it as a function when no source file has that name.
  auto r = parse_line_range("main.Split:1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->file, "main.Split");
  EXPECT_TRUE(r->could_be_function);
  auto f = parse_line_range("main.Split:1", kpp::LineRangeAs::Function);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->function, "main.Split");
  EXPECT_EQ(f->begin, 1);
  EXPECT_FALSE(f->end) << "as a function, FUNC:RLN runs to its end";
  auto whole = parse_line_range("main.Split");
  ASSERT_TRUE(whole) << "no line: for the caller to read as a function";
  EXPECT_TRUE(whole->could_be_function);
  EXPECT_FALSE(whole->end);
  EXPECT_FALSE(parse_line_range("fs/read_write.c:1")->could_be_function) << "a path is a file";
  EXPECT_FALSE(parse_line_range("fs/read_write.c")) << "a path needs its line";
}
