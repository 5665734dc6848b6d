// End-to-end tests: the real kprobe-probe binary, run as a subprocess (as
// root), puts real uprobes on fixture programs. Expected values come from the
// fixtures' own "truth" lines or from their C source, never from the tool.
// Every test uses its own group kpptest_e2e_<pid>_<n> and leaves none of it
// behind in uprobe_events.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "uprobe_support.h"

namespace {

using namespace uprobe_test;

const std::string fixture_dir = KPP_E2E_FIXTURE_DIR;
const std::string fixture_source = KPP_E2E_FIXTURE_SOURCE;
const std::string demo_source = KPP_DEMO_SOURCE;
constexpr uid_t nobody_uid = 65534;

// perf's relative line: from the line where the function is declared.
int walk_body_rel() { return line_of(fixture_source, "probe:walk_body") - line_of(fixture_source, "KEEP int walk("); }
int no_code_rel() { return line_of(fixture_source, "no-code-line") - line_of(fixture_source, "KEEP int walk("); }

std::string fixture_path(const std::string &build) { return fixture_dir + "/e2e_fixture_" + build; }

std::vector<std::string> fixture_builds() { return builds_in(KPP_E2E_FIXTURE_BUILDS); }

class E2e : public UprobeGroupTest {
 protected:
  E2e() : UprobeGroupTest("kpptest_e2e") {}

  // Runs `prog` under `trace --json`: the group's events, in order, must
  // carry what the program printed in its `expected` truth lines.
  void expect_events_match_truth(const std::string &prog, size_t expected) {
    run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", prog});
    ASSERT_EQ(trace.status, 0) << describe(trace);
    std::vector<observation> truth = truth_lines(trace.out);
    ASSERT_EQ(truth.size(), expected) << trace.out;
    std::vector<observation> events = json_events(trace.out, group_);
    ASSERT_EQ(events.size(), truth.size()) << describe(trace);
    for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
  }
};

// ---------------------------------------------------------------------------
// Probes on each fixture build give the values the fixture computed.

class E2eBuild : public E2e, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string fixture() const { return fixture_path(GetParam()); }

  // The line probe (locals, struct members through a pointer, a nested
  // struct member, a char array member, a global), a function probe with
  // its parameters, and a return probe.
  std::vector<std::string> probe_specs() const {
    return {
        ev("walk") + "walk:" + std::to_string(walk_body_rel()) +
            " name=p->name:string i s x=p->inner.x tag=p->tag:string g=g_counter",
        ev("scale") + "scale a b",
        ev("scale_ret") + "scale%return ret=$retval",
    };
  }

  std::vector<std::string> add_args(const std::vector<std::string> &specs) const {
    std::vector<std::string> args{"-q", "-x", fixture()};
    for (const std::string &s : specs) {
      args.push_back("-a");
      args.push_back(s);
    }
    return args;
  }
};

// The truth for fields this suite does not probe is dropped.
std::vector<observation> keep_fields(std::vector<observation> obs, const std::map<std::string, std::vector<std::string>> &keep) {
  std::vector<observation> out;
  for (observation &o : obs) {
    auto k = keep.find(o.tag);
    if (k == keep.end()) continue;
    observation kept{o.tag, {}};
    for (const std::string &f : k->second)
      if (o.fields.count(f)) kept.fields[f] = o.fields[f];
    out.push_back(kept);
  }
  return out;
}

TEST_P(E2eBuild, TraceShowsWhatTheProgramComputed) {
  run_result add = kpp(add_args(probe_specs()));
  ASSERT_EQ(add.status, 0) << describe(add);

  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);

  std::vector<observation> truth = keep_fields(truth_lines(trace.out), {{"walk", {"name", "i", "s", "x", "tag", "g"}},
                                                                        {"scale", {"a", "b"}},
                                                                        {"scale_ret", {"ret"}}});
  // The fixture walks a 3-node list twice: 3 probes x 3 nodes x 2 rounds.
  ASSERT_EQ(truth.size(), 18u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

// A probe on a function's entry must fire before the function's body runs:
// scale() increments the file static s_calls, and the fixture printed the
// value it had before the call.
TEST_P(E2eBuild, FunctionEntryProbeSeesStateBeforeTheBody) {
  run_result add = kpp(add_args({ev("scale") + "scale a b calls=s_calls"}));
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = keep_fields(truth_lines(trace.out), {{"scale", {"a", "b", "calls"}}});
  ASSERT_EQ(truth.size(), 6u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  bool late = false;  // the probe saw s_calls already incremented
  for (size_t i = 0; i < truth.size(); ++i) {
    EXPECT_EQ(events[i].fields["a"], truth[i].fields["a"]) << "hit #" << i;
    EXPECT_EQ(events[i].fields["b"], truth[i].fields["b"]) << "hit #" << i;
    late |= events[i].fields["calls"] == std::to_string(std::stoi(truth[i].fields["calls"]) + 1);
    EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
  }
  EXPECT_FALSE(late) << "the probe ran after the function body had started";
}

// -D prints exactly what --add then writes to uprobe_events.
TEST_P(E2eBuild, DefinitionIsWhatAddWrites) {
  std::vector<std::string> d_args{"-x", fixture()};
  for (const std::string &s : probe_specs()) {
    d_args.push_back("-D");
    d_args.push_back(s);
  }
  run_result defs = kpp(d_args);
  ASSERT_EQ(defs.status, 0) << describe(defs);
  EXPECT_TRUE(group_lines(group_).empty()) << "-D wrote to uprobe_events";
  std::vector<std::string> printed = split_lines(defs.out);
  ASSERT_EQ(printed.size(), 3u) << defs.out;

  run_result add = kpp(add_args(probe_specs()));
  ASSERT_EQ(add.status, 0) << describe(add);
  std::vector<std::string> written = group_lines(group_);
  ASSERT_EQ(written.size(), printed.size());
  for (size_t i = 0; i < printed.size(); ++i)
    EXPECT_EQ(normalise_definition(written[i]), normalise_definition(printed[i]));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, E2eBuild, ::testing::ValuesIn(fixture_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// ---------------------------------------------------------------------------
// --list, --del

// perf's synthesize_perf_probe_point(): a file name longer than 30 characters
// is cut to what follows the first '/' of its last 30.
std::string perf_file_form(const std::string &file) {
  if (file.size() <= 30) return file;
  size_t slash = file.find('/', file.size() - 30);
  return slash == std::string::npos ? file.substr(file.size() - 30) : file.substr(slash + 1);
}

std::string perf_list_line(const std::string &name, const std::string &rest) {
  char head[256];
  std::snprintf(head, sizeof head, "  %-20s (", name.c_str());
  return head + rest + ")";
}

TEST_F(E2e, ListShowsTheProbeWithItsSourceLine) {
  std::string fx = fixture_path("gcc_O0");
  int rel = walk_body_rel();
  run_result add = kpp({"-q", "-x", fx, "-a", ev("walk") + "walk:" + std::to_string(rel) + " i s"});
  ASSERT_EQ(add.status, 0) << describe(add);

  run_result list = kpp({"-l"});
  ASSERT_EQ(list.status, 0) << describe(list);
  std::string line;
  for (const std::string &l : split_lines(list.out))
    if (contains(l, group_ + ":walk ")) line = l;
  ASSERT_FALSE(line.empty()) << list.out;

  // The line form, with the file part checked separately below.
  std::string basename = std::filesystem::path(fixture_source).filename();
  std::regex file_part("@[^ ]*" + std::regex_replace(basename, std::regex(R"([.])"), R"(\.)") + " ");
  std::string without_file = std::regex_replace(line, file_part, "@FILE ");
  EXPECT_EQ(without_file,
            perf_list_line(group_ + ":walk", "on walk:" + std::to_string(rel) + "@FILE in " + fx + " with i s"));

  // A pattern narrows the list to the group.
  run_result narrowed = kpp({"-l", group_ + ":*"});
  ASSERT_EQ(narrowed.status, 0) << describe(narrowed);
  EXPECT_EQ(split_lines(narrowed.out), std::vector<std::string>{line});

  // perf prints the DWARF file name cut to its last 30 characters.
  std::string perf_line = perf_list_line(
      group_ + ":walk", "on walk:" + std::to_string(rel) + "@" + perf_file_form(fixture_source) + " in " + fx + " with i s");
  EXPECT_EQ(line, perf_line);
}

TEST_F(E2e, ListJsonHasTheFields) {
  std::string fx = fixture_path("gcc_O0");
  int rel = walk_body_rel();
  run_result add = kpp({"-q", "-x", fx, "-a", ev("walk") + "walk:" + std::to_string(rel) + " i s",
                        "-a", ev("scale_ret") + "scale%return ret=$retval"});
  ASSERT_EQ(add.status, 0) << describe(add);

  run_result list = kpp({"-l", "--json"});
  ASSERT_EQ(list.status, 0) << describe(list);
  std::map<std::string, json_value> ours;
  for (const std::string &line : split_lines(list.out)) {
    auto v = parse_json(line);
    ASSERT_TRUE(v) << "not JSON: " << line;
    const json_value *group = v->get("group");
    const json_value *event = v->get("event");
    ASSERT_TRUE(group && event) << line;
    if (group->text == group_) ours[event->text] = *v;
  }
  ASSERT_EQ(ours.size(), 2u) << list.out;

  const json_value &walk = ours["walk"];
  ASSERT_TRUE(walk.get("point") && walk.get("target") && walk.get("args") && walk.get("return"));
  EXPECT_TRUE(contains(walk.get("point")->text, "walk:" + std::to_string(rel) + "@")) << walk.get("point")->text;
  EXPECT_EQ(walk.get("target")->text, fx);
  EXPECT_EQ(walk.get("return")->text, "false");
  std::vector<std::string> arg_names;
  for (const json_value &a : walk.get("args")->items)
    if (a.get("name")) arg_names.push_back(a.get("name")->text);
  EXPECT_EQ(arg_names, (std::vector<std::string>{"i", "s"}));

  const json_value &ret = ours["scale_ret"];
  ASSERT_TRUE(ret.get("return") && ret.get("args"));
  EXPECT_EQ(ret.get("return")->text, "true");
  ASSERT_EQ(ret.get("args")->items.size(), 1u);
  EXPECT_EQ(ret.get("args")->items[0].get("name")->text, "ret");
}

TEST_F(E2e, DelRemovesTheProbe) {
  std::string fx = fixture_path("gcc_O0");
  run_result add = kpp({"-q", "-x", fx, "-a", ev("one") + "scale a", "-a", ev("two") + "scale%return $retval"});
  ASSERT_EQ(add.status, 0) << describe(add);
  ASSERT_EQ(group_lines(group_).size(), 2u);

  run_result del = kpp({"-d", group_ + ":one"});
  EXPECT_EQ(del.status, 0) << describe(del);
  std::vector<std::string> left = group_lines(group_);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(contains(left[0], group_ + "/two ")) << left[0];

  del = kpp({"-d", group_ + ":*"});
  EXPECT_EQ(del.status, 0) << describe(del);
  EXPECT_TRUE(group_lines(group_).empty());
  run_result list = kpp({"-l", group_ + ":*"});
  EXPECT_FALSE(contains(list.out, group_)) << list.out;
}

TEST_F(E2e, DelOfNothingFails) {
  std::string pattern = group_ + ":*";
  run_result del = kpp({"-d", pattern});
  EXPECT_EQ(del.status, 1) << describe(del);
  EXPECT_TRUE(contains(del.err, "\"" + pattern + "\" does not hit any event")) << describe(del);
}

// ---------------------------------------------------------------------------
// All or nothing

TEST_F(E2e, KernelRefusalRollsBackTheWholeCommand) {
  std::string fx = fixture_path("gcc_O2");
  std::string rel = std::to_string(walk_body_rel());
  // uprobes have no 'symbol' fetch type: our parser lets it through, the kernel refuses it.
  run_result add = kpp({"-q", "-x", fx, "-a", ev("first") + "walk:" + rel + " i s", "-a", ev("second") + "scale a b",
                        "-a", ev("third") + "scale%return $retval", "-a", ev("refused") + "walk:" + rel + " i:symbol"});
  EXPECT_EQ(add.status, 1) << describe(add);
  EXPECT_TRUE(contains(add.err, group_ + ":refused")) << describe(add);
  EXPECT_TRUE(contains(add.err, "Unknown type")) << "the kernel's reason (error_log)\n" << describe(add);
  EXPECT_FALSE(add.signaled);
  std::vector<std::string> left = group_lines(group_);
  EXPECT_TRUE(left.empty()) << "rollback left: " << left.front();
}

// ---------------------------------------------------------------------------
// Clashes

TEST_F(E2e, SameEventTwiceNeedsForce) {
  std::string fx = fixture_path("gcc_O0");
  std::string spec = ev("dup") + "scale a";
  run_result first = kpp({"-q", "-x", fx, "-a", spec});
  ASSERT_EQ(first.status, 0) << describe(first);

  run_result second = kpp({"-q", "-x", fx, "-a", spec});
  EXPECT_EQ(second.status, 1) << describe(second);
  EXPECT_TRUE(contains(second.err, "already exists")) << describe(second);
  EXPECT_TRUE(contains(second.err, "-f")) << "a hint about -f\n" << describe(second);
  EXPECT_EQ(group_lines(group_).size(), 1u);

  run_result forced = kpp({"-q", "-f", "-x", fx, "-a", spec});
  EXPECT_EQ(forced.status, 0) << describe(forced);
  std::vector<std::string> lines = group_lines(group_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(contains(lines[0], group_ + "/dup ")) << lines[0];
  EXPECT_TRUE(contains(lines[1], group_ + "/dup_1 ")) << lines[1];
}

// ---------------------------------------------------------------------------
// Bad input: exit 1, a message naming what and where, nothing left behind.

class E2eBadInput : public E2e {
 protected:
  run_result add_expecting_failure(const std::string &program, const std::string &spec) {
    run_result r = kpp({"-x", program, "-a", spec});
    EXPECT_EQ(r.status, 1) << describe(r);
    EXPECT_FALSE(r.signaled);
    EXPECT_TRUE(r.out.empty() || !contains(r.out, group_)) << describe(r);
    EXPECT_TRUE(group_lines(group_).empty());
    return r;
  }
};

TEST_F(E2eBadInput, MalformedSpecShowsACaret) {
  std::string spec = ev("bad") + "walk:" + std::to_string(walk_body_rel()) + " i)";
  run_result r = add_expecting_failure(fixture_path("gcc_O0"), spec);
  std::vector<std::string> lines = split_lines(r.err);
  auto at = std::find(lines.begin(), lines.end(), "  " + spec);
  ASSERT_NE(at, lines.end()) << "the spec is shown\n" << r.err;
  ASSERT_NE(at + 1, lines.end()) << r.err;
  EXPECT_EQ((at + 1)->find('^'), 2 + spec.find(')')) << "the caret is under ')'\n" << r.err;
}

TEST_F(E2eBadInput, UnknownFunctionSuggestsNames) {
  run_result r = add_expecting_failure(fixture_path("gcc_O0"), ev("bad") + "wakl i");
  EXPECT_TRUE(contains(r.err, "'wakl'")) << r.err;
  EXPECT_TRUE(contains(r.err, "walk")) << "suggests walk\n" << r.err;
}

TEST_F(E2eBadInput, LineWithoutCode) {
  std::string where = "walk:" + std::to_string(no_code_rel());
  run_result r = add_expecting_failure(fixture_path("gcc_O0"), ev("bad") + where + " i");
  EXPECT_TRUE(contains(r.err, "no code")) << r.err;
  std::string abs_line = std::to_string(line_of(fixture_source, "no-code-line"));
  EXPECT_TRUE(contains(r.err, ":" + abs_line) || contains(r.err, where)) << "names the line\n" << r.err;
}

TEST_F(E2eBadInput, UnknownVariableListsTheVariables) {
  run_result r = add_expecting_failure(fixture_path("gcc_O0"),
                                       ev("bad") + "walk:" + std::to_string(walk_body_rel()) + " nosuch");
  EXPECT_TRUE(contains(r.err, "'nosuch'")) << r.err;
  // The variables in scope at that line, from the fixture's source.
  for (const char *var : {"p", "i", "s"})
    EXPECT_TRUE(std::regex_search(r.err, std::regex(std::string("[ :,]") + var + "(,|$|\n| )"))) << var << "\n" << r.err;
}

TEST_F(E2eBadInput, ProgramWithoutDebugInfo) {
  for (const char *build : {"nodebug", "stripped"}) {
    std::string fx = fixture_path(build);
    if (access(fx.c_str(), F_OK) != 0) continue;
    run_result r = add_expecting_failure(fx, ev("bad") + "walk i");
    EXPECT_TRUE(contains(r.err, "debug")) << r.err;
    EXPECT_TRUE(contains(r.err, fx)) << r.err;
  }
}

TEST_F(E2eBadInput, ProgramThatDoesNotExist) {
  std::string missing = fixture_dir + "/no_such_program";
  run_result r = add_expecting_failure(missing, ev("bad") + "walk i");
  EXPECT_TRUE(contains(r.err, missing)) << r.err;
}

// ---------------------------------------------------------------------------
// The demo

TEST_F(E2e, DemoShowsTheWalkAndCleansUp) {
  run_result demo = kpp({"demo"});
  ASSERT_EQ(demo.status, 0) << describe(demo);
  // From src/demo/kpp_demo.c: one(1) -> two(2) -> three(3), walked twice;
  // at the loop body s is the sum before the node, add(s, weight) returns
  // the new sum.
  ASSERT_TRUE(contains(read_file(demo_source), "{\"three\", 3, NULL}")) << "the demo's list changed; update this test";
  std::vector<std::string> lines = split_lines(demo.out);
  auto count = [&](const std::string &l) { return std::count(lines.begin(), lines.end(), l); };
  EXPECT_EQ(count("walk_L5: name=\"one\" i=0 s=0"), 2) << demo.out;
  EXPECT_EQ(count("walk_L5: name=\"two\" i=1 s=1"), 2) << demo.out;
  EXPECT_EQ(count("walk_L5: name=\"three\" i=2 s=3"), 2) << demo.out;
  EXPECT_EQ(count("add: a=3 b=3"), 2) << demo.out;
  EXPECT_EQ(count("add__return: arg1=6"), 2) << demo.out;
  for (const char *probe : {"walk_L5", "add", "add__return"})
    EXPECT_TRUE(std::regex_search(demo.out, std::regex(std::string(R"(\n\s*probe_kpp_demo:)") + probe + R"(\s+6\n)")))
        << probe << "\n" << demo.out;

  std::string tracefs = tracing_dir();
  for (const std::string &l : split_lines(read_file(tracefs + "/uprobe_events")))
    EXPECT_FALSE(contains(l, "probe_kpp_demo/")) << l;
  std::string instance = tracefs + "/instances/kprobe-probe-" + std::to_string(demo.pid);
  EXPECT_FALSE(std::filesystem::exists(instance)) << instance;
}

// `kprobe-probe trace ... | head -n 1`: the reader goes away; the tool must
// still remove its tracefs instance.
TEST_F(E2e, TraceIntoAClosedPipeLeavesNoInstance) {
  std::string fx = fixture_path("gcc_O0");
  run_result add = kpp({"-q", "-x", fx, "-a", ev("scale") + "scale a b"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fx, "300"}, {.uid = std::nullopt, .close_stdout_after_first_line = true});
  std::string instance = tracing_dir() + "/instances/kprobe-probe-" + std::to_string(trace.pid);
  bool left = std::filesystem::exists(instance);
  if (left) rmdir(instance.c_str());  // this test's own mess
  EXPECT_FALSE(left) << "left behind: " << instance << "\n" << describe(trace);
}

// ---------------------------------------------------------------------------
// Not root

TEST_F(E2e, ListAsNonRootFailsClearly) {
  for (std::vector<std::string> args : {std::vector<std::string>{"-l"}, {"-d", group_ + ":*"}}) {
    run_result r = kpp(args, {.uid = nobody_uid});
    if (r.status == 126) GTEST_SKIP() << "cannot switch to uid " << nobody_uid;
    EXPECT_FALSE(r.signaled) << describe(r);
    EXPECT_EQ(r.status, 1) << args[0] << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "root")) << args[0] << "\n" << describe(r);
  }
}

TEST_F(E2e, DefinitionAsNonRootWorks) {
  std::string fx = fixture_path("gcc_O0");
  struct stat st{};
  ASSERT_EQ(stat(fx.c_str(), &st), 0);
  if (!(st.st_mode & S_IROTH)) GTEST_SKIP() << fx << " is not readable by others";
  run_result r = kpp({"-x", fx, "-D", ev("walk") + "walk:" + std::to_string(walk_body_rel()) + " i s"},
                     {.uid = nobody_uid});
  if (r.status == 126) GTEST_SKIP() << "cannot switch to uid " << nobody_uid;
  EXPECT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> lines = split_lines(r.out);
  ASSERT_EQ(lines.size(), 1u) << describe(r);
  EXPECT_EQ(lines[0].rfind("p:" + group_ + "/walk " + fx + ":0x", 0), 0u) << lines[0];
}

}  // namespace

// ---------------------------------------------------------------------------
// Inlined copies: one probe on an inlined function fires in every copy,
// each with the values its own caller gave it.

std::vector<std::string> inline_builds() { return builds_in(KPP_E2E_INLINE_BUILDS); }

class E2eInline : public E2e, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string fixture() const { return fixture_dir + "/inline_fixture_" + GetParam(); }
};

TEST_P(E2eInline, ProbeOnAnInlinedFunctionFiresInEveryCopyWithItsOwnValues) {
  run_result add = kpp({"-q", "-x", fixture(), "-a", ev("mix") + "mix v k"});
  ASSERT_EQ(add.status, 0) << describe(add);
  // One event, a probe point per inlined copy (first() and second()).
  std::vector<std::string> defs = group_lines(group_);
  ASSERT_EQ(defs.size(), 2u) << read_file(tracing_dir() + "/uprobe_events");
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = truth_lines(trace.out);
  ASSERT_EQ(truth.size(), 6u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

TEST_P(E2eInline, NoInlinesLeavesOnlyOutOfLineBodies) {
  // mix has no out-of-line body, so --no-inlines finds nothing to probe.
  run_result d = kpp({"-x", fixture(), "--no-inlines", "-D", "mix v"});
  EXPECT_EQ(d.status, 1) << describe(d);
  EXPECT_TRUE(contains(d.err, "no function 'mix'")) << d.err;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, E2eInline, ::testing::ValuesIn(inline_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// ---------------------------------------------------------------------------
// Looking before probing: -F, -V, -L.

TEST_F(E2e, FuncsListsTheFixtureFunctions) {
  run_result r = kpp({"-x", fixture_path("gcc_O0"), "-F"});
  ASSERT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> names = split_lines(r.out);
  for (const char *fn : {"main", "scale", "walk", "truth_walk"})
    EXPECT_NE(std::find(names.begin(), names.end(), fn), names.end()) << fn << " missing from:\n" << r.out;
  for (const std::string &n : names) EXPECT_NE(n[0], '_') << "internal names are left out by default";
  run_result glob = kpp({"-x", fixture_path("gcc_O0"), "--funcs=s*"});
  ASSERT_EQ(glob.status, 0) << describe(glob);
  EXPECT_EQ(split_lines(glob.out), std::vector<std::string>{"scale"});
}

TEST_F(E2e, VarsShowsWhatCanBeReadAtTheLine) {
  std::string spec = "walk:" + std::to_string(walk_body_rel());
  run_result r = kpp({"-x", fixture_path("gcc_O0"), "-V", spec});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "Available variables at " + spec)) << r.out;
  // The locals of walk() at that line, by the fixture's source.
  for (const char *v : {"\tp\n", "\ti\n", "\ts\n"}) EXPECT_TRUE(contains(r.out, v)) << v << " in:\n" << r.out;
  EXPECT_FALSE(contains(r.out, "g_counter")) << "globals only with --externs";
  run_result ext = kpp({"-x", fixture_path("gcc_O0"), "-V", spec, "--externs"});
  EXPECT_TRUE(contains(ext.out, "\tg_counter\n")) << ext.out;
  run_result range = kpp({"-x", fixture_path("gcc_O0"), "-V", spec, "--range"});
  ASSERT_EQ(range.status, 0) << describe(range);
  EXPECT_TRUE(contains(range.out, "[walk+0x")) << range.out;
}

TEST_F(E2e, LineShowsTheSourceWithTheLinesThatHaveCode) {
  int rel = walk_body_rel();
  run_result r = kpp({"-x", fixture_path("gcc_O0"), "-L", "walk"});
  ASSERT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> lines = split_lines(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "<walk@" + fixture_source + ":0>");
  // The probed line is numbered (it has code) and shows its source text.
  std::string numbered = std::to_string(rel) + "  ";
  bool found = false;
  for (const std::string &l : lines)
    if (contains(l, "probe:walk_body") && l.find(numbered) != std::string::npos) found = true;
  EXPECT_TRUE(found) << r.out;
  // The line without code is shown, unnumbered.
  bool unnumbered = false;
  for (const std::string &l : lines)
    if (contains(l, "no-code-line") && l.rfind("         ", 0) == 0) unnumbered = true;
  EXPECT_TRUE(unnumbered) << r.out;
}

TEST_F(E2e, LineWorksWithoutTheSourceAndSaysWhatItTried) {
  // A copy of the fixture whose recorded source path does not exist.
  std::string dir = "/tmp/kpp-e2e-nosrc-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string src = dir + "/moved.c";
  std::filesystem::copy_file(fixture_source, src);
  std::string bin = dir + "/moved";
  ASSERT_EQ(std::system(("gcc -O0 -g -o " + bin + " " + src).c_str()), 0);
  std::filesystem::remove(src);
  run_result r = kpp({"-x", bin, "-L", "walk"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, std::to_string(walk_body_rel()) + "  (walk+")) << r.out;
  EXPECT_TRUE(contains(r.err, "tried:")) << r.err;
  EXPECT_TRUE(contains(r.err, src)) << r.err;
}

TEST_F(E2e, LazyPatternFindsTheSameLineAsItsNumber) {
  std::string fx = fixture_path("gcc_O0");
  run_result by_number = kpp({"-x", fx, "-D", "walk:" + std::to_string(walk_body_rel())});
  run_result by_pattern = kpp({"-x", fx, "-D", "walk;truth_walk(p,*"});
  ASSERT_EQ(by_number.status, 0) << describe(by_number);
  ASSERT_EQ(by_pattern.status, 0) << describe(by_pattern);
  // The same place (the event names differ: perf gives lazy probes no _L suffix).
  auto place = [](const std::string &def) { return def.substr(def.find(' ')); };
  EXPECT_EQ(place(by_pattern.out), place(by_number.out));
  run_result none = kpp({"-x", fx, "-D", "walk;no_such_text*"});
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(contains(none.err, "matches the pattern")) << none.err;
}

// ---------------------------------------------------------------------------
// Entry values: parameters that are dead at the probed line are read by a
// companion probe at the function's entry and joined per thread, through
// recursion too. perf probe refuses them (DW_OP_entry_value).

TEST_F(E2e, EntryValuesAreReadAtTheEntryAndJoined) {
  std::string fx = fixture_dir + "/entry_value_fixture";
  std::string src = KPP_E2E_ENTRY_VALUE_SOURCE;
  int consume_rel = line_of(src, "probe:consume_after_calls") - line_of(src, "int consume(");
  int nest_rel = line_of(src, "probe:nest_after_calls") - line_of(src, "int nest(");
  std::string c_spec = "consume:" + std::to_string(consume_rel) + " n name=it->name:string";
  std::string d_spec = "nest:" + std::to_string(nest_rel) + " depth tag";

  // -D shows the companions: an entry probe reading the registers, a return probe.
  run_result d = kpp({"-x", fx, "-D", c_spec});
  ASSERT_EQ(d.status, 0) << describe(d);
  std::vector<std::string> defs = split_lines(d.out);
  ASSERT_EQ(defs.size(), 3u) << d.out;
  EXPECT_TRUE(contains(defs[0], "consume_L" + std::to_string(consume_rel) + "__entry ")) << defs[0];
  EXPECT_EQ(defs[1].rfind("r:", 0), 0u) << defs[1];

  run_result add = kpp({"-q", "-x", fx, "-a", ev("c") + c_spec, "-a", ev("d") + d_spec});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fx});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = truth_lines(trace.out);
  ASSERT_EQ(truth.size(), 5u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << "the companions are joined, not shown:\n" << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;

  // Deleting the event deletes its companions.
  run_result del = kpp({"-q", "-d", group_ + ":c"});
  ASSERT_EQ(del.status, 0) << describe(del);
  for (const std::string &line : group_lines(group_)) EXPECT_FALSE(contains(line, "/c_")) << line;
}

// ---------------------------------------------------------------------------
// C++ names: namespaces, methods, overloads, templates, names longer than
// the kernel takes for an event. Values are the fixture's own truth lines.

std::vector<std::string> cxx_builds() { return builds_in(KPP_E2E_CXX_BUILDS); }

const std::string long_method =
    "shapes::deeply_nested_namespace_for_names::AnotherRatherLongClassName::measure_with_a_long_method_name";

class E2eCxx : public E2e, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string fixture() const { return fixture_dir + "/cxx_fixture_" + GetParam(); }
};

TEST_P(E2eCxx, QualifiedNamesProbeTheFunctionsTheyName) {
  run_result add = kpp({"-q", "-x", fixture(), "-a", ev("area") + "shapes::Box::area scale", "-a",
                        ev("twice_int") + "shapes::twice(int) v", "-a",
                        // perf's escaped form names the same function
                        ev("twice_long") + "shapes\\:\\:twice(long) v", "-a", ev("biggest_int") + "shapes::biggest<int> a b"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = keep_fields(
      truth_lines(trace.out),
      {{"area", {"scale"}}, {"twice_int", {"v"}}, {"twice_long", {"v"}}, {"biggest_int", {"a", "b"}}});
  ASSERT_EQ(truth.size(), 8u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

// As perf probes every function a name matches: both overloads, both
// instances; a parameter list or template arguments pick one.
TEST_P(E2eCxx, AnUnqualifiedOverloadedNameProbesEveryMatch) {
  run_result both = kpp({"-x", fixture(), "-D", "shapes::twice"});
  ASSERT_EQ(both.status, 0) << describe(both);
  EXPECT_EQ(split_lines(both.out).size(), 2u) << both.out;
  run_result instances = kpp({"-x", fixture(), "-D", "biggest"});
  ASSERT_EQ(instances.status, 0) << describe(instances);
  EXPECT_EQ(split_lines(instances.out).size(), 2u) << instances.out;
  run_result one = kpp({"-x", fixture(), "-D", "twice(long)"});
  ASSERT_EQ(one.status, 0) << describe(one);
  ASSERT_EQ(split_lines(one.out).size(), 1u) << one.out;
  EXPECT_TRUE(contains(one.out, "/twice_long ")) << one.out;
  run_result wrong = kpp({"-x", fixture(), "-D", "other::twice"});
  EXPECT_EQ(wrong.status, 1) << describe(wrong);
  EXPECT_TRUE(contains(wrong.err, "no function 'other::twice'")) << wrong.err;
  run_result typo = kpp({"-x", fixture(), "-D", "shapes::twise"});
  EXPECT_EQ(typo.status, 1) << describe(typo);
  EXPECT_TRUE(contains(typo.err, "shapes::twice")) << "suggestions are demangled: " << typo.err;
  run_result no_overload = kpp({"-x", fixture(), "-D", "shapes::twice(short)"});
  EXPECT_EQ(no_overload.status, 1) << describe(no_overload);
  EXPECT_TRUE(contains(no_overload.err, "shapes::twice(int)") && contains(no_overload.err, "shapes::twice(long)"))
      << "the overloads there are: " << no_overload.err;
}

// The default event name of the long method is 102 bytes: shortened the
// same way every run, said so, and taken by the kernel; the probe fires.
TEST_P(E2eCxx, ALongNameIsShortenedAndTheKernelTakesIt) {
  // A copy named for this test, so that the default group (probe_<exe>) is ours.
  std::string exe = "kpptest_cxx_" + std::to_string(getpid());
  std::string copy = "/tmp/" + exe;
  std::filesystem::copy_file(fixture(), copy, std::filesystem::copy_options::overwrite_existing);
  group_ = "probe_" + exe;
  std::string spec = long_method + " value";
  run_result d1 = kpp({"-x", copy, "-D", spec});
  run_result d2 = kpp({"-x", copy, "-D", spec});
  ASSERT_EQ(d1.status, 0) << describe(d1);
  EXPECT_EQ(d1.out, d2.out) << "the same name every run";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(d1.out, m, std::regex("^p:" + group_ + "/(\\S+) "))) << d1.out;
  std::string event = m[1];
  EXPECT_LE(event.size(), 63u) << event;
  EXPECT_TRUE(std::regex_match(event, std::regex("shapes_deeply_nested_\\w+_[0-9a-f]{8}"))) << event;

  run_result add = kpp({"-x", copy, "-a", spec});
  ASSERT_EQ(add.status, 0) << describe(add);
  EXPECT_TRUE(contains(add.err, "event name shortened")) << add.err;
  EXPECT_TRUE(contains(add.err, "measure_with_a_long_method_name")) << add.err;
  std::vector<std::string> defs = group_lines(group_);
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_TRUE(contains(defs[0], "/" + event + " ")) << "-D shows the name the kernel got: " << defs[0];

  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", copy});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> truth = keep_fields(truth_lines(trace.out), {{"long", {"value"}}});
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(truth.size(), 2u) << trace.out;
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) {
    EXPECT_EQ(events[i].tag, event);
    EXPECT_EQ(events[i].fields, truth[i].fields) << "hit #" << i;
  }
  run_result del = kpp({"-q", "-d", group_ + ":*"});
  EXPECT_EQ(del.status, 0) << describe(del);
  std::filesystem::remove(copy);
}

// perf -F demangles a program's names unless --no-demangle.
TEST_P(E2eCxx, FuncsListsDemangledNames) {
  run_result r = kpp({"-x", fixture(), "-F"});
  ASSERT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> names = split_lines(r.out);
  for (const char *fn : {"shapes::twice(int)", "shapes::twice(long)", "main"})
    EXPECT_NE(std::find(names.begin(), names.end(), fn), names.end()) << fn << " missing from:\n" << r.out;
  run_result glob = kpp({"-x", fixture(), "--funcs=shapes::twice*"});
  EXPECT_EQ(split_lines(glob.out), (std::vector<std::string>{"shapes::twice(int)", "shapes::twice(long)"})) << glob.out;
  run_result raw = kpp({"-x", fixture(), "-F", "--no-demangle"});
  ASSERT_EQ(raw.status, 0) << describe(raw);
  std::vector<std::string> mangled = split_lines(raw.out);
  EXPECT_NE(std::find(mangled.begin(), mangled.end(), "_ZN6shapes5twiceEl"), mangled.end()) << raw.out;
  EXPECT_FALSE(contains(raw.out, "shapes::twice")) << raw.out;
}

// Addresses in -V and in messages are shown by their demangled symbol.
TEST_P(E2eCxx, VarsShowsDemangledPlaces) {
  run_result r = kpp({"-x", fixture(), "-V", "shapes::twice(long)"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "@<shapes::twice(long)+")) << r.out;
  run_result raw = kpp({"-x", fixture(), "-V", "shapes::twice(long)", "--no-demangle"});
  ASSERT_EQ(raw.status, 0) << describe(raw);
  EXPECT_TRUE(contains(raw.out, "@<_ZN6shapes5twiceEl+")) << raw.out;
}

TEST_P(E2eCxx, LineListsAMethodBySource) {
  run_result r = kpp({"-x", fixture(), "-L", "shapes::Box::area"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "<area@" + std::string(KPP_E2E_CXX_SOURCE) + ":0>")) << r.out;
  EXPECT_TRUE(contains(r.out, "return static_cast<long>(w) * h * scale;")) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, E2eCxx, ::testing::ValuesIn(cxx_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// --prefix-map OLD=NEW: the sources of a build tree that moved, for -L and
// for lazy patterns; without it, every path tried is named.
TEST_F(E2e, PrefixMapFindsTheSourcesOfAMovedBuildTree) {
  std::string dir = "/tmp/kpp-e2e-prefix-" + std::to_string(getpid());
  std::filesystem::create_directories(dir + "/build");
  std::filesystem::copy_file(fixture_source, dir + "/build/moved.c");
  std::string bin = dir + "/moved";
  ASSERT_EQ(std::system(("cd " + dir + "/build && gcc -O0 -g -o " + bin + " moved.c").c_str()), 0);
  std::filesystem::rename(dir + "/build", dir + "/src");
  std::string line = std::to_string(walk_body_rel());

  run_result lost = kpp({"-x", bin, "-D", "walk;truth_walk(p,*"});
  EXPECT_EQ(lost.status, 1) << describe(lost);
  EXPECT_TRUE(contains(lost.err, "tried:") && contains(lost.err, dir + "/build/moved.c")) << lost.err;
  EXPECT_TRUE(contains(lost.err, "--prefix-map")) << lost.err;

  std::string map = dir + "/build=" + dir + "/src";
  run_result lazy = kpp({"-x", bin, "--prefix-map", map, "-D", "walk;truth_walk(p,*"});
  run_result by_number = kpp({"-x", bin, "-D", "walk:" + line});
  run_result listing = kpp({"-x", bin, "--prefix-map", map, "-L", "walk"});
  run_result bad = kpp({"-x", bin, "--prefix-map", "no-equals-sign", "-L", "walk"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(lazy.status, 0) << describe(lazy);
  ASSERT_EQ(by_number.status, 0) << describe(by_number);
  auto place = [](const std::string &def) { return def.substr(def.find(' ')); };
  EXPECT_EQ(place(lazy.out), place(by_number.out));
  ASSERT_EQ(listing.status, 0) << describe(listing);
  EXPECT_TRUE(contains(listing.out, "probe:walk_body")) << "the source text is shown: " << listing.out;
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(contains(bad.err, "--prefix-map: expected OLD=NEW")) << bad.err;
}

// ---------------------------------------------------------------------------
// Values the kernel cannot finish: a signed bitfield (the kernel's b5@3/32 is
// unsigned), a struct member in a register's upper bits, the address of a
// file static in a PIE (%ip plus the link-time distance). The definition
// names the step in the field ("delta__ks5"); trace shows the plain name and
// the finished value, which must be what the fixture printed. perf probe
// reads -7 in 5 bits as 25 and refuses the other two.

class E2eComputedValues : public E2e, public ::testing::WithParamInterface<std::string> {};

TEST_P(E2eComputedValues, TheDecoderFinishesWhatTheKernelCannot) {
  std::string fx = fixture_dir + "/computed_value_" + GetParam();
  bool gcc = GetParam() == "gcc";
  std::vector<std::string> specs = {"weigh f->delta", "mix p.x p.y"};
  if (gcc) specs.push_back("bump c");  // clang keeps no 'c' in the inlined copy

  run_result d = kpp({"-x", fx, "-D", specs[0], "-D", specs[1]});
  ASSERT_EQ(d.status, 0) << describe(d);
  EXPECT_TRUE(contains(d.out, "delta__ks5=")) << d.out;
  if (gcc) {
    EXPECT_TRUE(contains(d.out, "y__ks16=%di:b16@32/64")) << d.out;
    run_result c = kpp({"-x", fx, "-D", "bump c"});
    ASSERT_EQ(c.status, 0) << describe(c);
    EXPECT_TRUE(contains(c.out, "c__kp")) << c.out;
    EXPECT_TRUE(contains(c.out, "=%ip:x64")) << c.out;
  }

  std::vector<std::string> args = {"-q", "-x", fx};
  for (const std::string &spec : specs) {
    std::string event = spec.substr(0, spec.find(' '));
    args.insert(args.end(), {"-a", ev(event) + spec});
  }
  run_result add = kpp(args);
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fx});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::map<std::string, std::vector<std::string>> keep = {{"weigh", {"delta"}}, {"mix", {"x", "y"}}};
  if (gcc) keep["bump"] = {"c"};
  std::vector<observation> truth = keep_fields(truth_lines(trace.out), keep);
  ASSERT_EQ(truth.size(), gcc ? 5u : 4u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;
}

INSTANTIATE_TEST_SUITE_P(Compilers, E2eComputedValues, ::testing::ValuesIn(builds_in(KPP_E2E_COMPUTED_VALUE_BUILDS)));

// The step travels in the field name, so a trace.dat keeps it: our report
// finishes the value, trace-cmd shows the raw bits under the full name.
TEST_F(E2e, RecordedComputedValuesAreFinishedByReport) {
  std::string fx = fixture_dir + "/computed_value_gcc";
  std::string dat = "/tmp/kpptest_computed_" + std::to_string(getpid()) + ".dat";
  run_result add = kpp({"-q", "-x", fx, "-a", ev("weigh") + "weigh f->delta"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result record = kpp({"record", "-e", group_ + ":*", "-o", dat, "--", fx});
  ASSERT_EQ(record.status, 0) << describe(record);
  run_result report = kpp({"report", dat});
  EXPECT_EQ(report.status, 0) << describe(report);
  // The fixture's three flags: -7, 5, -16 in a signed 5-bit field.
  EXPECT_TRUE(contains(report.out, "delta=-7") && contains(report.out, "delta=5") && contains(report.out, "delta=-16"))
      << report.out;
  run_result raw = run_program({"/bin/sh", "-c", "trace-cmd report -i " + dat});
  std::remove(dat.c_str());
  ASSERT_EQ(raw.status, 0) << describe(raw);
  EXPECT_TRUE(contains(raw.out, "delta__ks5=25")) << "-7 in 5 bits, unsigned:\n" << raw.out;
}

// ---------------------------------------------------------------------------
// A shared library given with -x: the probes fire in the program that loads
// it, and what they read (a parameter's members, the library's global, the
// address of its file static) is where the library is mapped, as the
// program printed it.

TEST_F(E2e, ProbesInASharedLibraryReadWhereItIsMapped) {
  std::string lib = fixture_dir + "/libkpp_shared.so";
  std::string prog = fixture_dir + "/shared_main";
  run_result d = kpp({"-x", lib, "-D", "shift_by o"});
  ASSERT_EQ(d.status, 0) << describe(d);
  EXPECT_TRUE(contains(d.out, lib + ":0x")) << "a uprobe on the library file itself: " << d.out;
  run_result add = kpp({"-q", "-x", lib, "-a", ev("scale") + "lib_scale a x=p->x y=p->y calls=lib_calls", "-a",
                        ev("shift") + "shift_by o"});
  ASSERT_EQ(add.status, 0) << describe(add);
  expect_events_match_truth(prog, 3);
}

// Split DWARF (-gsplit-dwarf): the looking-before-probing commands read a
// program whose DIEs are in .dwo files or a .dwp package as they read the
// same program built without splitting (E2eBuild runs the probes with their
// values on the split builds too). A missing .dwo is named, with the places
// tried.

namespace {

std::vector<std::string> split_builds() { return builds_in(KPP_E2E_SPLIT_BUILDS); }

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

class E2eSplit : public E2e, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string split() const { return fixture_path(GetParam()); }
  // The same compiler, level and DWARF version, without -gsplit-dwarf
  // ("gcc_O2_split4dwp" -> "gcc_O2_dw4"; DWARF 5 is the compilers' default).
  std::string whole() const {
    size_t at = GetParam().find("_split");
    return fixture_path(GetParam().substr(0, at) + (GetParam().compare(at, 7, "_split4") == 0 ? "_dw4" : ""));
  }

  // The output of `args` on the split build and on the whole one, with the
  // program's name made the same.
  void expect_same_output(std::vector<std::string> args) {
    args.insert(args.begin(), {"-x", split()});
    run_result s = kpp(args);
    args[1] = whole();
    run_result w = kpp(args);
    ASSERT_EQ(w.status, 0) << describe(w);
    ASSERT_EQ(s.status, 0) << describe(s);
    // The program's name is in its path and in the default group (probe_NAME).
    EXPECT_EQ(replace_all(s.out, "e2e_fixture_" + GetParam(), std::filesystem::path(whole()).filename().string()), w.out)
        << args.back();
  }
};

TEST_P(E2eSplit, FuncsVarsAndLinesAreThoseOfTheWholeBuild) {
  std::string at_line = "walk:" + std::to_string(walk_body_rel());
  expect_same_output({"-F"});
  expect_same_output({"-V", at_line});
  expect_same_output({"-V", at_line, "--externs"});
  // gcc 12's DWARF 4 split location lists (DW_LLE_startx_length) end one
  // of walk's ranges two bytes before its unsplit build's: the ranges
  // differ in the DWARF itself.
  if (GetParam().find("_split4") == std::string::npos) expect_same_output({"-V", at_line, "--range"});
  expect_same_output({"-V", "scale"});
  expect_same_output({"-L", "walk"});
  expect_same_output({"-L", std::filesystem::path(fixture_source).filename().string() + ":" +
                                std::to_string(line_of(fixture_source, "probe:walk_body"))});
}

TEST_P(E2eSplit, DefinitionsAndLazyPatternsAreThoseOfTheWholeBuild) {
  std::string at_line = "walk:" + std::to_string(walk_body_rel());
  expect_same_output({"-D", at_line + " p->name:string i s g_counter"});
  expect_same_output({"-D", "walk;truth_walk(p,*"});
  expect_same_output({"-D", "scale%return $retval"});
  expect_same_output({"-D", "truth_walk $params"});
  // -v says where the units' DIEs came from: the package, else the .dwo file.
  run_result v = kpp({"-v", "-x", split(), "-D", "scale a"});
  ASSERT_EQ(v.status, 0) << describe(v);
  bool packaged = GetParam().size() > 3 && GetParam().compare(GetParam().size() - 3, 3, "dwp") == 0;
  EXPECT_TRUE(contains(v.err, "split DWARF: 1 of 1 units from '")) << v.err;
  EXPECT_TRUE(contains(v.err, packaged ? split() + ".dwp'" : ".dwo'")) << v.err;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, E2eSplit, ::testing::ValuesIn(split_builds()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

TEST_F(E2e, MissingDwoIsNamedWithThePlacesTriedAndFoundBesideAMovedProgram) {
  std::string dir = "/tmp/kpp-e2e-split-" + std::to_string(getpid());
  std::filesystem::create_directories(dir + "/build");
  std::filesystem::create_directories(dir + "/moved");
  std::string bin = dir + "/build/prog";
  ASSERT_EQ(std::system(("cd " + dir + "/build && gcc -O2 -g -gsplit-dwarf -o prog " + fixture_source).c_str()), 0);
  std::string dwo = dir + "/build/prog-e2e_fixture.dwo";
  ASSERT_TRUE(std::filesystem::exists(dwo));

  // Moved away from the build tree: the .dwo beside the program is used.
  std::filesystem::copy_file(bin, dir + "/moved/prog");
  std::filesystem::rename(dwo, dir + "/moved/prog-e2e_fixture.dwo");
  run_result moved = kpp({"-x", dir + "/moved/prog", "-D", "walk p"});
  EXPECT_EQ(moved.status, 0) << describe(moved);

  // Nowhere: the error names the .dwo and every place tried.
  std::filesystem::remove(dir + "/moved/prog-e2e_fixture.dwo");
  run_result missing = kpp({"-x", bin, "-D", "walk p"});
  run_result funcs = kpp({"-x", bin, "-F"});
  run_result lines = kpp({"-x", bin, "-L", "walk"});
  // A FIFO where the .dwo should be (hostile DWARF can name one) is not
  // read: reading it would block for ever.
  ASSERT_EQ(mkfifo(dwo.c_str(), 0600), 0);
  run_result fifo = run_program({"/usr/bin/timeout", "30", kpp_bin, "-x", bin, "-D", "walk p"});
  std::filesystem::remove_all(dir);
  EXPECT_EQ(fifo.status, 1) << describe(fifo);
  EXPECT_TRUE(contains(fifo.err, "prog-e2e_fixture.dwo")) << fifo.err;
  EXPECT_EQ(missing.status, 1) << describe(missing);
  for (const std::string &text : {std::string("no function 'walk'"), std::string("prog-e2e_fixture.dwo"),
                                  dwo, bin + ".dwp", dir + "/build/prog-e2e_fixture.dwo"})
    EXPECT_TRUE(contains(missing.err, text)) << text << " in:\n" << missing.err;
  EXPECT_EQ(lines.status, 1) << describe(lines);
  EXPECT_TRUE(contains(lines.err, "prog-e2e_fixture.dwo")) << lines.err;
  // The symbol table is in the program: -F still lists the functions.
  ASSERT_EQ(funcs.status, 0) << describe(funcs);
  EXPECT_TRUE(contains(funcs.out, "walk\n")) << funcs.out;
}
