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
int scale_ret_rel() { return relative(util_c, "@scale_ret", "int scale(int v, int k)"); }

// The "(on POINT" of every line of GROUP in --add's or -l's output, sorted.
std::multiset<std::string> points_of(const std::string &output, const std::string &group) {
  std::multiset<std::string> points;
  for (const std::string &line : split_lines(output)) {
    if (!contains(line, group + ":")) continue;
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
  std::vector<uint64_t> sites = sites_of("accumulate:" + std::to_string(work_print_rel()) + " total");
  ASSERT_FALSE(sites.empty());
  expect_gdb_agrees(sites, work_c, line_of(work_c, "@work_print"));
}

// SRC:ALN finds the line in the out-of-line helper and in the copy inlined
// into another file's function.
TEST_P(LtoBuild, SourceLineOfAnInlinedHelperIsWhereGdbSaysItIs) {
  int line = line_of(util_c, "@scale_ret");
  std::vector<uint64_t> sites = sites_of("lto_util.c:" + std::to_string(line));
  ASSERT_GE(sites.size(), 2u) << "the out-of-line scale() and its copy in accumulate()";
  expect_gdb_agrees(sites, util_c, line);
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
  int ret_line = line_of(util_c, "@scale_ret");
  run_result add = kpp({"-x", fixture(), "-a", ev("scale") + "lto_util.c:" + std::to_string(ret_line) + " v k", "-a",
                        ev("accumulate") + "accumulate:" + std::to_string(work_print_rel()) + " n k total"});
  ASSERT_EQ(add.status, 0) << describe(add);
  std::multiset<std::string> added = points_of(add.err, group_);
  EXPECT_TRUE(added.count("scale:" + std::to_string(scale_ret_rel()) + "@" + util_c.substr(util_c.size() - 29)) ||
              std::any_of(added.begin(), added.end(),
                          [&](const std::string &p) { return p.rfind("scale:" + std::to_string(scale_ret_rel()) + "@", 0) == 0; }))
      << add.err;
  for (const std::string &p : added)
    EXPECT_TRUE(p.rfind("scale:" + std::to_string(scale_ret_rel()) + "@", 0) == 0 ||
                p.rfind("accumulate:" + std::to_string(work_print_rel()) + "@", 0) == 0)
        << p;

  run_result list = kpp({"-l", group_ + ":*"});
  ASSERT_EQ(list.status, 0) << describe(list);
  EXPECT_EQ(points_of(list.out, group_), added) << "--add said:\n" << add.err << "-l says:\n" << list.out;

  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = truth_lines(trace.out);
  ASSERT_EQ(truth.size(), 5u) << trace.out;  // scale three times inlined and once out of line, accumulate once
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

std::vector<std::string> lto_builds() { return builds_in(KPP_LTO_BUILDS); }

INSTANTIATE_TEST_SUITE_P(Compilers, LtoBuild, ::testing::ValuesIn(lto_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

}  // namespace
