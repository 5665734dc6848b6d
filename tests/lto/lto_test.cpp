// Functions whose DWARF lies in several units: the LTO fixture (three files
// linked with -flto by gcc and by clang) probed by line, by source line and
// by function. gcc's LTO units hold each function's code with an abstract
// origin in the unit it was compiled in; clang's inline one file's function
// into another's. Lines are checked against gdb at the same addresses,
// values against what the fixture computed, and -l against what --add said.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lto_support.h"
#include "uprobe_support.h"

namespace {

using namespace uprobe_test;
using namespace lto_test;

const std::string fixture_dir = KPP_LTO_FIXTURE_DIR;
const std::string source_dir = KPP_LTO_SOURCE_DIR;
const std::string util_c = source_dir + "/lto_util.c";
const std::string work_c = source_dir + "/lto_work.c";

// perf's relative line of a marker: from the line the function is declared on.
int relative(const std::string &file, const std::string &marker, const std::string &declaration) {
  return line_of(file, marker) - line_of(file, declaration);
}
int work_print_rel() { return relative(work_c, "@work_print", "int accumulate(int n, int k)"); }

// The "(on POINT" of every line of `event` ("GROUP:EVENT") in --add's or -l's output, sorted.
std::multiset<std::string> points_of(const std::string &output, const std::string &event) {
  std::multiset<std::string> points;
  for (const std::string &line : split_lines(output)) {
    if (!contains(line, "  " + event + " ")) continue;
    size_t on = line.find("(on ");
    if (on == std::string::npos) continue;
    size_t end = line.find(" in ", on);
    points.insert(line.substr(on + 4, end == std::string::npos ? std::string::npos : end - on - 4));
  }
  return points;
}

class LtoBuild : public UprobeGroupTest, public ::testing::WithParamInterface<std::string> {
 protected:
  LtoBuild() : UprobeGroupTest("kpptest_lto") {}
  std::string fixture() const { return fixture_dir + "/lto_" + GetParam(); }

  // -D of `spec`: must succeed with no address twice; the link-time addresses of its sites.
  std::vector<uint64_t> sites_of(const std::string &spec) {
    run_result d = kpp({"-x", fixture(), "-D", spec});
    EXPECT_EQ(d.status, 0) << spec << "\n" << describe(d);
    EXPECT_EQ(repeated_offsets(d.out), std::vector<uint64_t>{}) << "repeated addresses in\n" << d.out;
    std::vector<uint64_t> addresses;
    for (uint64_t offset : definition_offsets(d.out)) {
      auto address = address_of_offset(fixture(), offset);
      EXPECT_TRUE(address) << "offset " << offset << " is in no segment of " << fixture();
      if (address) addresses.push_back(*address);
    }
    return addresses;
  }

  // Every one of `sites` is a place where gdb breaks for `line` of `file`,
  // gdb's first such place is one of them, and there gdb says the line starts.
  void expect_gdb_agrees(const std::vector<uint64_t> &sites, const std::string &file, int line) {
    expect_sites_agree_with_gdb(fixture(), sites, file, line);
  }
};

// FUNC:RLN counts from the function's declaration in its own unit, and its
// rows are found in the unit that holds its code ("has no code" before).
TEST_P(LtoBuild, LineOfAFunctionIsWhereGdbSaysItIs) {
  std::vector<uint64_t> sites = sites_of("accumulate:" + std::to_string(work_print_rel()) + " n k");
  ASSERT_FALSE(sites.empty());
  expect_gdb_agrees(sites, work_c, line_of(work_c, "@work_print"));
}

// SRC:ALN finds the lines of the helper in its out-of-line body and in the
// copies inlined into another file's function, and a line's sites are
// where gdb puts that line (which lines keep code where is the compiler's
// choice; a line with none is refused).
TEST_P(LtoBuild, SourceLinesOfAnInlinedHelperAreWhereGdbSaysTheyAre) {
  size_t lines = 0;
  for (const char *marker : {"@scale_mul", "@scale_if", "@scale_cut", "@scale_ret"}) {
    int line = line_of(util_c, marker);
    std::string spec = "lto_util.c:" + std::to_string(line);
    run_result d = kpp({"-x", fixture(), "-D", spec});
    if (d.status != 0) {
      EXPECT_TRUE(contains(d.err, "no code at " + spec)) << describe(d);
      continue;
    }
    std::vector<uint64_t> found = sites_of(spec);
    ASSERT_FALSE(found.empty()) << d.out;
    expect_gdb_agrees(found, util_c, line);
    ++lines;
  }
  EXPECT_GE(lines, 2u);
}

// FUNC@SRC: the file is the one the function was declared in, not the LTO unit's.
TEST_P(LtoBuild, FunctionAtFileIsTheFileItWasWrittenIn) {
  EXPECT_FALSE(sites_of("accumulate@lto_work.c").empty());
  EXPECT_FALSE(sites_of("scale@lto_util.c").empty());
  run_result wrong = kpp({"-x", fixture(), "-D", "scale@lto_work.c"});
  EXPECT_NE(wrong.status, 0) << describe(wrong);
}

// -L FUNC lists the function's own file; -L SRC:ALN heads with SRC even
// where the line's code was inlined into another file's function.
TEST_P(LtoBuild, ListingsNameTheLinesOwnFile) {
  run_result fn = kpp({"-x", fixture(), "-L", "accumulate"});
  ASSERT_EQ(fn.status, 0) << describe(fn);
  std::vector<std::string> lines = split_lines(fn.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "<accumulate@" + work_c + ":0>");
  std::string print_line = std::to_string(work_print_rel());
  bool listed = std::any_of(lines.begin(), lines.end(), [&](const std::string &l) {
    return l.find(print_line) < 8 && contains(l, "@work_print");
  });
  EXPECT_TRUE(listed) << "line " << print_line << " with its code in\n" << fn.out;

  int line = line_of(util_c, "@scale_mul");
  run_result src = kpp({"-x", fixture(), "-L", "lto_util.c:" + std::to_string(line) + "+3"});
  ASSERT_EQ(src.status, 0) << describe(src);
  lines = split_lines(src.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "<" + util_c + ":" + std::to_string(line) + ">");
}

// The values the probes read are those the fixture computed; --add and -l
// name the same function, line and file for every site.
TEST_P(LtoBuild, ProbesReadWhatTheProgramComputedAndListAsAdded) {
  run_result add = kpp({"-x", fixture(), "-a", ev("scale") + "scale v k", "-a",
                        ev("accumulate") + "accumulate:" + std::to_string(work_print_rel()) + " n k"});
  ASSERT_EQ(add.status, 0) << describe(add);
  // A line probe: -l names the function and line --add named.
  std::string line_event = group_ + ":accumulate";
  std::multiset<std::string> added = points_of(add.err, line_event);
  ASSERT_FALSE(added.empty()) << add.err;
  for (const std::string &p : added)
    EXPECT_EQ(p.substr(0, p.find('@')), "accumulate:" + std::to_string(work_print_rel())) << p;
  run_result list = kpp({"-l", group_ + ":*"});
  ASSERT_EQ(list.status, 0) << describe(list);
  EXPECT_EQ(points_of(list.out, line_event), added) << "--add said:\n" << add.err << "-l says:\n" << list.out;
  for (const std::string &p : points_of(list.out, line_event)) EXPECT_TRUE(p.ends_with("lto_work.c")) << p;

  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = truth_lines(trace.err);
  ASSERT_EQ(truth.size(), 4u) << trace.out;  // scale twice inlined and once out of line, accumulate once
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

std::vector<std::string> lto_builds() { return builds_in(KPP_LTO_BUILDS); }

INSTANTIATE_TEST_SUITE_P(Compilers, LtoBuild, ::testing::ValuesIn(lto_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

}  // namespace
