// End-to-end tests: the real kprobe-probe binary, run as a subprocess (as
// root), puts real uprobes on fixture programs. Expected values come from the
// fixtures' own "truth" lines or from their C source, never from the tool.
// Every test uses its own group kpptest_e2e_<pid>_<n> and leaves none of it
// behind in uprobe_events.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
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
    std::vector<observation> truth = truth_lines(trace.err);
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

  std::vector<observation> truth = keep_fields(truth_lines(trace.err), {{"walk", {"name", "i", "s", "x", "tag", "g"}},
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
  std::vector<observation> truth = keep_fields(truth_lines(trace.err), {{"scale", {"a", "b", "calls"}}});
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
// Trust (issue 12 items 2 and 7): files root writes are its own, a cache
// directory someone else controls is not used, -L ranges are bounded.

// A -L range far past the end of the file looped for ever (and sums near INT_MAX wrapped).
TEST_F(E2e, HugeLineRangeEndsAtTheEndOfTheFile) {
  std::string file = std::filesystem::path(fixture_source).filename().string();
  std::vector<std::string> source = split_lines(read_file(fixture_source));
  ASSERT_FALSE(source.empty());
  auto start = std::chrono::steady_clock::now();
  run_result r = kpp({"-x", fixture_path("gcc_O0"), "-L", file + ":1+10000000"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_LT(seconds, 10.0);
  std::vector<std::string> lines = split_lines(r.out);
  ASSERT_GT(lines.size(), 1u) << r.out;
  EXPECT_TRUE(contains(lines.back(), source.back())) << "ends with the file's last line, " << source.back() << "\n" << r.out;
  run_result near_max = kpp({"-x", fixture_path("gcc_O0"), "-L", "walk:1+2147483647"});
  EXPECT_EQ(near_max.status, 0) << describe(near_max);
  run_result refused = kpp({"-x", fixture_path("gcc_O0"), "-L", file + ":2147483648"});
  EXPECT_EQ(refused.status, 1) << describe(refused);
  EXPECT_TRUE(contains(refused.err, "line numbers go up to 16777216")) << refused.err;
}

// A trace.dat symlink planted where root records must not make root overwrite its target.
TEST_F(E2e, RecordRefusesAPlantedSymlinkAndLeavesItsTargetAlone) {
  std::string dir = "/tmp/kpp-e2e-record-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string victim = dir + "/victim", link = dir + "/trace.dat";
  std::ofstream(victim) << "secret\n";
  chmod(victim.c_str(), 0600);
  std::filesystem::create_symlink(victim, link);
  run_result add = kpp({"-q", "-x", fixture_path("gcc_O0"), "-a", ev("walk") + "walk"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result record = kpp({"record", "-e", group_ + ":*", "-o", link, "--", fixture_path("gcc_O0")});
  std::string after = read_file(victim);
  bool still_link = std::filesystem::is_symlink(link);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(record.status, 1) << describe(record);
  EXPECT_TRUE(contains(record.err, link) && contains(record.err, "symbolic link")) << record.err;
  EXPECT_EQ(after, "secret\n");
  EXPECT_TRUE(still_link);
}

// Root under sudo -E with another user's XDG_CACHE_HOME, or a cache directory
// that is a link: nothing is read from it or written into it, -v says why,
// and the answer is --no-cache's.
TEST_F(E2e, ACacheDirectoryOfAnotherUserIsNotUsed) {
  std::string home = "/tmp/kpp-e2e-cache-" + std::to_string(getpid());
  std::string cache = home + "/kprobe-probe", elsewhere = home + "/elsewhere";
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(cache);
  std::filesystem::create_directories(elsewhere);
  auto with_home = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "XDG_CACHE_HOME=" + home, kpp_bin});
    return run_program(args);
  };
  std::string spec = "walk i";
  run_result plain = kpp({"--no-cache", "-x", fixture_path("gcc_O2"), "-D", spec});
  ASSERT_EQ(plain.status, 0) << describe(plain);

  ASSERT_EQ(chown(cache.c_str(), 65534, 65534), 0);
  run_result owned = with_home({"-v", "-x", fixture_path("gcc_O2"), "-D", spec});
  size_t owned_files = std::distance(std::filesystem::directory_iterator(cache), std::filesystem::directory_iterator());

  std::filesystem::remove(cache);
  std::filesystem::create_directory_symlink(elsewhere, cache);
  run_result linked = with_home({"-v", "-x", fixture_path("gcc_O2"), "-D", spec});
  size_t linked_files = std::distance(std::filesystem::directory_iterator(elsewhere), std::filesystem::directory_iterator());
  std::filesystem::remove_all(home);

  EXPECT_EQ(owned.status, 0) << describe(owned);
  EXPECT_EQ(owned.out, plain.out);
  EXPECT_TRUE(contains(owned.err, "cache not used: '" + cache + "' belongs to uid 65534")) << owned.err;
  EXPECT_EQ(owned_files, 0u) << "nothing written into another user's directory";
  EXPECT_EQ(linked.status, 0) << describe(linked);
  EXPECT_EQ(linked.out, plain.out);
  EXPECT_TRUE(contains(linked.err, "cache not used: '" + cache + "' is a symbolic link")) << linked.err;
  EXPECT_EQ(linked_files, 0u) << "nothing written through the link";
}

// Symbols first, and no DWARF as a mode (as perf probe): a stripped program
// is probed by the symbols it exports, with the kernel's raw fetch args;
// libc's aliases (malloc is __libc_malloc) reach the DWARF of libc6-dbg.
// Expected values are computed here from tests/e2e/fixtures/symbols_fixture.c.

std::string symbols_fixture() { return fixture_dir + "/symbols_fixture_stripped"; }

// The fixture's checksum(), as its source computes it.
long fixture_checksum(const std::string &text, long seed) {
  long sum = seed;
  for (unsigned char c : text) sum = sum * 31 + c;
  return sum;
}

// "p:GROUP/EVENT PLACE ARGS" without "GROUP/EVENT": what two tools' definitions must share.
std::string definition_body(const std::string &line) {
  size_t space = line.find(' ');
  return line.substr(0, 2) + (space == std::string::npos ? "" : line.substr(space));
}

TEST_F(E2e, NoDwarfProbesBySymbolWithRawFetchArgs) {
  std::string fx = symbols_fixture();
  run_result add = kpp({"-x", fx, "-a", ev("sum") + "checksum text=+0(%di):string seed=%si", "-a",
                        ev("sum_ret") + "checksum%return ret=$retval:s64", "-a",
                        ev("pair") + "pair_sum a=+0($arg1):s64 b=+8(%di):s64 calls=@g_calls:s64"});
  ASSERT_EQ(add.status, 0) << describe(add);
  // One line saying what works without DWARF, and where DWARF was looked for.
  EXPECT_TRUE(contains(add.err, "kprobe-probe: note: '" + fx + "' has no DWARF")) << add.err;
  EXPECT_TRUE(contains(add.err, "/usr/lib/debug/.build-id/")) << add.err;
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", fx});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> expected;
  const char *words[] = {"alpha", "beta", "gamma"};
  for (long i = 0; i < 3; ++i) {
    expected.push_back({"sum", {{"text", words[i]}, {"seed", std::to_string(i + 1)}}});
    expected.push_back({"sum_ret", {{"ret", std::to_string(fixture_checksum(words[i], i + 1))}}});
  }
  // $arg1 of a uprobe is the first argument register; g_calls counts the checksums.
  expected.push_back({"pair", {{"a", "40"}, {"b", "2"}, {"calls", "3"}}});
  std::vector<observation> events = json_events(trace.out, group_);
  // The seed register is shown as the kernel's default type (hex) : compare its value.
  for (observation &e : events)
    if (e.fields.count("seed")) e.fields["seed"] = std::to_string(std::stoul(e.fields["seed"], nullptr, 0));
  ASSERT_EQ(events.size(), expected.size()) << describe(trace);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(events[i], expected[i]) << "hit #" << i;
}

// After an add the suggested command runs a program: the probed one, or
// for a library one that is not the library; flags may come before the
// subcommand.
TEST_F(E2e, TheSuggestedTraceRunsAProgramAndTakesFlagsFirst) {
  std::string lib = fixture_dir + "/libkpp_shared.so";
  run_result on_lib = kpp({"-x", lib, "-a", ev("shift") + "shift_by o"});
  ASSERT_EQ(on_lib.status, 0) << describe(on_lib);
  EXPECT_TRUE(contains(on_lib.err, "kprobe-probe trace -e " + group_ + ":shift -- sleep 1")) << on_lib.err;
  std::string fx = symbols_fixture();
  run_result on_program = kpp({"-x", fx, "-a", ev("sum") + "checksum seed=%si:s64"});
  ASSERT_EQ(on_program.status, 0) << describe(on_program);
  EXPECT_TRUE(contains(on_program.err, "kprobe-probe trace -e " + group_ + ":sum -- " + fx + "\n")) << on_program.err;
  run_result trace = kpp({"-v", "trace", "-e", group_ + ":sum", "--json", "--", fx});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  EXPECT_EQ(json_events(trace.out, group_).size(), 3u) << trace.out;
}

TEST_F(E2e, NoDwarfRefusesWhatNeedsItAndSaysWhy) {
  std::string fx = symbols_fixture();
  run_result line = kpp({"-x", fx, "-D", "checksum:2"});
  EXPECT_EQ(line.status, 1) << describe(line);
  EXPECT_TRUE(contains(line.err, "a line number needs DWARF line tables")) << line.err;
  run_result variable = kpp({"-x", fx, "-D", "checksum text"});
  EXPECT_EQ(variable.status, 1) << describe(variable);
  EXPECT_TRUE(contains(variable.err, "'text' is read by name, which needs DWARF")) << variable.err;
  run_result vars = kpp({"-x", fx, "-V", "checksum"});
  EXPECT_EQ(vars.status, 1) << describe(vars);
  EXPECT_TRUE(contains(vars.err, "-V lists variables from DWARF")) << vars.err;
  // An offset cannot be checked to start an instruction without a line table (-f says it
  // does), unless the disassembler is built in: +4 is inside `mov %rsi,%rax` (objdump).
  run_result offset = kpp({"-x", fx, "-D", "checksum+4"});
  EXPECT_EQ(offset.status, 1) << describe(offset);
  EXPECT_TRUE(contains(offset.err, "cannot be checked to start an instruction") ||
              contains(offset.err, "is not where an instruction starts, by the line table and the disassembler"))
      << offset.err;
  // $argN past the entry is not what the register holds any more.
  run_result late = kpp({"-x", fx, "-f", "-D", "checksum+4 $arg1"});
  EXPECT_EQ(late.status, 1) << describe(late);
  EXPECT_TRUE(contains(late.err, "only at its entry")) << late.err;
  // -F lists the exported functions.
  run_result funcs = kpp({"-x", fx, "-F"});
  ASSERT_EQ(funcs.status, 0) << describe(funcs);
  std::vector<std::string> names = split_lines(funcs.out);
  for (const char *fn : {"checksum", "pair_sum", "main"})
    EXPECT_NE(std::find(names.begin(), names.end(), fn), names.end()) << fn << " missing from:\n" << funcs.out;
}

// perf probe 6.1 makes the same definitions of the specs the kernel takes
// as written; where it writes what uprobes do not have ($argN, @SYM: the
// kernel refuses them), ours name the register and the file offset.
TEST_F(E2e, NoDwarfDefinitionsAreThePerfOnes) {
  const std::string perf = "/usr/bin/perf";
  std::string fx = symbols_fixture();
  if (access(perf.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << perf << " (linux-perf)";
  run_result entry = kpp({"-x", fx, "-D", "pair_sum"});
  ASSERT_EQ(entry.status, 0) << describe(entry);
  std::string place = entry.out.substr(entry.out.find(' ') + 1);
  place = place.substr(0, place.find_first_of(" \n"));  // PATH:0xOFF of pair_sum
  run_result address_of = kpp({"-x", fx, "-D", "pair_sum+0"});
  ASSERT_EQ(address_of.status, 0) << describe(address_of);
  for (std::vector<std::string> spec :
       {std::vector<std::string>{"checksum text=+0(%di):string seed=%si"}, {"pair_sum a=+0(%di):s64 b=+8(%di):s64"},
        {"checksum%return r=$retval"}, {"-f", "checksum+4"}, {"checksum s=$stack1 sp=$stack"}}) {
    std::vector<std::string> ours_args{"-x", fx};
    for (size_t i = 0; i + 1 < spec.size(); ++i) ours_args.push_back(spec[i]);
    ours_args.push_back("-D");
    ours_args.push_back(spec.back());
    run_result ours = kpp(ours_args);
    run_result theirs = run_program({perf, "probe", "-x", fx, "-D", spec.back()});
    if (theirs.status != 0) {
      ADD_FAILURE() << "perf failed on " << spec.back() << ":\n" << theirs.err;
      continue;
    }
    ASSERT_EQ(ours.status, 0) << spec.back() << ": " << describe(ours);
    EXPECT_EQ(definition_body(split_lines(ours.out).at(0)), definition_body(split_lines(theirs.out).at(0))) << spec.back();
  }
  run_result ours = kpp({"-x", fx, "-D", "pair_sum p=$arg1 calls=@g_calls:s64"});
  ASSERT_EQ(ours.status, 0) << describe(ours);
  EXPECT_TRUE(contains(ours.out, place + " p=%di calls=@+0x")) << ours.out;
}

// The libc6-dbg tests: a name the symbol table gives reaches the DWARF of the function at its address.
std::string libc_with_dwarf() {
  std::string libc = "/lib/x86_64-linux-gnu/libc.so.6";
  if (access(libc.c_str(), R_OK) != 0) return "";
  run_result r = run_program({kpp_bin, "-x", libc, "-D", "__libc_malloc bytes"});
  return r.status == 0 ? libc : "";
}

TEST_F(E2e, LibcAliasesReachTheirFunctionsDwarf) {
  std::string libc = libc_with_dwarf();
  if (libc.empty()) GTEST_SKIP() << "libc without DWARF here (scripts/install-deps.sh --tests installs libc6-dbg)";
  struct Alias {
    std::string name, function, args;
  };
  for (const Alias &a : {Alias{"malloc", "__libc_malloc", "bytes"}, Alias{"free", "__libc_free", "mem"},
                         Alias{"write", "__libc_write", "fd buf nbytes"}, Alias{"fopen", "_IO_new_fopen", "filename mode"}}) {
    run_result alias = kpp({"-x", libc, "-D", a.name + " " + a.args});
    run_result own = kpp({"-x", libc, "-D", a.function + " " + a.args});
    ASSERT_EQ(alias.status, 0) << describe(alias);
    ASSERT_EQ(own.status, 0) << describe(own);
    // The entry of the function (its own name may add inlined copies of it).
    EXPECT_EQ(definition_body(split_lines(alias.out).at(0)), definition_body(split_lines(own.out).at(0))) << a.name;
    EXPECT_TRUE(contains(alias.out, "/" + a.name + " ")) << "the event is named as typed: " << alias.out;
  }
  // Versioned names: the default memcpy (GLIBC_2.14) and the old one are two functions.
  run_result v14 = kpp({"-x", libc, "-D", "memcpy@GLIBC_2.14"});
  run_result v225 = kpp({"-x", libc, "-D", "memcpy\\@GLIBC_2.2.5"});
  ASSERT_EQ(v14.status, 0) << describe(v14);
  ASSERT_EQ(v225.status, 0) << describe(v225);
  EXPECT_NE(definition_body(v14.out), definition_body(v225.out));
  // A name refused is not among the names suggested for it.
  run_result refused = kpp({"-x", libc, "-D", "malloc@no_such_file.c"});
  EXPECT_EQ(refused.status, 1) << describe(refused);
  EXPECT_FALSE(std::regex_search(refused.err, std::regex("did you mean:.*\\bmalloc\\b(,|$)"))) << refused.err;
}

// libstdc++ as Debian ships it: its debug build (libstdc++6-12-dbg, DWARF)
// and the system's library (no DWARF: demangled .dynsym names).
TEST_F(E2e, LibstdcxxNamesAsPrintedAreAcceptedBack) {
  const std::string debug_build = "/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6";
  const std::string system_lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
  if (access(debug_build.c_str(), R_OK) != 0) GTEST_SKIP() << "no " << debug_build << " (libstdc++6-12-dbg)";
  for (const std::string &lib : {debug_build, system_lib}) {
    run_result d = kpp({"-x", lib, "-D", "std::__throw_length_error(char const*) %di"});
    ASSERT_EQ(d.status, 0) << lib << ": " << describe(d);
    EXPECT_EQ(split_lines(d.out).size(), 1u) << d.out;
    EXPECT_TRUE(contains(d.out, " arg1=%di")) << d.out;
  }
  run_result funcs = kpp({"-x", debug_build, "--funcs=std::__throw_*"});
  ASSERT_EQ(funcs.status, 0) << describe(funcs);
  std::vector<std::string> names = split_lines(funcs.out);
  EXPECT_GE(names.size(), 5u) << funcs.out;
  for (const std::string &name : names) {
    run_result d = kpp({"-x", debug_build, "-D", name});
    EXPECT_EQ(d.status, 0) << name << ": " << describe(d);
  }
}

// Every name -F prints for libstdc++, glibc and python3.11 goes back in
// tests/lto/funcs_round_trip_test.cpp.

TEST_F(E2e, LibcMallocByItsAliasReadsTheSizeAsked) {
  std::string libc = libc_with_dwarf();
  if (libc.empty()) GTEST_SKIP() << "libc without DWARF here (scripts/install-deps.sh --tests installs libc6-dbg)";
  run_result add = kpp({"-q", "-x", libc, "-a", ev("malloc") + "malloc bytes"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--pid-only", "--", symbols_fixture()});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  size_t asked = 0;  // the fixture's malloc(12345), once
  for (const observation &e : json_events(trace.out, group_)) asked += e.fields.at("bytes") == "12345";
  EXPECT_EQ(asked, 1u) << trace.out;
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
  std::vector<observation> truth = truth_lines(trace.err);
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
  std::vector<observation> truth = truth_lines(trace.err);
  ASSERT_EQ(truth.size(), 5u) << trace.out;
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), truth.size()) << "the companions are joined, not shown:\n" << describe(trace);
  for (size_t i = 0; i < truth.size(); ++i) EXPECT_EQ(events[i], truth[i]) << "hit #" << i;

  // Deleting the event deletes its companions.
  run_result del = kpp({"-q", "-d", group_ + ":c"});
  ASSERT_EQ(del.status, 0) << describe(del);
  for (const std::string &line : group_lines(group_)) EXPECT_FALSE(contains(line, "/c_")) << line;
}

// The entry companions go where the DWARF says the site's function starts:
// like a site, that place is checked against the binary first. With the
// function's symbol stripped, no function of the symbol table starts there,
// and the probe is refused rather than placed.
TEST_F(E2e, AnEntryCompanionGoesOnlyWhereTheSymbolTableStartsAFunction) {
  std::string fx = fixture_dir + "/entry_value_fixture";
  std::string src = KPP_E2E_ENTRY_VALUE_SOURCE;
  int consume_rel = line_of(src, "probe:consume_after_calls") - line_of(src, "int consume(");
  std::string spec = "consume:" + std::to_string(consume_rel) + " n";
  std::string stripped = "/tmp/kpp-e2e-stripped-" + std::to_string(getpid());
  run_result strip = run_program({"/usr/bin/objcopy", "--strip-symbol=consume", fx, stripped});
  if (strip.status != 0) GTEST_SKIP() << "objcopy could not strip a symbol: " << strip.err;
  run_result whole = kpp({"-x", fx, "-D", spec});
  run_result refused = kpp({"-x", stripped, "-D", spec});
  std::filesystem::remove(stripped);
  ASSERT_EQ(whole.status, 0) << describe(whole);
  EXPECT_TRUE(contains(whole.out, "__entry ")) << "the spec needs an entry companion: " << whole.out;
  EXPECT_EQ(refused.status, 1) << describe(refused);
  EXPECT_TRUE(contains(refused.err, "refusing the entry companion of consume:" + std::to_string(consume_rel)))
      << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
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
      truth_lines(trace.err),
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
  std::vector<observation> truth = keep_fields(truth_lines(trace.err), {{"long", {"value"}}});
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

// A linkage name, as perf probe takes it, reaches the inlined copies too: the
// same sites as the qualified name and as perf probe's -D, with or without
// the cache (inlined copies are named by their origin's short name only).
TEST_F(E2e, ALinkageNameProbesTheInlinedCopiesToo) {
  const std::string fx = fixture_dir + "/cxx_inline_fixture_gcc_O2";
  if (access(fx.c_str(), R_OK) != 0) GTEST_SKIP() << "no g++ fixture " << fx;
  const std::string mangled = "_ZN2ns5twiceEPKNS_3BoxE";
  auto places = [](const std::string &out) {
    std::vector<std::string> found;
    for (const std::string &line : split_lines(out)) {
      std::string place = line.substr(line.find(' ') + 1);
      found.push_back(place.substr(0, place.find(' ')));
    }
    std::sort(found.begin(), found.end());
    return found;
  };
  run_result by_name = kpp({"-x", fx, "-D", "ns::twice b"});
  ASSERT_EQ(by_name.status, 0) << describe(by_name);
  ASSERT_GE(split_lines(by_name.out).size(), 3u) << "the body and at least two inlined copies: " << by_name.out;
  for (const std::vector<std::string> &cache : {std::vector<std::string>{"--no-cache"}, {}, {}}) {
    std::vector<std::string> args = cache;
    for (const char *a : {"-x", fx.c_str(), "-D"}) args.push_back(a);
    args.push_back(mangled + " b");
    run_result ours = kpp(args);
    ASSERT_EQ(ours.status, 0) << describe(ours);
    EXPECT_EQ(places(ours.out), places(by_name.out)) << ours.out;
  }
  const std::string perf = "/usr/bin/perf";
  if (access(perf.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << perf << " (linux-perf) to compare with";
  run_result theirs = run_program({perf, "probe", "-x", fx, "-D", mangled + " b"});
  ASSERT_EQ(theirs.status, 0) << theirs.err;
  EXPECT_EQ(places(theirs.out), places(by_name.out)) << "perf probe:\n" << theirs.out;
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

// Every name -F prints is a FUNC, as printed: parameter lists with spaces,
// a template instance's return type, const methods.
TEST_P(E2eCxx, EveryNameFuncsPrintsIsAcceptedBack) {
  run_result funcs = kpp({"-x", fixture(), "-F"});
  ASSERT_EQ(funcs.status, 0) << describe(funcs);
  std::vector<std::string> names = split_lines(funcs.out);
  EXPECT_NE(std::find(names.begin(), names.end(), "int shapes::biggest<int>(int, int)"), names.end()) << funcs.out;
  EXPECT_NE(std::find(names.begin(), names.end(), "shapes::Box::area(int) const"), names.end()) << funcs.out;
  // Operators, conversions to types of several words among them.
  for (const char *op : {"shapes::Meter::operator unsigned long() const", "shapes::Meter::operator char const*() const",
                         "shapes::Pair<int, long>::operator long long() const", "shapes::Meter::operator()(int) const",
                         "shapes::Meter::operator delete(void*)", "shapes::Meter::operator++(int)"})
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op << " missing from:\n" << funcs.out;
  for (const std::string &name : names) {
    run_result d = kpp({"-x", fixture(), "-D", name});
    EXPECT_EQ(d.status, 0) << name << ": " << describe(d);
    EXPECT_EQ(split_lines(d.out).size(), 1u) << name << " names one function: " << d.out;
  }
  // With an argument after it, and quoted as the manual says.
  run_result with_arg = kpp({"-x", fixture(), "-D", "shapes::Box::area(int) const scale"});
  ASSERT_EQ(with_arg.status, 0) << describe(with_arg);
  EXPECT_TRUE(contains(with_arg.out, " scale=")) << with_arg.out;
  run_result quoted = kpp({"-x", fixture(), "-D", "'shapes::twice(long)' v"});
  ASSERT_EQ(quoted.status, 0) << describe(quoted);
  EXPECT_TRUE(contains(quoted.out, " v=")) << quoted.out;
}

// -V spells types as C++ does (and gdb prints them).
TEST_P(E2eCxx, VarsSpellsTypesAsCxx) {
  run_result r = kpp({"-x", fixture(), "-V", "shapes::labelled_area", "--externs"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "const shapes::Box &\tbox\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "const char *\tlabel\n")) << r.out;
  EXPECT_FALSE(contains(r.out, "const const")) << r.out;
  // The const array, where the build keeps it (gcc -O0 does).
  if (GetParam() == "gcc_O0") {
    EXPECT_TRUE(contains(r.out, "const char[13]\tkShapeLabel\n")) << r.out;
  }
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
  std::vector<observation> truth = keep_fields(truth_lines(trace.err), keep);
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

// ---------------------------------------------------------------------------
// Sessions (trace, record, report): exit statuses, companions known from the
// definitions, pipes, signals at any moment, stale instances, a full disk.

class E2eSession : public E2e {
 protected:
  // Adds GROUP:EVENT on the gcc -O0 fixture (the test stops if it cannot).
  void add_on_fixture(const std::string &event, const std::string &spec) {
    run_result add = kpp({"-q", "-x", fx_, "-a", ev(event) + spec});
    ASSERT_EQ(add.status, 0) << describe(add);
  }
  std::string fx_ = fixture_path("gcc_O0");
};

std::string instance_path(pid_t pid) { return tracing_dir() + "/instances/kprobe-probe-" + std::to_string(pid); }

// Nothing of a session run is left: its instance, and any process of the
// traced command (found by its marker argument).
void expect_nothing_left(const run_result &r, const std::string &marker) {
  std::string instance = instance_path(r.pid);
  bool left = std::filesystem::exists(instance);
  if (left) rmdir(instance.c_str());
  EXPECT_FALSE(left) << "left behind: " << instance << "\n" << describe(r);
  for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
    std::string cmdline = read_file(entry.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (contains(cmdline, marker) && !contains(cmdline, "kprobe-probe")) {
      ADD_FAILURE() << "traced command still running: " << cmdline;
      kill(std::stoi(entry.path().filename().string()), SIGKILL);
    }
  }
}

TEST_F(E2eSession, TraceAndRecordExitWithTheCommandsStatus) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  std::string file = "/tmp/kpptest_status_" + std::to_string(getpid()) + ".dat";
  for (const std::string &cmd : {std::string("trace"), std::string("record")}) {
    std::vector<std::string> base{cmd, "-e", group_ + ":*"};
    if (cmd == "record") base.insert(base.end(), {"-o", file});
    auto with = [&](std::vector<std::string> tail) {
      std::vector<std::string> args = base;
      args.insert(args.end(), tail.begin(), tail.end());
      return kpp(args);
    };
    run_result seven = with({"--", "/bin/sh", "-c", fx + " 1 >/dev/null; exit 7"});
    EXPECT_EQ(seven.status, 7) << describe(seven);
    EXPECT_TRUE(contains(seven.err, "; sh exited 7")) << seven.err;
    run_result segv = with({"--", "/bin/sh", "-c", "kill -SEGV $$"});
    EXPECT_EQ(segv.status, 128 + SIGSEGV) << describe(segv);
    EXPECT_TRUE(contains(segv.err, "; sh killed by SIGSEGV")) << segv.err;
    EXPECT_FALSE(segv.signaled) << "the tool itself must not die: " << describe(segv);
    run_result ok = with({"--", fx, "1"});
    EXPECT_EQ(ok.status, 0) << describe(ok);
    EXPECT_TRUE(contains(ok.err, "exited 0")) << ok.err;
  }
  std::remove(file.c_str());
}

TEST_F(E2eSession, AnEventNamedLikeACompanionIsPrinted) {
  add_on_fixture("my__entry", "scale a b");
  const std::string &fx = fx_;
  run_result trace = kpp({"trace", "-e", group_ + ":my__entry", "--json", "--", fx, "2"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<observation> events = json_events(trace.out, group_);
  ASSERT_EQ(events.size(), 6u) << describe(trace);  // scale() runs once per node, 3 nodes a round
  EXPECT_EQ(events[0].tag, "my__entry");
}

// `trace -e G:E` (the command --add suggests) and `report` of a recording
// show the entry values exactly as `trace -e 'G:*'` does.
TEST_F(E2e, AnExactEventBringsItsCompanionsAndReportJoinsThem) {
  std::string fx = fixture_dir + "/entry_value_fixture";
  std::string src = KPP_E2E_ENTRY_VALUE_SOURCE;
  int consume_rel = line_of(src, "probe:consume_after_calls") - line_of(src, "int consume(");
  run_result add = kpp({"-q", "-x", fx, "-a", ev("c") + "consume:" + std::to_string(consume_rel) + " n name=it->name:string"});
  ASSERT_EQ(add.status, 0) << describe(add);
  run_result glob = kpp({"trace", "-e", group_ + ":*", "--json", "--", fx});
  ASSERT_EQ(glob.status, 0) << describe(glob);
  run_result exact = kpp({"trace", "-e", group_ + ":c", "--json", "--", fx});
  ASSERT_EQ(exact.status, 0) << describe(exact);
  std::vector<observation> truth = keep_fields(truth_lines(glob.err), {{"c", {"n", "name"}}});
  ASSERT_FALSE(truth.empty()) << glob.err;
  EXPECT_EQ(json_events(glob.out, group_), truth);
  EXPECT_EQ(json_events(exact.out, group_), truth) << "the entry-value field is missing with -e G:E";

  std::string file = "/tmp/kpptest_report_" + std::to_string(getpid()) + ".dat";
  run_result record = kpp({"record", "-q", "-e", group_ + ":c", "-o", file, "--", fx});
  ASSERT_EQ(record.status, 0) << describe(record);
  run_result report = kpp({"report", file, "--json"});
  std::remove(file.c_str());
  ASSERT_EQ(report.status, 0) << describe(report);
  EXPECT_EQ(json_events(report.out, group_), truth);
}

TEST_F(E2eSession, JsonEventsCarryTheirAddressAndSite) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  run_result trace = kpp({"trace", "-e", group_ + ":scale", "--json", "--", fx, "2"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  std::vector<std::string> lines = split_lines(trace.out);
  ASSERT_EQ(lines.size(), 6u) << describe(trace);  // 2 rounds of 3 nodes
  for (const std::string &line : lines) {
    auto v = parse_json(line);
    ASSERT_TRUE(v) << line;
    ASSERT_TRUE(v->get("ip")) << line;
    EXPECT_TRUE(std::regex_match(v->get("ip")->text, std::regex("0x[0-9a-f]+"))) << line;
    ASSERT_TRUE(v->get("site")) << line;
    // -l's place for the probe: after the prologue of scale() at -O0, "scale:2@.../e2e_fixture.c".
    EXPECT_TRUE(std::regex_match(v->get("site")->text, std::regex(R"(scale:\d+@.*e2e_fixture\.c)"))) << line;
  }
  run_result verbose = kpp({"trace", "-v", "-e", group_ + ":scale", "--", fx, "1"});
  ASSERT_EQ(verbose.status, 0) << describe(verbose);
  EXPECT_TRUE(std::regex_search(verbose.out, std::regex(R"(\(ip=0x[0-9a-f]+ site=scale:\d+@)"))) << verbose.out;
}

TEST_F(E2eSession, PipedTraceDeliversLinesWhileTheCommandRuns) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  // One hit at once, then 3 s of nothing: the line must not wait for the end.
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", "/bin/sh", "-c", fx + " 1; sleep 3"});
  ASSERT_EQ(trace.status, 0) << describe(trace);
  ASSERT_GE(trace.first_out_s, 0) << describe(trace);
  EXPECT_LT(trace.first_out_s, trace.total_s - 2.0) << "first line at " << trace.first_out_s << " s of " << trace.total_s;
  // The command's own output went to stderr, stdout is JSON only.
  EXPECT_TRUE(contains(trace.err, "e2e_fixture: total")) << trace.err;
  EXPECT_EQ(json_events(trace.out, group_).size(), 3u) << trace.out;
}

TEST_F(E2eSession, TraceIntoAClosedPipeEndsQuietlyAndCleansUp) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "--", "/bin/sh", "-c",
                          "while :; do " + fx + " 5 >/dev/null; done"},
                         {.uid = std::nullopt, .close_stdout_after_first_line = true});
  EXPECT_FALSE(trace.signaled) << describe(trace);
  EXPECT_FALSE(contains(trace.err, "error")) << trace.err;
  EXPECT_EQ(trace.status, 0) << describe(trace);
  expect_nothing_left(trace, fx + " 5");
}

TEST_F(E2eSession, TraceWritesToTheOutputFile) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  std::string file = "/tmp/kpptest_out_" + std::to_string(getpid()) + ".json";
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--json", "-o", file, "--", fx, "3"});
  std::string text = read_file(file);
  std::remove(file.c_str());
  ASSERT_EQ(trace.status, 0) << describe(trace);
  EXPECT_EQ(json_events(text, group_).size(), 9u) << text;
  EXPECT_TRUE(contains(trace.out, "e2e_fixture: total")) << "the command keeps stdout when events go to a file";
}

TEST_F(E2e, OptionsThatDoNotApplyAreRefused) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"record", "--json", "-e", "x:y"}, {"trace", "--file-version", "7", "-e", "x:y"},
        {"trace", "--compression", "zstd", "-e", "x:y"}, {"report", "-e", "x:y", "f.dat"}, {"trace", "--keep", "-e", "x:y"}}) {
    run_result r = kpp(args);
    EXPECT_EQ(r.status, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "does not apply to '" + args[0] + "'")) << r.err;
  }
}

// hist counts in the kernel, whose stack key holds kernel stacks only: a
// user stack asked of it is refused, naming where stacks are counted.
TEST_F(E2e, HistRefusesStacksAndNamesTraceFolded) {
  for (std::vector<std::string> args : {std::vector<std::string>{"hist", "-e", "x:y", "--by", "stacktrace"},
                                        {"hist", "-e", "x:y", "--by", "common_stacktrace"},
                                        {"hist", "-e", "x:y", "--by", "comm", "--stack"}}) {
    run_result r = kpp(args);
    EXPECT_EQ(r.status, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "kernel stacks only")) << r.err;
    EXPECT_TRUE(contains(r.err, "trace -e GROUP:EVENT --stack --folded")) << r.err;
  }
}

// SIGINT/SIGTERM/SIGHUP/SIGPIPE at random moments of trace and record: the
// command ends, the instance goes, the recording is one trace-cmd reads.
TEST_F(E2eSession, SignalsAtRandomMomentsLeaveNothingBehind) {
  add_on_fixture("scale", "scale a b");
  const std::string &fx = fx_;
  std::string file = "/tmp/kpptest_signals_" + std::to_string(getpid()) + ".dat";
  const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
  unsigned seed = static_cast<unsigned>(getpid());
  int trials = 0;
  for (const std::string cmd : {"trace", "record"}) {
    for (int i = 0; i < 20; ++i, ++trials) {
      int sig = signals[rand_r(&seed) % 4];
      // 20 ms (the tool has started: before that exec and the loader run) to
      // 0.6 s: option parsing, setup, running, anywhere.
      double at = (20 + rand_r(&seed) % 580) / 1000.0;
      std::string marker = fx + " 7";
      std::vector<std::string> args{cmd, "-q", "-e", group_ + ":*"};
      if (cmd == "record") args.insert(args.end(), {"-o", file});
      args.insert(args.end(), {"--", "/bin/sh", "-c", "while :; do " + marker + " >/dev/null; done"});
      run_result r = kpp(args, {.uid = std::nullopt, .close_stdout_after_first_line = false, .signal = sig,
                                .signal_after_s = at});
      SCOPED_TRACE(cmd + " signal " + std::to_string(sig) + " at " + std::to_string(at) + " s");
      EXPECT_FALSE(r.signaled) << describe(r);
      expect_nothing_left(r, marker);
      if (cmd == "record") {
        run_result rep = run_program({"/usr/bin/trace-cmd", "report", file});
        EXPECT_EQ(rep.status, 0) << describe(rep);
      }
    }
  }
  std::remove(file.c_str());
  EXPECT_EQ(trials, 40);
}

TEST_F(E2eSession, InstancesOfDeadRunsAreRemovedAndOthersKept) {
  add_on_fixture("scale", "scale a b");
  // A run killed with SIGKILL leaves its instance, the probe enabled in it.
  run_result killed = kpp({"trace", "-e", group_ + ":*", "--", "/bin/sh", "-c", "sleep 1"},
                          {.uid = std::nullopt, .close_stdout_after_first_line = false, .signal = SIGKILL,
                           .signal_after_s = 0.5});
  ASSERT_TRUE(killed.signaled) << describe(killed);
  std::string stale = instance_path(killed.pid), alive = instance_path(getpid());
  std::string foreign = tracing_dir() + "/instances/kpptest_other_" + std::to_string(getpid());
  // The same dead pid in another pid namespace (a container's: its process
  // may run there): not this run's to judge.
  struct stat own_ns {};
  ASSERT_EQ(stat("/proc/self/ns/pid", &own_ns), 0);
  std::string other_namespace = stale + "-ns" + std::to_string(own_ns.st_ino + 1);
  ASSERT_TRUE(std::filesystem::exists(stale)) << "SIGKILL should have left " << stale;
  ASSERT_EQ(mkdir(alive.c_str(), 0755), 0) << alive;  // named as ours, but its process (this test) runs
  ASSERT_EQ(mkdir(foreign.c_str(), 0755), 0) << foreign;
  ASSERT_EQ(mkdir(other_namespace.c_str(), 0755), 0) << other_namespace;
  run_result trace = kpp({"trace", "-e", group_ + ":*", "--", fx_, "1"});
  bool stale_left = std::filesystem::exists(stale), alive_kept = std::filesystem::exists(alive),
       foreign_kept = std::filesystem::exists(foreign), other_namespace_kept = std::filesystem::exists(other_namespace);
  for (const std::string &d : {stale, alive, foreign, other_namespace}) rmdir(d.c_str());
  ASSERT_EQ(trace.status, 0) << describe(trace);
  EXPECT_FALSE(stale_left);
  EXPECT_TRUE(contains(trace.err, "removed tracefs instance kprobe-probe-" + std::to_string(killed.pid))) << trace.err;
  EXPECT_TRUE(alive_kept) << "the instance of a live process was removed";
  EXPECT_TRUE(foreign_kept) << "an instance not named as ours was removed";
  EXPECT_TRUE(other_namespace_kept) << "an instance of another pid namespace was removed";
}

// The working process dies as a fault would end it (SIGSEGV, sent to it while
// the session runs; src/cli/supervisor.h): the run ends with status 1 and an
// error that says so and names the file it read, its instance is removed and
// the command it traced is ended. Killed (SIGKILL, as by the OOM killer), the
// run dies of SIGKILL, with the same cleanup.
TEST_F(E2eSession, AWorkerThatCrashesOrIsKilledIsReportedAndLeavesNothingBehind) {
  add_on_fixture("scale", "scale a b");
  for (int sig : {SIGSEGV, SIGKILL}) {
    SCOPED_TRACE(sigabbrev_np(sig));
    std::string marker = "kpptest_worker_" + std::to_string(getpid()) + "_" + std::to_string(sig);
    run_result r = kpp({"trace", "-e", group_ + ":*", "--", "/bin/sh", "-c", "while :; do sleep 0.1; done", marker},
                       {.uid = std::nullopt, .close_stdout_after_first_line = false, .signal = sig,
                        .signal_after_s = 0.5, .signal_child = true});
    if (sig == SIGSEGV) {
      EXPECT_FALSE(r.signaled) << describe(r);
      EXPECT_EQ(r.status, 1) << describe(r);
      EXPECT_TRUE(contains(r.err, "kprobe-probe: error: the run crashed with SIGSEGV (the file it opened last: '" + fx_ +
                                      "')"))
          << r.err;
    } else {
      EXPECT_TRUE(r.signaled) << describe(r);
      EXPECT_EQ(r.status, 128 + SIGKILL) << describe(r);
      EXPECT_TRUE(contains(r.err, "kprobe-probe: error: the run was killed by SIGKILL")) << r.err;
    }
    EXPECT_TRUE(contains(r.err, "it had written no probe definition")) << r.err;
    EXPECT_TRUE(contains(r.err, "removed its tracefs instance kprobe-probe-" + std::to_string(r.pid))) << r.err;
    EXPECT_TRUE(contains(r.err, "ended what it had started (sh ")) << r.err;
    expect_nothing_left(r, marker);
  }
}

// The filter goes in parentheses before the tool's own "&& common_pid !=
// PID": one whose ')' would close them early is refused before anything is
// touched, for every command that takes --filter.
TEST_F(E2e, AFilterThatWouldEscapeItsParenthesesIsRefused) {
  for (const char *cmd : {"trace", "record", "hist"}) {
    SCOPED_TRACE(cmd);
    run_result r = kpp({cmd, "-e", group_ + ":x", "--by", "comm", "--filter", "1) || (1"});
    if (std::string(cmd) != "hist") r = kpp({cmd, "-e", group_ + ":x", "--filter", "1) || (1"});
    EXPECT_EQ(r.status, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "--filter: the parentheses do not pair up")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tracing_dir() + "/instances/kprobe-probe-" + std::to_string(r.pid)));
  }
  run_result quoted = kpp({"trace", "-e", group_ + ":x", "--filter", "comm == \")"});
  EXPECT_TRUE(contains(quoted.err, "a string is not closed")) << quoted.err;
}

// The working process killed (SIGKILL, as by the OOM killer) in the middle of
// a 1,500-probe --add: the process you started removes the probes that were
// written, names them, and dies of SIGKILL; none of the group is left. The
// kill comes when the group's first event appears (its directory in tracefs).
TEST_F(E2e, AWorkerKilledInTheMiddleOfAnAddLeavesNoProbe) {
  std::string fx = fixture_path("gcc_O0");
  std::vector<std::string> argv = {kpp_bin, "-x", fx};
  for (int i = 0; i < 1500; ++i) {
    argv.push_back("-a");
    argv.push_back(ev("p" + std::to_string(i)) + "scale a b");
  }
  std::string err_file = "/tmp/kpptest_addkill_" + std::to_string(getpid()) + ".err";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen(err_file.c_str(), "w", stderr);
    std::vector<char *> args;
    for (std::string &a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  std::string group_dir = tracing_dir() + "/events/" + group_;
  pid_t worker = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && waitpid(pid, nullptr, WNOHANG) == 0) {
    if (access(group_dir.c_str(), F_OK) == 0 && (worker = first_child(pid)) > 0) {
      kill(worker, SIGKILL);
      break;
    }
  }
  int status = 0;
  if (worker == 0) kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  std::string err = read_file(err_file);
  std::remove(err_file.c_str());
  ASSERT_GT(worker, 0) << "the add ended before its first probe was seen: " << err;
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status << ": " << err;
  EXPECT_TRUE(contains(err, "the run was killed by SIGKILL")) << err;
  EXPECT_TRUE(contains(err, "it had begun to write probe definitions")) << err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(err, m, std::regex("removed the ([0-9]+) probes? it had written \\(" + group_ + ":p")))
      << err;
  std::printf("killed after %s of 1500 probes were written; all removed\n", m[1].str().c_str());
  EXPECT_TRUE(group_lines(group_).empty()) << "left: " << group_lines(group_).size() << " probes\n" << err;
}

// A full disk: recording stops, the file keeps what fitted and trace-cmd
// reads it, the error names the file and the cause; in trace.dat version 6
// and version 7, plain and compressed.
TEST_F(E2e, RecordOnAFullDiskKeepsAReadableFile) {
  std::string fx = fixture_path("gcc_O0");
  run_result add = kpp({"-q", "-x", fx, "-a", ev("scale") + "scale a b"});
  ASSERT_EQ(add.status, 0) << describe(add);
  const std::vector<std::vector<std::string>> formats = {{}, {"--file-version", "7"},
                                                         {"--file-version", "7", "--compression", "zstd"}};
  for (const std::vector<std::string> &format : formats) {
    std::string label = format.empty() ? "version 6" : "version 7" + (format.size() > 2 ? " " + format[3] : "");
    SCOPED_TRACE(label);
    std::string dir = "/tmp/kpptest_full_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") != 0) {
      rmdir(dir.c_str());
      GTEST_SKIP() << "cannot mount a small tmpfs: " << std::strerror(errno);
    }
    std::string file = dir + "/trace.dat";
    std::vector<std::string> args = {"record", "-e", group_ + ":*", "-o", file};
    args.insert(args.end(), format.begin(), format.end());
    for (std::string a : {"--", "/bin/sh", "-c"}) args.push_back(a);
    args.push_back("i=0; while [ $i -lt 400 ]; do " + fx + " 50 >/dev/null; i=$((i+1)); done");
    run_result record = kpp(args);
    run_result report = run_program({"/usr/bin/trace-cmd", "report", file});
    umount2(dir.c_str(), MNT_DETACH);
    rmdir(dir.c_str());
    EXPECT_NE(record.status, 0) << describe(record);
    EXPECT_TRUE(contains(record.err, file)) << record.err;
    EXPECT_TRUE(contains(record.err, "No space left on device")) << record.err;
    EXPECT_EQ(report.status, 0) << describe(report);
    EXPECT_TRUE(contains(report.out, group_ + ":scale") || contains(report.out, "scale:")) << report.out.substr(0, 2000);
    expect_nothing_left(record, fx + " 50");
  }
}
