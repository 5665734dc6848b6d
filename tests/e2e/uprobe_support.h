// What the tests that put real uprobes share (tests/e2e, tests/lto): running
// kprobe-probe and reading what it wrote to uprobe_events, the "truth" lines
// fixtures print and the JSON events `trace --json` prints, and a test base
// that gives each test its own group and leaves none of it behind.
// The includer defines KPP_BIN (the kprobe-probe binary).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "definition_sites.h"
#include "mini_json.h"
#include "tests/common/run_program.h"

namespace uprobe_test {

inline const std::string kpp_bin = KPP_BIN;

inline std::string tracing_dir() {
  for (const char *d : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (access((std::string(d) + "/uprobe_events").c_str(), F_OK) == 0) return d;
  return "";
}

inline std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

// Runs kprobe-probe; any -D it prints must be free of repeated addresses
// (one address, one site), whatever the test checks besides.
inline run_result kpp(std::vector<std::string> args, const run_options &opt = {}) {
  bool definitions = definition_sites::asks_for_definitions(args);
  args.insert(args.begin(), kpp_bin);
  run_result r = run_program(args, opt);
  if (definitions) {
    std::vector<uint64_t> repeated = definition_sites::repeated_offsets(r.out);
    EXPECT_TRUE(repeated.empty()) << "an address repeated in the -D of:" << [&] {
      std::string line;
      for (const std::string &a : args) line += " " + a;
      return line;
    }() << "\n" << r.out;
  }
  return r;
}

inline std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + (r.signaled ? " (killed by a signal)" : "") + "\n--- stdout:\n" + r.out +
         "--- stderr:\n" + r.err;
}

// The lines of uprobe_events that belong to GROUP ("p:GROUP/EV ..." or "r:GROUP/EV ...").
inline std::vector<std::string> group_lines(const std::string &group) {
  std::vector<std::string> out;
  for (const std::string &line : split_lines(read_file(tracing_dir() + "/uprobe_events")))
    if (line.size() > 2 && line.compare(2, group.size() + 1, group + "/") == 0) out.push_back(line);
  return out;
}

// Removes the group's events by writing to uprobe_events itself: the last
// resort when the tool could not (a test that failed because the binary
// was being rebuilt under it left probes behind this way).
inline void remove_group_directly(const std::string &group) {
  for (const std::string &line : group_lines(group)) {
    std::string event = line.substr(2, line.find(' ') - 2);  // "GROUP/EVENT"
    std::ofstream(tracing_dir() + "/uprobe_events", std::ios::app) << "-:" << event << "\n";
  }
}

// The kernel prints uprobe offsets as 0x%016lx; -D prints them short.
inline std::string normalise_definition(const std::string &line) {
  static const std::regex long_offset(R"(:0x0+([0-9a-fA-F]))");
  return std::regex_replace(line, long_offset, ":0x$1");
}

// 1-based number of the first line of FILE that contains MARKER.
inline int line_of(const std::string &file, const std::string &marker) {
  auto lines = split_lines(read_file(file));
  for (size_t i = 0; i < lines.size(); ++i)
    if (contains(lines[i], marker)) return static_cast<int>(i) + 1;
  ADD_FAILURE() << "no '" << marker << "' in " << file;
  return 0;
}

// One observation: "truth TAG k=v ..." from the fixture, or a JSON event
// line "GROUP:TAG" with its fields, both as TAG + field map.
struct observation {
  std::string tag;
  std::map<std::string, std::string> fields;
};

inline std::ostream &operator<<(std::ostream &os, const observation &o) {
  os << o.tag << ":";
  for (const auto &[k, v] : o.fields) os << " " << k << "=" << v;
  return os;
}

inline bool operator==(const observation &a, const observation &b) { return a.tag == b.tag && a.fields == b.fields; }

inline std::vector<observation> truth_lines(const std::string &out) {
  std::vector<observation> obs;
  for (const std::string &line : split_lines(out)) {
    if (line.rfind("truth ", 0) != 0) continue;
    std::istringstream words(line.substr(6));
    observation o;
    words >> o.tag;
    for (std::string w; words >> w;) {
      auto eq = w.find('=');
      o.fields[w.substr(0, eq)] = eq == std::string::npos ? "" : w.substr(eq + 1);
    }
    obs.push_back(o);
  }
  return obs;
}

// JSON event lines of GROUP, in order. With --json the traced program's own
// output goes to stderr: every line of stdout must be a JSON event.
inline std::vector<observation> json_events(const std::string &out, const std::string &group) {
  std::vector<observation> obs;
  for (const std::string &line : split_lines(out)) {
    if (line.empty() || line[0] != '{') {
      ADD_FAILURE() << "not a JSON line on stdout: " << line;
      continue;
    }
    auto v = parse_json(line);
    if (!v) {
      ADD_FAILURE() << "not JSON: " << line;
      continue;
    }
    const json_value *event = v->get("event");
    const json_value *fields = v->get("fields");
    if (!event || !fields) {
      ADD_FAILURE() << "no event/fields in: " << line;
      continue;
    }
    if (event->text.rfind(group + ":", 0) != 0) continue;
    observation o;
    o.tag = event->text.substr(group.size() + 1);
    for (const auto &[k, f] : fields->members) o.fields[k] = f.scalar();
    obs.push_back(o);
  }
  return obs;
}

// The build names in one of the comma-separated lists CMake passes ("gcc_O0,gcc_O2").
inline std::vector<std::string> builds_in(const std::string &csv) {
  std::vector<std::string> out;
  std::stringstream ss(csv);
  for (std::string b; std::getline(ss, b, ',');)
    if (!b.empty()) out.push_back(b);
  return out;
}

// Skips unless we can put uprobes; gives each test its own group
// (PREFIX_<pid>_<n>) and removes whatever is left of it at the end, then
// checks that nothing is.
class UprobeGroupTest : public ::testing::Test {
 protected:
  explicit UprobeGroupTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "end-to-end uprobe tests need root";
    if (tracing_dir().empty()) GTEST_SKIP() << "no uprobe_events in tracefs (kernel without CONFIG_UPROBE_EVENTS?)";
    static int counter = 0;
    group_ = prefix_ + "_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
  }

  void TearDown() override {
    if (group_.empty()) return;
    if (!group_lines(group_).empty()) {
      run_result r = kpp({"-q", "-d", group_ + ":*"});
      EXPECT_EQ(r.status, 0) << describe(r);
    }
    std::vector<std::string> left = group_lines(group_);
    EXPECT_TRUE(left.empty()) << "left behind in uprobe_events: " << left.front();
    remove_group_directly(group_);  // the test has failed already; nothing stays
  }

  // "GROUP:EVENT=" for a spec.
  std::string ev(const std::string &event) const { return group_ + ":" + event + "="; }

  std::string prefix_;
  std::string group_;
};

}  // namespace uprobe_test
