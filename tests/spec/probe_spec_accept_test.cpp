// Every form perf-probe.txt's PROBE SYNTAX, PROBE ARGUMENT, TYPES and EXAMPLES
// describe, parsed into the model, and each one read back from its formatted text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/spec/probe_spec.h"
#include "tests/spec/spec_builders.h"

namespace kpp {
namespace {

using test::arrow;
using test::dot;
using test::idx;
using test::meaning;
using test::reg;
using test::special;
using test::sym;
using test::var;
using K = ProbeArg::Kind;

struct AcceptCase {
  const char *why;  // which line of perf-probe.txt the case comes from
  std::string text;
  ProbeSpec expected;
};

const std::string k63 = std::string(63, 'e');

std::vector<AcceptCase> accept_cases() {
  return {
      // PROBE SYNTAX 1) [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG ...]
      {"FUNC", "schedule", {.point = {.function = "schedule"}}},
      {"FUNC:RLN ARG (EXAMPLES)", "schedule:12 cpu",
       {.point = {.function = "schedule", .line = 12}, .args = {var("cpu")}}},
      {"FUNC as a glob (EXAMPLES)", "schedule*", {.point = {.function = "schedule*"}}},
      {"FUNC;PTN (EXAMPLES)", "schedule;update_rq_clock*",
       {.point = {.function = "schedule", .lazy_pattern = "update_rq_clock*"}}},
      {"FUNC;PTN with LAZY MATCHING's example", "schedule;rq=cpu_rq*",
       {.point = {.function = "schedule", .lazy_pattern = "rq=cpu_rq*"}}},
      {"FUNC%return", "vfs_read%return", {.point = {.function = "vfs_read", .is_return = true}}},
      {"FUNC+OFFS decimal", "vfs_read+16", {.point = {.function = "vfs_read", .offset = 16}}},
      {"FUNC+OFFS hexadecimal", "vfs_read+0x1c", {.point = {.function = "vfs_read", .offset = 0x1c}}},
      {"FUNC+0 is an explicit offset", "vfs_read+0", {.point = {.function = "vfs_read", .offset = 0}}},
      {"FUNC@SRC", "vfs_read@fs/read_write.c",
       {.point = {.function = "vfs_read", .file = "fs/read_write.c"}}},
      {"FUNC@SRC:RLN", "vfs_read@fs/read_write.c:12",
       {.point = {.function = "vfs_read", .file = "fs/read_write.c", .line = 12}}},
      {"FUNC@SRC%return", "vfs_read@fs/read_write.c%return",
       {.point = {.function = "vfs_read", .file = "fs/read_write.c", .is_return = true}}},
      {"FUNC@SRC;PTN", "vfs_read@fs/read_write.c;*pos*",
       {.point = {.function = "vfs_read", .file = "fs/read_write.c", .lazy_pattern = "*pos*"}}},
      {"FUNC@* means any file", "do_task@*:2", {.point = {.function = "do_task", .line = 2}}},
      {"EVENT=FUNC", "myread=vfs_read", {.event = "myread", .point = {.function = "vfs_read"}}},
      {"GROUP:EVENT=FUNC:RLN ARG", "mygrp:myread=vfs_read:3 count",
       {.group = "mygrp", .event = "myread", .point = {.function = "vfs_read", .line = 3},
        .args = {var("count")}}},
      {"EVENT of 63 bytes fits MAX_EVENT_NAME_LEN", k63 + "=f", {.event = k63, .point = {.function = "f"}}},
      {"raw address in place of FUNC", "0xffffffff81234560",
       {.point = {.address = 0xffffffff81234560ull}}},
      {"raw address with %return", "0x4005d0%return", {.point = {.is_return = true, .address = 0x4005d0}}},
      {"raw address with an offset", "0x1000+8", {.point = {.offset = 8, .address = 0x1000}}},
      // SDT markers (perf's SDT event forms, then PROVIDER:NAME where it can mean nothing else)
      {"%sdt_PROVIDER:NAME", "%sdt_python:function__entry",
       {.point = {.sdt = true, .sdt_provider = "python", .sdt_name = "function__entry"}}},
      {"sdt_PROVIDER:NAME", "sdt_libstdcxx:throw",
       {.point = {.sdt = true, .sdt_provider = "libstdcxx", .sdt_name = "throw"}}},
      {"%PROVIDER:NAME", "%python:line", {.point = {.sdt = true, .sdt_provider = "python", .sdt_name = "line"}}},
      {"%NAME: any provider", "%gc__start", {.point = {.sdt = true, .sdt_name = "gc__start"}}},
      {"PROVIDER:NAME with NAME not a number", "python:function__return arg2 fn=arg2:string",
       {.point = {.sdt = true, .sdt_provider = "python", .sdt_name = "function__return"},
        .args = {var("arg2"), var("arg2", {}, "string", "fn")}}},
      {"EVENT=%sdt_PROVIDER:NAME", "mygrp:gc=%sdt_python:gc__start",
       {.group = "mygrp", .event = "gc", .point = {.sdt = true, .sdt_provider = "python", .sdt_name = "gc__start"}}},
      // PROBE SYNTAX 2) [[GROUP:]EVENT=]SRC:ALN [ARG ...]
      {"SRC:ALN", "fs/read_write.c:100", {.point = {.file = "fs/read_write.c", .line = 100}}},
      {"EVENT=SRC:ALN ARG", "ev=task.c:7 id",
       {.event = "ev", .point = {.file = "task.c", .line = 7}, .args = {var("id")}}},
      {"@SRC:ALN for a file without '.'", "@Makefile:3", {.point = {.file = "Makefile", .line = 3}}},
      // A name with a '.' and a line is perf's SRC:ALN (the builder reads it as
      // FUNC:RLN when no source file is named so); with line 0, which no file
      // has, a name that no source file's suffix ends is a function (Go's).
      {"Go pkg.Func:RLN reads as SRC:ALN", "main.Split:2", {.point = {.file = "main.Split", .line = 2}}},
      {"Go pkg.Func:0 is the function", "main.Split:0", {.point = {.function = "main.Split"}}},
      {"Go method:0 is the function", "main.(*Shop).Restock:0", {.point = {.function = "main.(*Shop).Restock"}}},
      {"Rust path:0 is the function", "names::price:0", {.point = {.function = "names::price"}}},
      // PROBE SYNTAX 3) [[GROUP:]EVENT=]SRC;PTN [ARG ...]
      {"SRC;PTN", "fs/read_write.c;*pos*", {.point = {.file = "fs/read_write.c", .lazy_pattern = "*pos*"}}},
      {"SRC;PTN keeps '+' in the pattern", "main.c;a+=b",
       {.point = {.file = "main.c", .lazy_pattern = "a+=b"}}},
      // ESCAPED CHARACTER (EXAMPLES)
      {"escaped '@' in a versioned symbol", "malloc_get_state\\@GLIBC_2.2.5",
       {.point = {.function = "malloc_get_state@GLIBC_2.2.5"}}},
      {"escaped '+' in a source file", "foo\\+bar.c:4", {.point = {.file = "foo+bar.c", .line = 4}}},
      {"quoted part of a name", "'ns::run':2", {.point = {.function = "ns::run", .line = 2}}},
      // C++ names: "::" is part of the name, a single ':' starts the line.
      {"perf's escaped C++ name", "ns\\:\\:Cls\\:\\:run:2", {.point = {.function = "ns::Cls::run", .line = 2}}},
      {"plain C++ name", "ns::Cls::run", {.point = {.function = "ns::Cls::run"}}},
      {"C++ name with a line", "ns::Cls::run:2", {.point = {.function = "ns::Cls::run", .line = 2}}},
      {"C++ template with %return", "ns::max<int>%return", {.point = {.function = "ns::max<int>", .is_return = true}}},
      {"C++ overload by parameters, @SRC", "ns::twice(long)@a.cpp",
       {.point = {.function = "ns::twice(long)", .file = "a.cpp"}}},
      {"three colons: \"::\" is read first", "ns:::7", {.point = {.function = "ns::", .line = 7}}},
      {"a lazy pattern keeps its escapes", "f;a\\=b", {.point = {.function = "f", .lazy_pattern = "a\\=b"}}},
      // PROBE ARGUMENT: [NAME=]LOCALVAR|$retval|%REG|@SYMBOL[:TYPE]
      {"several args, any whitespace", "  vfs_read \tfile  count\n",
       {.point = {.function = "vfs_read"}, .args = {var("file"), var("count")}}},
      {"var->field", "vfs_read file->f_pos",
       {.point = {.function = "vfs_read"}, .args = {var("file", {arrow("f_pos")})}}},
      {"var.field2", "f var.field2", {.point = {.function = "f"}, .args = {var("var", {dot("field2")})}}},
      {"var->field1.field2", "f var->field1.field2",
       {.point = {.function = "f"}, .args = {var("var", {arrow("field1"), dot("field2")})}}},
      {"array[1]", "f array[1]", {.point = {.function = "f"}, .args = {var("array", {idx(1)})}}},
      {"var->array[0]", "f var->array[0]",
       {.point = {.function = "f"}, .args = {var("var", {arrow("array"), idx(0)})}}},
      {"var->pointer[2]->x[0x10].y", "f var->pointer[2]->x[0x10].y",
       {.point = {.function = "f"},
        .args = {var("var", {arrow("pointer"), idx(2), arrow("x"), idx(16), dot("y")})}}},
      {"negative index", "f p[-1]", {.point = {.function = "f"}, .args = {var("p", {idx(-1)})}}},
      {"NAME=VAR->m:TYPE", "walk:5 name=p->name:string",
       {.point = {.function = "walk", .line = 5}, .args = {var("p", {arrow("name")}, "string", "name")}}},
      {"$retval at %return", "vfs_read%return $retval",
       {.point = {.function = "vfs_read", .is_return = true}, .args = {special(K::Retval)}}},
      {"NAME=$retval:TYPE", "f%return ret=$retval:s32",
       {.point = {.function = "f", .is_return = true}, .args = {special(K::Retval, "s32", "ret")}}},
      {"$retval without %return is left to the resolver", "f $retval",
       {.point = {.function = "f"}, .args = {special(K::Retval)}}},
      {"$params and $vars", "f $params $vars",
       {.point = {.function = "f"}, .args = {special(K::Params), special(K::Vars)}}},
      {"$comm with a name and type", "f comm=$comm:string $comm",
       {.point = {.function = "f"}, .args = {special(K::Comm, "string", "comm"), special(K::Comm)}}},
      {"%REG and %REG:TYPE", "f %ax %di:x64 len=%dx:u32",
       {.point = {.function = "f"}, .args = {reg("ax"), reg("di", "x64"), reg("dx", "u32", "len")}}},
      {"@SYMBOL", "f @jiffies", {.point = {.function = "f"}, .args = {sym("jiffies")}}},
      {"@SYMBOL with a chain and type", "f @init_task.comm:string",
       {.point = {.function = "f"}, .args = {sym("init_task", {dot("comm")}, "string")}}},
      {"%return reads registers and globals", "f%return %ax @jiffies",
       {.point = {.function = "f", .is_return = true}, .args = {reg("ax"), sym("jiffies")}}},
      // TYPES
      {"u8/u16/u32/u64", "f a:u8 b:u16 c:u32 d:u64",
       {.point = {.function = "f"}, .args = {var("a", {}, "u8"), var("b", {}, "u16"), var("c", {}, "u32"),
                                              var("d", {}, "u64")}}},
      {"s8/s16/s32/s64", "f a:s8 b:s16 c:s32 d:s64",
       {.point = {.function = "f"}, .args = {var("a", {}, "s8"), var("b", {}, "s16"), var("c", {}, "s32"),
                                              var("d", {}, "s64")}}},
      {"x8/x16/x32/x64", "f a:x8 b:x16 c:x32 d:x64",
       {.point = {.function = "f"}, .args = {var("a", {}, "x8"), var("b", {}, "x16"), var("c", {}, "x32"),
                                              var("d", {}, "x64")}}},
      {"u/s/x with the size from debuginfo", "f a:u b:s c:x",
       {.point = {.function = "f"}, .args = {var("a", {}, "u"), var("b", {}, "s"), var("c", {}, "x")}}},
      {"string, ustring, symbol", "f a:string b:ustring c:symbol",
       {.point = {.function = "f"},
        .args = {var("a", {}, "string"), var("b", {}, "ustring"), var("c", {}, "symbol")}}},
      {"bitfield b<width>@<offset>/<container>", "f flags:b4@2/32 top:b1@63/64",
       {.point = {.function = "f"}, .args = {var("flags", {}, "b4@2/32"), var("top", {}, "b1@63/64")}}},
      {"arrays", "f buf:u8[4] words:x64[64] names:string[2]",
       {.point = {.function = "f"},
        .args = {var("buf", {}, "u8[4]"), var("words", {}, "x64[64]"), var("names", {}, "string[2]")}}},
  };
}

class Accept : public testing::TestWithParam<AcceptCase> {};

TEST_P(Accept, ParsesToTheModel) {
  const AcceptCase &c = GetParam();
  auto parsed = parse_probe_spec(c.text);
  ASSERT_TRUE(parsed) << c.why << ": " << parsed.error().message;
  EXPECT_EQ(meaning(*parsed), c.expected) << c.why;
  EXPECT_EQ(parsed->text, c.text);
}

TEST_P(Accept, FormatsToTextThatParsesBack) {
  const AcceptCase &c = GetParam();
  std::string formatted = format_probe_spec(c.expected);
  auto again = parse_probe_spec(formatted);
  ASSERT_TRUE(again) << c.why << ": '" << formatted << "': " << again.error().message;
  EXPECT_EQ(meaning(*again), c.expected) << c.why << ": formatted as '" << formatted << "'";
}

INSTANTIATE_TEST_SUITE_P(PerfProbeSyntax, Accept, testing::ValuesIn(accept_cases()),
                         [](const testing::TestParamInfo<AcceptCase> &info) {
                           return "case" + std::to_string(info.index);
                         });

// Arguments remember how and where they were typed, for --list "with ..." and carets.
TEST(ParseProbeSpec, ArgsKeepTheirTextAndColumns) {
  auto parsed = parse_probe_spec("f  a->b:u8  c");
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->args.size(), 2u);
  EXPECT_EQ(parsed->args[0].text, "a->b:u8");
  EXPECT_EQ(parsed->args[0].span, (Span{3, 10}));
  EXPECT_EQ(parsed->args[1].text, "c");
  EXPECT_EQ(parsed->args[1].span, (Span{12, 13}));
}

TEST(ParseProbeSpec, TakesUpTo128Arguments) {
  std::string text = "f";
  for (int i = 0; i < 128; ++i) text += " a" + std::to_string(i);
  auto parsed = parse_probe_spec(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->args.size(), 128u);
}

// The exact text format_* writes, where a user or --list sees it.
struct FormatCase {
  ProbeSpec spec;
  std::string text;
};

class Format : public testing::TestWithParam<FormatCase> {};

TEST_P(Format, WritesPerfSyntax) { EXPECT_EQ(format_probe_spec(GetParam().spec), GetParam().text); }

INSTANTIATE_TEST_SUITE_P(
    PerfProbeSyntax, Format,
    testing::Values(
        FormatCase{{.point = {.function = "schedule", .line = 12}, .args = {var("cpu")}}, "schedule:12 cpu"},
        FormatCase{{.group = "g", .event = "e", .point = {.function = "f", .is_return = true},
                    .args = {special(K::Retval, "s32", "ret")}},
                   "g:e=f%return ret=$retval:s32"},
        FormatCase{{.point = {.function = "malloc_get_state@GLIBC_2.2.5"}}, "malloc_get_state\\@GLIBC_2.2.5"},
        FormatCase{{.point = {.file = "foo+bar.c", .line = 4}}, "foo\\+bar.c:4"},
        FormatCase{{.point = {.function = "vfs_read", .file = "fs/read_write.c", .offset = 0x1c}},
                   "vfs_read@fs/read_write.c+28"},
        FormatCase{{.point = {.address = 0x4005d0}}, "0x4005d0"},
        FormatCase{{.point = {.file = "Makefile", .line = 3}}, "@Makefile:3"},
        FormatCase{{.point = {.function = "ns::Cls::run", .line = 3}}, "ns::Cls::run:3"},
        FormatCase{{.point = {.function = "odd:name"}}, "odd\\:name"},
        FormatCase{{.point = {.function = "f.isra.0", .line = 3}}, "f.isra.0@*:3"},
        FormatCase{{.point = {.function = "f"},
                    .args = {var("p", {arrow("a"), idx(2), dot("b")}, "u8[4]"), reg("ax", "x64"),
                             sym("jiffies"), special(K::Params), special(K::Vars), special(K::Comm)}},
                   "f p->a[2].b:u8[4] %ax:x64 @jiffies $params $vars $comm"}));

// REFERENCE.md 1.3: how perf names a field the user did not name.
struct NameCase {
  std::string arg;  // one argument, typed after "f "
  std::string name;
};

class DefaultName : public testing::TestWithParam<NameCase> {};

TEST_P(DefaultName, FollowsPerf) {
  auto parsed = parse_probe_spec("f " + GetParam().arg);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(default_arg_name(parsed->args.at(0)), GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(
    Reference13, DefaultName,
    testing::Values(NameCase{"len=count", "len"},                   // explicit NAME wins
                    NameCase{"p->name", "name"},                    // last member
                    NameCase{"var->field1.field2", "field2"},       // perf-probe.txt's example
                    NameCase{"var->array[0]", "array"},             // indexes are skipped
                    NameCase{"array[1]", "array"},                  // only an index: the variable
                    NameCase{"p->name:string", "name"},             // a chain ignores the type
                    NameCase{"cpu", "cpu"},                         // plain variable
                    NameCase{"flags:x32", "flags_x32"},             // ':' becomes '_'
                    NameCase{"flags:b4@2/32", "flags_b4_2_32"},     // and so does what a field can't hold
                    NameCase{"$retval", ""}, NameCase{"%ax", ""},   // raw: the caller names them argN
                    NameCase{"@jiffies", ""}, NameCase{"$comm", ""},
                    NameCase{"r=$retval", "r"}));

}  // namespace
}  // namespace kpp
