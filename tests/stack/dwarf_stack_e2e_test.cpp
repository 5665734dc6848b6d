// --stack's DWARF unwinding on real uprobes, against two oracles at the
// same address: gdb's `bt` (functions, inlined ones included, and lines)
// and perf's `perf record --call-graph dwarf` chain on the very same event.
// On a fixture built at -O2 without frame pointers and with them, probed at
// leaf's first instruction (leaf <- middle <- main must hold there), and on
// Debian's python3.11 (no frame pointers, LTO; its DWARF from
// python3.11-dbg), probed at PyDict_SetItem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "uprobe_support.h"

using namespace uprobe_test;

namespace {

const std::string gdb = KPP_STACK_GDB;    // empty: not installed
const std::string perf = KPP_STACK_PERF;  // empty: not installed
const std::string source = KPP_DWARF_FIXTURE_SOURCE;
const std::string trace_cmd = KPP_STACK_TRACE_CMD;  // empty: not installed
const std::string python = "/usr/bin/python3.11";

struct Frame {
  std::string function;
  int line = 0;  // 0: not compared
};

// A name without the compiler's clone suffixes (type_ready.lto_priv.0 is
// gdb's type_ready).
std::string base_name(const std::string &name) { return name.substr(0, name.find('.')); }

// gdb stopped at `where` (a breakpoint spec): the first `depth` frames of `bt`.
std::vector<Frame> gdb_frames(const std::vector<std::string> &program, const std::string &where, size_t depth) {
  std::vector<std::string> argv{gdb, "-batch", "-nx", "-ex", "break " + where, "-ex", "run", "-ex",
                                "bt " + std::to_string(depth), "--args"};
  argv.insert(argv.end(), program.begin(), program.end());
  run_result r = run_program(argv);
  std::vector<Frame> frames;
  static const std::regex bt(R"(^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+):(\d+)\s*$)");
  for (const std::string &l : split_lines(r.out)) {
    std::smatch m;
    if (std::regex_match(l, m, bt) && std::stoul(m[1]) == frames.size()) frames.push_back({m[2], std::stoi(m[4])});
  }
  EXPECT_EQ(frames.size(), depth) << "gdb said:\n" << r.out << r.err;
  return frames;
}

// perf's chain for the first sample of `event` (already defined) on `program`.
std::vector<std::string> perf_chain(const std::string &event, const std::vector<std::string> &program) {
  char dir[] = "/tmp/kpptest_dwarfstack_XXXXXX";
  if (!mkdtemp(dir)) return {};
  std::string data = std::string(dir) + "/perf.data";
  std::vector<std::string> rec{perf, "record", "-q", "-e", event, "--call-graph", "dwarf", "-o", data, "--"};
  rec.insert(rec.end(), program.begin(), program.end());
  run_result r = run_program(rec);
  EXPECT_EQ(r.status, 0) << describe(r);
  run_result script = run_program({perf, "script", "-i", data});
  std::remove(data.c_str());
  rmdir(dir);
  // "\t  1190 leaf+0x0 (/tmp/x)" and "\t  11b7 helper+0x7 (inlined)", up to the blank line.
  std::vector<std::string> chain;
  static const std::regex frame(R"(^\s+[0-9a-f]+ (\S+?)(\+0x[0-9a-f]+)? \(.*\)$)");
  bool started = false;
  for (const std::string &l : split_lines(script.out)) {
    std::smatch m;
    if (std::regex_match(l, m, frame)) {
      started = true;
      chain.push_back(m[1]);
    } else if (started) {
      break;
    }
  }
  EXPECT_FALSE(chain.empty()) << script.out << script.err;
  return chain;
}

// The "stack" of the first event of `group` in `trace --json` output.
std::vector<json_value> first_stack(const std::string &out, const std::string &group) {
  for (const std::string &l : split_lines(out)) {
    auto v = parse_json(l);
    if (!v || !v->get("event") || v->get("event")->text.rfind(group + ":", 0) != 0) continue;
    if (const json_value *s = v->get("stack")) return s->items;
    return {};
  }
  ADD_FAILURE() << "no event of " << group << " in:\n" << out;
  return {};
}

std::string text_of(const json_value &frame, const char *key) {
  const json_value *v = frame.get(key);
  return v ? v->text : "<absent>";
}

class DwarfStack : public UprobeGroupTest {
 protected:
  DwarfStack() : UprobeGroupTest("kpptest_dwstack") {}

  // Our first frames equal gdb's: functions (inlined flagged) and lines.
  static void expect_gdb_frames(const std::vector<json_value> &stack, const std::vector<Frame> &gdb_said) {
    ASSERT_GE(stack.size(), gdb_said.size());
    for (size_t i = 0; i < gdb_said.size(); ++i) {
      SCOPED_TRACE("frame #" + std::to_string(i));
      EXPECT_EQ(base_name(text_of(stack[i], "sym")), base_name(gdb_said[i].function));
      if (gdb_said[i].line) {
        EXPECT_EQ(text_of(stack[i], "line"), std::to_string(gdb_said[i].line));
      }
      EXPECT_EQ(text_of(stack[i], "user"), "true");
    }
  }

  // And perf's chain, name for name.
  static void expect_perf_chain(const std::vector<json_value> &stack, const std::vector<std::string> &chain, size_t n) {
    ASSERT_GE(chain.size(), n);
    ASSERT_GE(stack.size(), n);
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(base_name(text_of(stack[i], "sym")), base_name(chain[i])) << "frame #" << i;
  }

  void check_fixture(const std::string &fixture, const std::vector<std::string> &args) {
    if (gdb.empty()) GTEST_SKIP() << "gdb (the oracle) is not installed";
    run_result add = kpp({"-q", "-x", fixture, ev("leaf") + "leaf"});
    ASSERT_EQ(add.status, 0) << describe(add);
    std::vector<std::string> program{fixture};
    program.insert(program.end(), args.begin(), args.end());
    std::vector<std::string> argv{"trace", "-e", group_ + ":*", "--json", "--stack", "--"};
    argv.insert(argv.end(), program.begin(), program.end());
    run_result trace = kpp(argv);
    ASSERT_EQ(trace.status, 0) << describe(trace);
    std::vector<json_value> stack = first_stack(trace.out, group_);
    // At leaf+0: leaf, helper (inlined into middle), middle, main.
    std::vector<Frame> said = gdb_frames(program, "*leaf", 4);
    ASSERT_EQ(said.size(), 4u);
    EXPECT_EQ(said[2].function, "middle");
    expect_gdb_frames(stack, said);
    EXPECT_EQ(text_of(stack[0], "off"), "0");
    EXPECT_EQ(text_of(stack[1], "inlined"), "true");
    EXPECT_EQ(text_of(stack[2], "inlined"), "false");
    EXPECT_EQ(text_of(stack[1], "ip"), text_of(stack[2], "ip"));
    // Past main, the C library, named though the process may be gone.
    ASSERT_GE(stack.size(), 5u) << trace.out;
    EXPECT_NE(text_of(stack[4], "object").find("libc"), std::string::npos) << trace.out;
    if (perf.empty()) return;
    expect_perf_chain(stack, perf_chain(group_ + ":leaf", program), 5);
  }
};

TEST_F(DwarfStack, EntryOfLeafKeepsItsCallerWithoutFramePointers) { check_fixture(KPP_DWARF_FIXTURE_NOFP, {}); }

TEST_F(DwarfStack, EntryOfLeafKeepsItsCallerWithFramePointers) { check_fixture(KPP_DWARF_FIXTURE_FP, {}); }

TEST_F(DwarfStack, ProcessGoneBeforeItsStackIsRead) {
  // "quick": the program exits at once; its mappings come from perf's
  // records, not from /proc.
  check_fixture(KPP_DWARF_FIXTURE_NOFP, {"quick"});
}

TEST_F(DwarfStack, FramePointerWalkStillThereOnRequest) {
  run_result add = kpp({"-q", "-x", KPP_DWARF_FIXTURE_FP, ev("leaf") + "leaf"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--stack", "--user-stack=fp", "--",
                          KPP_DWARF_FIXTURE_FP});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  // The kernel's walk at leaf+0 (no frame made yet) misses middle: as documented.
  std::vector<json_value> stack = first_stack(trace.out, group_);
  ASSERT_GE(stack.size(), 2u) << trace.out;
  EXPECT_EQ(text_of(stack[0], "sym"), "leaf");
  for (const json_value &f : stack) EXPECT_NE(text_of(f, "sym"), "middle") << trace.out;
}

TEST_F(DwarfStack, PythonFramesAreGdbsAndPerfs) {
  if (gdb.empty()) GTEST_SKIP() << "gdb (the oracle) is not installed";
  if (access(python.c_str(), X_OK) != 0) GTEST_SKIP() << python << " is not installed";
  run_result add = kpp({"-q", "-x", python, "--no-inlines", ev("PyDict_SetItem") + "PyDict_SetItem"});
  if (add.status != 0 && contains(add.err, "DWARF")) GTEST_SKIP() << "python3.11-dbg is not installed";
  ASSERT_EQ(add.status, 0) << describe(add);
  std::vector<std::string> program{python, "-c", "pass"};
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--stack", "--", python, "-c", "pass"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  EXPECT_FALSE(contains(trace.err, "lost")) << trace.err;
  std::vector<json_value> stack = first_stack(trace.out, group_);
  // gdb at PyDict_SetItem+0 shows the line of an inlined call that starts
  // there (object.h) in PyDict_SetItem's frame; the callers' lines are compared.
  std::vector<Frame> said = gdb_frames(program, "*PyDict_SetItem", 12);
  ASSERT_EQ(said.size(), 12u);
  said[0].line = 0;
  EXPECT_EQ(said[1].function, "add_tp_new_wrapper");
  expect_gdb_frames(stack, said);
  // Every event has its stack, down to the program's entry or the window's end.
  size_t events = 0, stacked = 0;
  for (const std::string &l : split_lines(trace.out)) {
    auto v = parse_json(l);
    if (!v || !v->get("event")) continue;
    ++events;
    const json_value *s = v->get("stack");
    if (s && s->items.size() >= 3) ++stacked;
  }
  EXPECT_GT(events, 100u);
  EXPECT_EQ(stacked, events);
  if (perf.empty()) return;
  expect_perf_chain(stack, perf_chain(group_ + ":PyDict_SetItem", program), 12);
}

// "stack count" lines of --folded output; the counts by stack.
std::map<std::string, uint64_t> folded_counts(const std::string &out) {
  std::map<std::string, uint64_t> counts;
  for (const std::string &l : split_lines(out)) {
    size_t space = l.rfind(' ');
    if (space == std::string::npos) continue;
    counts[l.substr(0, space)] += std::stoull(l.substr(space + 1));
  }
  return counts;
}

// The "N events" of a run's summary on stderr.
uint64_t events_said(const std::string &err) {
  std::smatch m;
  static const std::regex said(R"((\d+) events)");
  return std::regex_search(err, m, said) ? std::stoull(m[1]) : 0;
}

TEST_F(DwarfStack, FoldedStackOfTheFixtureIsGdbsChainRootFirst) {
  if (gdb.empty()) GTEST_SKIP() << "gdb (the oracle) is not installed";
  std::string fixture = KPP_DWARF_FIXTURE_NOFP;
  ASSERT_EQ(kpp({"-q", "-x", fixture, ev("leaf") + "leaf"}).status, 0);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--stack", "--folded", "--", fixture});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::map<std::string, uint64_t> counts = folded_counts(trace.out);
  ASSERT_EQ(counts.size(), 1u) << trace.out;
  std::vector<Frame> said = gdb_frames({fixture}, "*leaf", 4);
  ASSERT_EQ(said.size(), 4u);
  std::string tail;
  for (auto f = said.rbegin(); f != said.rend(); ++f) tail += ";" + f->function;
  const std::string &stack = counts.begin()->first;
  EXPECT_EQ(stack.rfind("dwarf_stack_fix", 0), 0u) << stack;  // the task's name (comm: 15 bytes)
  EXPECT_TRUE(stack.size() > tail.size() && stack.compare(stack.size() - tail.size(), tail.size(), tail) == 0)
      << stack << " does not end in " << tail;
  EXPECT_EQ(counts.begin()->second, 1u);
}

TEST_F(DwarfStack, FoldedCountsAddUpToTheEvents) {
  if (access(python.c_str(), X_OK) != 0) GTEST_SKIP() << python << " is not installed";
  run_result add = kpp({"-q", "-x", python, "--no-inlines", ev("PyDict_SetItem") + "PyDict_SetItem"});
  if (add.status != 0 && contains(add.err, "DWARF")) GTEST_SKIP() << "python3.11-dbg is not installed";
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--stack", "--folded", "--", python, "-c", "pass"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::map<std::string, uint64_t> counts = folded_counts(trace.out);
  uint64_t total = 0;
  size_t in_set_item = 0;
  for (const auto &[stack, n] : counts) {
    total += n;
    EXPECT_EQ(stack.rfind("python3.11;", 0), 0u) << stack;
    if (stack.size() > 15 && stack.compare(stack.size() - 15, 15, ";PyDict_SetItem") == 0) in_set_item += n;
  }
  EXPECT_GT(total, 100u);
  EXPECT_EQ(total, events_said(trace.err)) << trace.err;
  EXPECT_EQ(in_set_item, total);  // every stack ends in the probed function
}

// The "perf lost N user stack samples" of a run's summary (0: none said).
uint64_t perf_lost_said(const std::string &err) {
  std::smatch m;
  static const std::regex said(R"(perf lost (\d+) user stack samples)");
  return std::regex_search(err, m, said) ? std::stoull(m[1]) : 0;
}

TEST_F(DwarfStack, EachEventHasItsOwnHitsStackUnderMigrationAndLag) {
  // Four threads hit probe() from odd_caller (n odd) and even_caller (n
  // even), their handlers sleeping and moving between CPUs: an event with
  // another hit's stack shows the other caller (the program's own shape is
  // the oracle). Before the fix a quarter of them did on this machine.
  std::string fixture = KPP_DWARF_PAIRING_FIXTURE;
  ASSERT_EQ(kpp({"-q", "-x", fixture, ev("probe") + "probe n"}).status, 0);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--stack", "--duration", "3", "--", fixture});
  ASSERT_EQ(trace.status, 128 + SIGTERM) << describe(trace);  // the fixture's, ended by the trace's end
  static const std::regex event_line(R"(:probe n=(\d+))"), frame_line(R"(^    [0-9a-f]+ (\S+?)\+0x)");
  uint64_t events = 0, right = 0, wrong = 0, none = 0;
  std::string expected;
  std::vector<std::string> frames;
  auto judge = [&] {
    if (expected.empty()) return;
    ++events;
    bool has = frames.size() >= 2 && frames[0] == "probe";
    if (frames.empty()) ++none;
    else if (has && frames[1] == expected) ++right;
    else if (++wrong <= 5) ADD_FAILURE() << "n=" << (expected == "odd_caller" ? "odd" : "even") << ": " << frames[0] << " <- " << (frames.size() > 1 ? frames[1] : "");
  };
  for (const std::string &l : split_lines(trace.out)) {
    std::smatch m;
    if (std::regex_search(l, m, event_line)) {
      judge();
      expected = std::stoull(m[1]) % 2 ? "odd_caller" : "even_caller";
      frames.clear();
    } else if (std::regex_search(l, m, frame_line)) {
      frames.push_back(m[1]);
    }
  }
  judge();
  EXPECT_GT(events, 1000u) << trace.err;
  EXPECT_EQ(wrong, 0u) << right << " right of " << events;
  // An event without a stack is one whose sample perf lost (its ring full), and said.
  EXPECT_LE(none, perf_lost_said(trace.err)) << trace.err;
  if (none) EXPECT_NE(trace.err.find(std::to_string(none) + (none == 1 ? " event" : " events") + " came without"), std::string::npos) << trace.err;
  std::printf("%llu events: %llu with their own stack, %llu without (perf lost %llu samples), none with another's\n",
              static_cast<unsigned long long>(events), static_cast<unsigned long long>(right),
              static_cast<unsigned long long>(none), static_cast<unsigned long long>(perf_lost_said(trace.err)));
}

TEST_F(DwarfStack, ReportFoldsAFramePointerRecording) {
  std::string fixture = KPP_DWARF_FIXTURE_FP;
  ASSERT_EQ(kpp({"-q", "-x", fixture, ev("leaf") + "leaf"}).status, 0);
  char dir[] = "/tmp/kpptest_dwstack_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string dat = std::string(dir) + "/stack.dat";
  run_result rec = kpp({"record", "-q", "-e", group_ + ":*", "--stack", "--user-stack=fp", "-o", dat, "--", fixture});
  ASSERT_EQ(rec.status, 0) << describe(rec);
  run_result rep = kpp({"report", "--folded", dat});
  ASSERT_EQ(rep.status, 0) << describe(rep);
  std::map<std::string, uint64_t> counts = folded_counts(rep.out);
  uint64_t total = 0;
  for (const auto &[stack, n] : counts) total += n;
  EXPECT_EQ(total, events_said(rep.err)) << rep.out << rep.err;
  EXPECT_EQ(total, 1u);
  // The kernel's frame-pointer walk at leaf+0: leaf, then main's frame.
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_NE(counts.begin()->first.find(";leaf"), std::string::npos) << counts.begin()->first;
  std::remove(dat.c_str());
  rmdir(dir);
}

// record --stack unwinds from DWARF as trace does and keeps the stacks in
// the trace.dat (user_stack_table.h): report shows gdb's frames at leaf+0
// of a program built without frame pointers and gone before its stack was
// named ("quick"), trace-cmd still reads the file, and the folded counts
// add up to the events. Versions 6 and 7 (zstd).
TEST_F(DwarfStack, RecordedDwarfStacksAreGdbsInReportAndTraceCmdReadsTheFile) {
  if (gdb.empty()) GTEST_SKIP() << "gdb (the oracle) is not installed";
  std::string fixture = KPP_DWARF_FIXTURE_NOFP;
  ASSERT_EQ(kpp({"-q", "-x", fixture, ev("leaf") + "leaf"}).status, 0);
  std::vector<Frame> said = gdb_frames({fixture}, "*leaf", 4);
  ASSERT_EQ(said.size(), 4u);
  char dir[] = "/tmp/kpptest_dwstack_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  for (const char *version : {"6", "7"}) {
    SCOPED_TRACE(std::string("version ") + version);
    std::string dat = std::string(dir) + "/stack" + version + ".dat";
    std::vector<std::string> argv{"record", "-q", "-e", group_ + ":*", "--stack", "--file-version", version};
    if (std::string(version) == "7") argv.insert(argv.end(), {"--compression", "zstd"});
    argv.insert(argv.end(), {"-o", dat, "--", fixture, "quick"});
    run_result rec = kpp(argv);
    ASSERT_EQ(rec.status, 0) << describe(rec);
    run_result rep = kpp({"report", "--json", dat});
    ASSERT_EQ(rep.status, 0) << describe(rep);
    EXPECT_FALSE(contains(rep.err, "warning")) << rep.err;
    std::vector<json_value> stack = first_stack(rep.out, group_);
    expect_gdb_frames(stack, said);
    ASSERT_GE(stack.size(), 5u) << rep.out;
    EXPECT_EQ(text_of(stack[0], "off"), "0");
    EXPECT_EQ(text_of(stack[1], "inlined"), "true");
    EXPECT_NE(text_of(stack[4], "object").find("libc"), std::string::npos) << rep.out;
    run_result folded = kpp({"report", "--folded", dat});
    ASSERT_EQ(folded.status, 0) << describe(folded);
    std::map<std::string, uint64_t> counts = folded_counts(folded.out);
    uint64_t total = 0;
    for (const auto &[s, n] : counts) {
      total += n;
      EXPECT_NE(s.find(";main;middle;helper;leaf"), std::string::npos) << s;
    }
    EXPECT_EQ(total, events_said(folded.err)) << folded.out << folded.err;
    EXPECT_EQ(total, 1u);
    if (!trace_cmd.empty()) {
      // trace-cmd skips kprobe-probe's option and shows the event.
      run_result tc = run_program({trace_cmd, "report", dat});
      EXPECT_EQ(tc.status, 0) << describe(tc);
      EXPECT_TRUE(contains(tc.out, group_ + ":leaf") || contains(tc.out, "leaf:")) << tc.out;
      EXPECT_FALSE(contains(tc.err, "rror")) << tc.err;
    }
    std::remove(dat.c_str());
  }
  rmdir(dir);
}

}  // namespace
