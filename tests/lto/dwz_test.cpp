// DWARF compressed by dwz (issue 14 item 3): the DIEs two files share move to
// a DW_TAG_partial_unit that their compile units import
// (DW_TAG_imported_unit), with a line table of its own; the abstract origin
// of an inline function and the types of the variables live there. The
// same build before and after dwz must give the same answers (gcc's build is
// checked against gdb in lto_test.cpp and here), and probes on the dwz'd
// binary must read what the program computed. With dwz -m the shared DIEs
// move to a supplementary file, which is not read: the tool says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "lto_support.h"
#include "uprobe_support.h"

namespace {

using namespace uprobe_test;
using namespace lto_test;

const std::string fixture_dir = KPP_LTO_FIXTURE_DIR;
const std::string source_dir = KPP_LTO_SOURCE_DIR;
const std::string header = source_dir + "/dwz_fixture.h";
const std::string left_c = source_dir + "/dwz_left.c";
const std::string right_c = source_dir + "/dwz_right.c";
const bool dwz_built = std::string(KPP_LTO_DWZ_BUILT) == "1";

std::string fixture(const std::string &name) { return fixture_dir + "/dwz_" + name; }

int left_print_rel() { return line_of(left_c, "@left_print") - line_of(left_c, "int dwz_left("); }
int right_print_rel() { return line_of(right_c, "@right_print") - line_of(right_c, "int dwz_right("); }

// The units readelf lists in `program` ("Compilation Unit @ ..." to the next), as text.
std::vector<std::string> units_of(const std::string &program) {
  run_result r = run_program({"/usr/bin/readelf", "--debug-dump=info", program});
  std::vector<std::string> units;
  for (const std::string &line : split_lines(r.out)) {
    if (contains(line, "Compilation Unit @")) units.emplace_back();
    if (!units.empty()) units.back() += line + "\n";
  }
  return units;
}

// An answer of the tool with the program's path and default group made neutral.
std::string neutral(const std::string &text, const std::string &program) {
  std::string out = std::regex_replace(text, std::regex(program), "PROGRAM");
  return std::regex_replace(out, std::regex("probe_dwz_\\w+/"), "probe_PROGRAM/");
}

class Dwz : public UprobeGroupTest {
 protected:
  Dwz() : UprobeGroupTest("kpptest_dwz") {}
  void SetUp() override {
    if (!dwz_built) GTEST_SKIP() << "dwz or gcc is not installed (scripts/install-deps.sh --tests installs dwz)";
    UprobeGroupTest::SetUp();
  }
};

// The fixture is what the tests claim: dwz made partial units holding the
// shared type and the inline function's abstract origin, imported by the
// compile units; the plain build has none.
TEST_F(Dwz, SingleFileHasPartialUnitsWithTheSharedDies) {
  bool type_moved = false, inline_moved = false;
  size_t imports = 0;
  for (const std::string &unit : units_of(fixture("single"))) {
    if (contains(unit, "DW_TAG_partial_unit")) {
      type_moved |= contains(unit, "dwz_point");
      inline_moved |= contains(unit, "dwz_span") && contains(unit, "DW_AT_inline");
    }
    if (contains(unit, "DW_TAG_compile_unit")) imports += contains(unit, "DW_TAG_imported_unit");
  }
  EXPECT_TRUE(type_moved && inline_moved) << "dwz left the shared DIEs in the compile units";
  EXPECT_GE(imports, 2u);
  for (const std::string &unit : units_of(fixture("plain"))) EXPECT_FALSE(contains(unit, "DW_TAG_partial_unit"));
}

// Every kind of question gets the same answer from the dwz'd binary as from
// the binary gcc wrote: functions, relative and source lines (the header's
// lines are in the partial unit's line table), FUNC@SRC, variables with
// members of the shared type, listings, -V, -F. Each -D is free of repeated
// addresses.
TEST_F(Dwz, SingleFileAnswersAsTheBuildWithoutDwz) {
  const std::string left = "dwz_left:" + std::to_string(left_print_rel());
  const std::string span_tall = "dwz_fixture.h:" + std::to_string(line_of(header, "@span_tall"));
  const std::vector<std::vector<std::string>> questions{
      {"-D", "dwz_left p->weight p->x scale"},
      {"-D", left + " span p->x p->weight"},
      {"-D", "dwz_right:" + std::to_string(right_print_rel()) + " span p->y p->weight"},
      {"-D", span_tall + " p->y scale"},
      {"-D", "dwz_span p scale"},
      {"-D", "dwz_right%return $retval"},
      {"-D", "dwz_left@dwz_left.c"},
      {"-D", "dwz_span@dwz_fixture.h"},
      {"-D", "dwz_left;p->weight*"},
      {"-L", "dwz_left"},
      {"-L", "dwz_right"},
      {"-L", span_tall + "+1"},
      {"-V", left},
      {"-V", "dwz_span"},
      {"-V", span_tall},
      {"-F"},
  };
  for (const std::vector<std::string> &question : questions) {
    std::vector<std::string> plain_args{"-x", fixture("plain")}, dwz_args{"-x", fixture("single")};
    plain_args.insert(plain_args.end(), question.begin(), question.end());
    dwz_args.insert(dwz_args.end(), question.begin(), question.end());
    run_result plain = kpp(plain_args), dwz = kpp(dwz_args);
    std::string asked = question.front() + " " + question.back();
    ASSERT_EQ(plain.status, 0) << asked << "\n" << describe(plain);
    EXPECT_EQ(dwz.status, 0) << asked << "\n" << describe(dwz);
    EXPECT_FALSE(plain.out.empty()) << asked;
    EXPECT_EQ(neutral(dwz.out, fixture("single")), neutral(plain.out, fixture("plain"))) << asked;
    EXPECT_EQ(neutral(dwz.err, fixture("single")), neutral(plain.err, fixture("plain"))) << asked;
    if (question.front() == "-D") {
      EXPECT_EQ(repeated_offsets(dwz.out), std::vector<uint64_t>{}) << dwz.out;
    }
  }
}

// A line of the inline function, whose file and line the partial unit
// describes, is where gdb puts it on the dwz'd binary.
TEST_F(Dwz, SingleFileHeaderLineIsWhereGdbSaysItIs) {
  int line = line_of(header, "@span_tall");
  run_result d = kpp({"-x", fixture("single"), "-D", "dwz_fixture.h:" + std::to_string(line)});
  ASSERT_EQ(d.status, 0) << describe(d);
  EXPECT_EQ(repeated_offsets(d.out), std::vector<uint64_t>{}) << d.out;
  std::vector<uint64_t> sites;
  for (uint64_t offset : definition_offsets(d.out)) sites.push_back(address_of_offset(fixture("single"), offset).value_or(0));
  EXPECT_EQ(sites.size(), 2u) << "one copy in each file's function: " << d.out;
  if (!have_gdb()) GTEST_SKIP() << "gdb is not installed: no oracle for lines";
  std::sort(sites.begin(), sites.end());
  EXPECT_EQ(sites, gdb_breakpoint_addresses(fixture("single"), "dwz_fixture.h:" + std::to_string(line)));
}

// Real uprobes on the dwz'd binary read, through the shared type, what the
// program computed.
TEST_F(Dwz, SingleFileProbesReadWhatTheProgramComputed) {
  std::string program = fixture("single");
  run_result add = kpp({"-q", "-x", program, "-a",
                        ev("left") + "dwz_left:" + std::to_string(left_print_rel()) + " x=p->x weight=p->weight span",
                        "-a", ev("right") + "dwz_right:" + std::to_string(right_print_rel()) + " y=p->y weight=p->weight span"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", program});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = truth_lines(trace.err);
  ASSERT_EQ(truth.size(), 4u) << trace.err;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

// dwz -m: the shared DIEs are in a supplementary file the tool does not
// read. It says so, naming the file and the section that names it, before
// answers that lack them; symbol-based probes still work.
TEST_F(Dwz, SupplementaryFileIsNamedNotSilentlyMissing) {
  for (const auto &[name, section, supplement] :
       {std::tuple{"multi", ".gnu_debugaltlink", "dwz_multi.alt"}, std::tuple{"sup", ".debug_sup", "dwz_sup.sup"}}) {
    run_result vars = kpp({"-x", fixture(name), "-V", "dwz_left"});
    EXPECT_TRUE(contains(vars.err, "warning: the DWARF of '" + fixture(name) + "'")) << describe(vars);
    EXPECT_TRUE(contains(vars.err, "'" + fixture_dir + "/" + supplement + "' (" + section)) << describe(vars);
    EXPECT_TRUE(contains(vars.err, "does not read yet")) << describe(vars);
    run_result entry = kpp({"-x", fixture(name), "-D", "dwz_left %di"});
    EXPECT_EQ(entry.status, 0) << describe(entry);
    run_result plain = kpp({"-x", fixture("plain"), "-D", "dwz_left %di"});
    EXPECT_EQ(definition_offsets(entry.out), definition_offsets(plain.out)) << entry.out << plain.out;
  }
  run_result single = kpp({"-x", fixture("single"), "-V", "dwz_left"});
  EXPECT_FALSE(contains(single.err, "warning")) << describe(single);
}

}  // namespace
