// Debian's own binaries (issue 14): python3.11, an LTO+PGO build whose
// DWARF comes by build-id from python3.11-dbg; glibc with libc6-dbg; the
// debug build of libstdc++ from libstdc++6-12-dbg. All installed by
// scripts/install-deps.sh --tests; a test whose package is missing is
// skipped with the package's name. Lines are checked against gdb, values
// against gdb at the same address or against what the workload computed,
// sites against perf probe where perf places them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <fstream>
#include <set>
#include <sstream>

#include "lto_support.h"
#include "uprobe_support.h"

namespace {

using namespace uprobe_test;
using namespace lto_test;

const std::string fixture_dir = KPP_LTO_FIXTURE_DIR;
const std::string perf_path = KPP_LTO_PERF;
const std::string python = "/usr/bin/python3.11";
const std::string libc = "/lib/x86_64-linux-gnu/libc.so.6";
const std::string libstdcxx_debug = "/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6";

bool installed(const std::string &package) {
  run_result r = run_program({"/usr/bin/dpkg-query", "-W", "-f=${Status}", package});
  return r.status == 0 && contains(r.out, "install ok installed");
}

#define NEED_PACKAGE(package)                                                                        \
  do {                                                                                               \
    if (!installed(package))                                                                         \
      GTEST_SKIP() << "package " << (package) << " is not installed (scripts/install-deps.sh --tests)"; \
  } while (0)

// perf probe -D's uprobe offsets for `spec` on `binary`, sorted; nullopt when perf is absent or fails.
std::optional<std::vector<uint64_t>> perf_offsets(const std::string &binary, const std::string &spec) {
  if (perf_path.empty()) return std::nullopt;
  run_result r = run_program({perf_path, "probe", "-q", "-x", binary, "-D", spec});
  if (r.status != 0) return std::nullopt;
  std::vector<uint64_t> offsets = definition_offsets(r.out);
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

class RealPackage : public UprobeGroupTest {
 protected:
  RealPackage() : UprobeGroupTest("kpptest_real") {}

  // -D of `spec` on `binary`: must succeed with no address twice; its sorted offsets.
  std::vector<uint64_t> sites_of(const std::string &binary, const std::string &spec,
                                 const std::vector<std::string> &options = {}) {
    std::vector<std::string> args{"-x", binary};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"-D", spec});
    run_result d = kpp(args);
    EXPECT_EQ(d.status, 0) << spec << "\n" << describe(d);
    EXPECT_EQ(repeated_offsets(d.out), std::vector<uint64_t>{}) << "repeated addresses in\n" << d.out;
    std::vector<uint64_t> offsets = definition_offsets(d.out);
    std::sort(offsets.begin(), offsets.end());
    return offsets;
  }
};

// ---------------------------------------------------------------------------
// python3.11: LTO+PGO

constexpr int eval_line = 88;  // _PyEval_EvalFrameDefault:88 is ceval.c:1722 (the function starts at 1634)

// A relative line of the interpreter loop: where gdb says ceval.c:1722 is,
// and where perf probe puts it.
TEST_F(RealPackage, PythonLineOfTheEvalLoopIsWhereGdbAndPerfSayItIs) {
  NEED_PACKAGE("python3.11-dbg");
  std::vector<uint64_t> offsets = sites_of(python, "_PyEval_EvalFrameDefault:" + std::to_string(eval_line));
  ASSERT_FALSE(offsets.empty());
  EXPECT_EQ(offsets, sites_of(python, "ceval.c:1722")) << "FUNC:RLN and SRC:ALN name one line";
  // perf puts a site on every statement row of the line (6 here); we on
  // the first of each run of them: ours are some of perf's.
  if (auto perf = perf_offsets(python, "_PyEval_EvalFrameDefault:" + std::to_string(eval_line))) {
    for (uint64_t o : offsets) EXPECT_TRUE(std::binary_search(perf->begin(), perf->end(), o)) << std::hex << o;
  }
  std::vector<uint64_t> addresses;
  for (uint64_t o : offsets) addresses.push_back(address_of_offset(python, o).value_or(0));
  expect_sites_agree_with_gdb(python, addresses, "ceval.c", 1722);
}

// -L FUNC heads with the function's own file and lists the line; -L SRC:ALN
// heads with SRC, not the file of the function the line was inlined into.
TEST_F(RealPackage, PythonListingsNameTheLinesOwnFile) {
  NEED_PACKAGE("python3.11-dbg");
  run_result fn = kpp({"-q", "-x", python, "-L", "_PyEval_EvalFrameDefault"});
  ASSERT_EQ(fn.status, 0) << describe(fn);
  std::vector<std::string> lines = split_lines(fn.out);
  ASSERT_GT(lines.size(), 100u) << fn.out;
  EXPECT_TRUE(lines[0].rfind("<_PyEval_EvalFrameDefault@", 0) == 0 && contains(lines[0], "/Python/ceval.c:0>"))
      << lines[0];
  char numbered[16];
  std::snprintf(numbered, sizeof numbered, "%7d  (", eval_line);  // without the source: the line and its addresses
  bool listed = std::any_of(lines.begin(), lines.end(), [&](const std::string &l) { return l.rfind(numbered, 0) == 0; });
  EXPECT_TRUE(listed) << "line " << eval_line << " with its code";

  run_result src = kpp({"-q", "-x", python, "-L", "unicodeobject.c:2272+3"});
  ASSERT_EQ(src.status, 0) << describe(src);
  lines = split_lines(src.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(contains(lines[0], "/Objects/unicodeobject.c:2272>")) << lines[0];
}

// What --add said is what -l shows: the function, its line, its own file.
TEST_F(RealPackage, PythonListShowsWhatAddSaid) {
  NEED_PACKAGE("python3.11-dbg");
  run_result add = kpp({"-x", python, "-a", ev("malloc") + "PyObject_Malloc", "--no-inlines", "-a",
                        ev("eval") + "_PyEval_EvalFrameDefault:" + std::to_string(eval_line)});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result list = kpp({"-l", group_ + ":*"});
  ASSERT_EQ(list.status, 0) << describe(list);
  std::multiset<std::string> listed, added;
  for (const auto &[text, into] : {std::pair{add.err, &added}, std::pair{list.out, &listed}})
    for (const std::string &line : split_lines(text))
      if (contains(line, group_ + ":") && contains(line, "(on ")) into->insert(line.substr(line.find("(on ")));
  EXPECT_EQ(listed, added) << "--add said:\n" << add.err << "-l says:\n" << list.out;
  ASSERT_FALSE(listed.empty());
  for (const std::string &l : listed) {
    bool malloc = l.rfind("(on PyObject_Malloc@", 0) == 0 && contains(l, "obmalloc.c in ");
    bool eval = l.rfind("(on _PyEval_EvalFrameDefault:" + std::to_string(eval_line) + "@", 0) == 0 &&
                contains(l, "ceval.c in ");
    EXPECT_TRUE(malloc || eval) << l;
  }
}

// Past --max-probes, the message counts the inlined copies and names
// --no-inlines, which gives the one body perf probes.
TEST_F(RealPackage, PythonTooManySitesSuggestsNoInlines) {
  NEED_PACKAGE("python3.11-dbg");
  run_result many = kpp({"-x", python, "-D", "PyObject_Malloc size"});
  EXPECT_NE(many.status, 0) << describe(many);
  EXPECT_TRUE(contains(many.err, "more than --max-probes 128")) << many.err;
  EXPECT_TRUE(contains(many.err, "of them in inlined copies")) << many.err;
  EXPECT_TRUE(contains(many.err, "--no-inlines")) << many.err;
  std::vector<uint64_t> body = sites_of(python, "PyObject_Malloc size", {"--no-inlines"});
  EXPECT_EQ(body.size(), 1u);
  if (auto perf = perf_offsets(python, "PyObject_Malloc size")) {
    EXPECT_EQ(body, *perf);
  }
}

// A line probe inside the interpreter loop reads the frame's code object
// as gdb does at the same address, on a script whose key function the
// C code of sorted() calls (each call enters the loop anew).
TEST_F(RealPackage, PythonLineProbeReadsWhatGdbReads) {
  NEED_PACKAGE("python3.11-dbg");
  if (!have_gdb()) GTEST_SKIP() << "gdb is not installed: no oracle for values";
  std::string script = std::filesystem::temp_directory_path() / ("kpptest_real_" + std::to_string(getpid()) + ".py");
  // Its output goes to stderr: trace's events are on stdout.
  std::ofstream(script) << "def key(x):\n    return -x\n\nimport sys\nsys.stderr.write(str(sorted([3, 1, 2, 5, 4], key=key)))\n";
  std::vector<std::string> workload{python, "-I", "-S", script};
  std::string spec = "_PyEval_EvalFrameDefault:" + std::to_string(eval_line) +
                     " line=frame->f_code->co_firstlineno:s32 args=frame->f_code->co_argcount:s32";
  std::vector<uint64_t> offsets = sites_of(python, spec);
  ASSERT_FALSE(offsets.empty());

  run_result add = kpp({"-q", "-x", python, "-a", ev("eval") + spec});
  ASSERT_EQ(add.status, 0) << describe(add);
  std::vector<std::string> traced{"trace", "-e", group_ + ":*", "--json", "--"};
  traced.insert(traced.end(), workload.begin(), workload.end());
  run_result trace = kpp(traced);
  ASSERT_EQ(trace.status, 0) << describe(trace);
  EXPECT_TRUE(contains(trace.err, "[5, 4, 3, 2, 1]")) << trace.err;
  std::multiset<std::pair<std::string, std::string>> ours;
  for (const observation &o : json_events(trace.out, group_)) ours.insert({o.fields.at("line"), o.fields.at("args")});

  // gdb, stopped at the same addresses, prints the same two fields.
  std::string commands = script + ".gdb";
  {
    std::ofstream gdb_script(commands);
    gdb_script << "set pagination off\nset startup-with-shell off\n";
    for (uint64_t o : offsets) gdb_script << "break *" << address_of_offset(python, o).value_or(0) << "\n";
    gdb_script << "commands 1-" << offsets.size() << "\nsilent\n"
               << "printf \"gdb %d %d\\n\", frame->f_code->co_firstlineno, frame->f_code->co_argcount\n"
               << "continue\nend\nrun\n";
  }
  std::vector<std::string> argv{KPP_LTO_GDB, "-nx", "-batch", "-x", commands, "--args"};
  argv.insert(argv.end(), workload.begin(), workload.end());
  run_result gdb = run_program(argv);
  std::filesystem::remove(script);
  std::filesystem::remove(commands);
  std::multiset<std::pair<std::string, std::string>> theirs;
  for (const std::string &line : split_lines(gdb.out)) {
    std::istringstream words(line);
    std::string tag, first, count;
    if (words >> tag >> first >> count && tag == "gdb") theirs.insert({first, count});
  }
  ASSERT_FALSE(theirs.empty()) << gdb.out << gdb.err;
  // The key function (line 1, one argument) once per element at least.
  EXPECT_GE(ours.count({"1", "1"}), 5u);
  EXPECT_EQ(ours.size(), theirs.size());
  std::vector<std::pair<std::string, std::string>> only_ours, only_theirs;
  std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(only_ours));
  std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(), std::back_inserter(only_theirs));
  auto show = [](const std::vector<std::pair<std::string, std::string>> &v) {
    std::string text;
    for (const auto &[line, args] : v) text += " (" + line + "," + args + ")";
    return text;
  };
  EXPECT_TRUE(only_ours.empty() && only_theirs.empty()) << "only ours:" << show(only_ours) << "\nonly gdb's:" << show(only_theirs);
}

// ---------------------------------------------------------------------------
// glibc, with libc6-dbg

// __libc_write's own body holds an inlined copy of itself: one site, one hit per call.
TEST_F(RealPackage, LibcWriteIsOneSiteAndOneHitPerCall) {
  NEED_PACKAGE("libc6-dbg");
  std::vector<uint64_t> offsets = sites_of(libc, "__libc_write");
  EXPECT_EQ(offsets.size(), 1u);
  if (auto perf = perf_offsets(libc, "__libc_write")) {
    EXPECT_EQ(offsets, *perf);
  }

  run_result add = kpp({"-q", "-x", libc, "-a", ev("write") + "__libc_write fd nbytes"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture_dir + "/libc_workload"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  size_t writes = 0;
  for (const observation &o : json_events(trace.out, group_))
    if (o.fields.at("fd") == "2" && o.fields.at("nbytes") == "2") ++writes;
  EXPECT_EQ(writes, 5u) << "the workload wrote \"w\\n\" to stderr five times\n" << trace.out;
}

// malloc's sizes through __libc_malloc, on allocations the workload made.
TEST_F(RealPackage, LibcMallocSeesTheSizesAsked) {
  NEED_PACKAGE("libc6-dbg");
  EXPECT_EQ(sites_of(libc, "__libc_malloc bytes").size(), 1u);
  run_result add = kpp({"-q", "-x", libc, "-a", ev("malloc") + "__libc_malloc bytes"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture_dir + "/libc_workload"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::multiset<std::string> sizes;
  for (const observation &o : json_events(trace.out, group_)) sizes.insert(o.fields.at("bytes"));
  std::vector<observation> truth = truth_lines(trace.err);
  size_t asked = 0;
  for (const observation &t : truth)
    if (t.tag == "malloc") {
      ++asked;
      EXPECT_EQ(sizes.count(t.fields.at("bytes")), 1u) << "malloc(" << t.fields.at("bytes") << ") seen once";
    }
  EXPECT_EQ(asked, 2u) << trace.out;
}

// ---------------------------------------------------------------------------
// libstdc++'s debug build (-O0 -g3), with libstdc++6-12-dbg

// _M_check is a member of several class templates whose instances, and the
// units that describe them, lead to the same addresses: each is one site.
TEST_F(RealPackage, LibstdcxxDebugCheckHasNoAddressTwice) {
  NEED_PACKAGE("libstdc++6-12-dbg");
  std::vector<uint64_t> offsets = sites_of(libstdcxx_debug, "_M_check");
  EXPECT_FALSE(offsets.empty());
}

}  // namespace
