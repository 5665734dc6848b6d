// --stack on real uprobes: the user stack of a probe inside a helper
// inlined into b(), called main -> a -> b, compared frame by frame with
// what gdb's `bt` and `info symbol` say at the same line: the functions
// (the inlined one included), their lines, and each frame's symbol+offset.
// Then the same stack read back from a trace.dat, by trace-cmd and by
// `kprobe-probe report`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "uprobe_support.h"

using namespace uprobe_test;

namespace {

const std::string fixture = KPP_STACK_FIXTURE;
const std::string source = KPP_STACK_FIXTURE_SOURCE;

// What gdb says of one frame: function, line, and the symbol+offset of its pc.
struct GdbFrame {
  std::string function;
  int line = 0;
  std::string sym;
  uint64_t off = 0;
};

const std::string gdb = KPP_STACK_GDB;              // empty: not installed
const std::string trace_cmd = KPP_STACK_TRACE_CMD;  // empty: not installed

// gdb stopped at `line` of the fixture: `bt`, then `info symbol $pc` in each frame.
std::vector<GdbFrame> gdb_frames(int line, size_t depth) {
  std::vector<std::string> argv{gdb, "-batch", "-nx", "-ex", "break stack_fixture.c:" + std::to_string(line),
                                "-ex", "run", "-ex", "bt"};
  for (size_t i = 0; i < depth; ++i) {
    argv.insert(argv.end(), {"-ex", "frame " + std::to_string(i), "-ex", "echo SYM \n", "-ex", "info symbol $pc"});
  }
  argv.insert(argv.end(), {"--args", fixture, "quick"});
  run_result r = run_program(argv);
  std::vector<GdbFrame> frames;
  static const std::regex bt(R"(^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\w+) \(.*\) at (\S+):(\d+)\s*$)");
  static const std::regex sym(R"(^(\w+)(?: \+ (\d+))? in section )");
  bool want_sym = false;
  size_t sym_index = 0;
  for (const std::string &l : split_lines(r.out)) {
    std::smatch m;
    if (std::regex_match(l, m, bt)) {
      if (std::stoul(m[1]) == frames.size() && frames.size() < depth)
        frames.push_back({m[2], std::stoi(m[4]), "", 0});
    } else if (l.rfind("SYM", 0) == 0) {
      want_sym = true;
    } else if (want_sym && std::regex_search(l, m, sym)) {
      if (sym_index < frames.size()) {
        frames[sym_index].sym = m[1];
        frames[sym_index].off = m[2].matched ? std::stoull(m[2]) : 0;
      }
      ++sym_index;
      want_sym = false;
    }
  }
  EXPECT_EQ(frames.size(), depth) << "gdb said:\n" << r.out << r.err;
  return frames;
}

// The "stack" of the one event of `group` in `trace --json` output.
std::vector<json_value> stack_of_only_event(const std::string &out, const std::string &group) {
  std::vector<json_value> stacks;
  size_t events = 0;
  for (const std::string &l : split_lines(out)) {
    auto v = parse_json(l);
    if (!v || !v->get("event") || v->get("event")->text.rfind(group + ":", 0) != 0) continue;
    ++events;
    if (const json_value *s = v->get("stack")) stacks = s->items;
  }
  EXPECT_EQ(events, 1u) << out;
  return stacks;
}

std::string text_of(const json_value &frame, const char *key) {
  const json_value *v = frame.get(key);
  return v ? v->text : "<absent>";
}

class Stack : public UprobeGroupTest {
 protected:
  Stack() : UprobeGroupTest("kpptest_stack") {}

  void SetUp() override {
    UprobeGroupTest::SetUp();
    if (IsSkipped()) return;
    if (gdb.empty()) GTEST_SKIP() << "gdb (the oracle) is not installed";
    line_ = line_of(source, "probe: leaf");
    run_result add = kpp({"-q", "-x", fixture, ev("leaf") + "stack_fixture.c:" + std::to_string(line_)});
    ASSERT_EQ(add.status, 0) << describe(add);
    gdb_ = gdb_frames(line_, 4);
  }

  // The first four frames of `stack` are gdb's: leaf (inlined) at the
  // probe's line, b at the same pc, a and main at their calls.
  void expect_gdb_frames(const std::vector<json_value> &stack) {
    ASSERT_GE(stack.size(), 4u);
    ASSERT_EQ(gdb_.size(), 4u);
    EXPECT_EQ(gdb_[0].function, "leaf");
    EXPECT_EQ(gdb_[3].function, "main");
    for (size_t i = 0; i < 4; ++i) {
      SCOPED_TRACE("frame #" + std::to_string(i));
      const json_value &f = stack[i];
      EXPECT_EQ(text_of(f, "sym"), gdb_[i].function);
      EXPECT_EQ(text_of(f, "line"), std::to_string(gdb_[i].line));
      EXPECT_EQ(text_of(f, "user"), "true");
      EXPECT_NE(text_of(f, "file").find("stack_fixture.c"), std::string::npos);
      bool inlined = gdb_[i].function != gdb_[i].sym;  // gdb's pc is in another symbol: inlined there
      EXPECT_EQ(text_of(f, "inlined"), inlined ? "true" : "false");
      if (!inlined) {
        EXPECT_EQ(text_of(f, "off"), std::to_string(gdb_[i].off));
      }
    }
    // The inlined frame and the function it is in share one pc.
    EXPECT_EQ(text_of(stack[0], "ip"), text_of(stack[1], "ip"));
  }

  int line_ = 0;
  std::vector<GdbFrame> gdb_;
};

TEST_F(Stack, UserStackMatchesGdbWhileTheProcessLives) {
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--stack", "--", fixture});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<json_value> stack = stack_of_only_event(trace.out, group_);
  expect_gdb_frames(stack);
  // Past main: the C library's frames, placed in its file by the maps.
  ASSERT_GE(stack.size(), 5u) << trace.out;
  EXPECT_NE(text_of(stack[4], "object").find("libc"), std::string::npos) << trace.out;
}

TEST_F(Stack, ProbedBinaryIsNamedAfterTheProcessIsGone) {
  // "quick": the fixture exits at once, before its maps can be read; the
  // probe's own address still places the fixture's frames.
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--stack", "--", fixture, "quick"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  expect_gdb_frames(stack_of_only_event(trace.out, group_));
}

TEST_F(Stack, TextShowsIndentedFramesUnderTheEvent) {
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--stack", "--", fixture});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<std::string> lines = split_lines(trace.out);
  size_t at = lines.size();
  for (size_t i = 0; i < lines.size(); ++i)
    if (contains(lines[i], group_ + ":leaf")) at = i;
  ASSERT_LT(at + 4, lines.size()) << trace.out;
  std::regex frame(R"(^    [0-9a-f]{16} (\w+)(\+0x[0-9a-f]+| \(inlined\)) \S*stack_fixture\.c:(\d+)$)");
  for (size_t i = 0; i < 4; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[at + 1 + i], m, frame)) << lines[at + 1 + i];
    EXPECT_EQ(m[1], gdb_[i].function);
    EXPECT_EQ(std::stoi(m[3]), gdb_[i].line);
  }
}

TEST_F(Stack, TraceDatHoldsTheKernelsUserStackEvents) {
  if (trace_cmd.empty()) GTEST_SKIP() << "trace-cmd is not installed";
  char dir[] = "/tmp/kpptest_stack_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string dat = std::string(dir) + "/stack.dat";
  run_result rec = kpp({"record", "-q", "-e", group_ + ":*", "--stack", "--user-stack=fp", "-o", dat, "--", fixture});
  ASSERT_EQ(rec.status, 0) << describe(rec);
  // trace-cmd shows the kernel's own user_stack event after the probe's:
  // "fixture-1 [000] 1.2: user_stack:  \t=> 0x55afaa2b0159" then "\t=> 0x..." lines.
  run_result tc = run_program({trace_cmd, "report", dat});
  ASSERT_EQ(tc.status, 0) << describe(tc);
  std::vector<std::string> addresses;
  static const std::regex arrow(R"(=> 0x([0-9a-f]+))");
  bool in_stack = false;
  for (const std::string &l : split_lines(tc.out)) {
    if (contains(l, "user_stack:")) in_stack = true;
    else if (!contains(l, "=>")) in_stack = false;
    std::smatch m;
    if (in_stack && std::regex_search(l, m, arrow) && m[1] != "0") addresses.push_back(m[1]);
  }
  ASSERT_GE(addresses.size(), 3u) << tc.out;  // b (leaf inlined), a, main
  // Our report joins the same addresses to the probe's event, named.
  run_result rep = kpp({"report", "--json", dat});
  ASSERT_EQ(rep.status, 0) << describe(rep);
  std::vector<json_value> stack = stack_of_only_event(rep.out, group_);
  expect_gdb_frames(stack);
  std::vector<std::string> ours;
  for (const json_value &f : stack)
    if (text_of(f, "inlined") == "false") ours.push_back(text_of(f, "ip"));
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_LT(i, ours.size());
    EXPECT_EQ(std::stoull(ours[i], nullptr, 16), std::stoull(addresses[i], nullptr, 16)) << tc.out;
  }
  std::remove(dat.c_str());
  rmdir(dir);
}

}  // namespace
