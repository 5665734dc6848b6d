// Test helpers shared by tests/stream and tests/tracedat: a uprobe on the
// fixture's kpp_fixture_hit() created through libtracefs (removed again in
// the destructor), the fixture's own printed truth, and tracefs checks.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/stream/event_sink.h"

struct tracefs_dynevent;

namespace kpp::test {

// File offset of `symbol` in ELF file `path` (the uprobe address), or 0.
uint64_t elf_symbol_file_offset(const std::string &path, const std::string &symbol);

// One call of kpp_fixture_hit as the fixture printed it.
struct Hit {
  long i = 0;
  unsigned long sq = 0;
  std::string name;
  unsigned long tag = 0;
  bool operator==(const Hit &) const = default;
};
// The fixture probe's fields of a decoded event.
Hit hit_of(const Event &e);

// Keeps a copy of every event and every lost report.
class CollectSink : public EventSink {
 public:
  Status on_event(const Event &e) override {
    events.push_back(e);
    return Ok{};
  }
  void on_lost(int cpu, int64_t count) override { lost.emplace_back(cpu, count); }
  std::vector<Event> events;
  std::vector<std::pair<int, int64_t>> lost;
};

// Parses the fixture's "hit i=.. sq=.. name=.. tag=0x.." lines.
std::vector<Hit> parse_fixture_output(const std::string &text);

// A uprobe group:hit on the fixture with args i:s64 sq:u64 name:string tag:x64.
class FixtureUprobe {
 public:
  // `area` makes the group kpptest_<area>_<pid>.
  FixtureUprobe(const std::string &fixture_path, const std::string &area);
  ~FixtureUprobe();
  FixtureUprobe(const FixtureUprobe &) = delete;
  FixtureUprobe &operator=(const FixtureUprobe &) = delete;
  bool ok() const { return ok_; }
  const std::string &error() const { return error_; }
  const std::string &group() const { return group_; }
  std::string pattern() const { return group_ + ":*"; }

 private:
  tracefs_dynevent *ev_ = nullptr;
  std::string group_;
  bool ok_ = false;
  std::string error_;
};

std::string read_file(const std::string &path);
// Names of the tracefs instances that exist now.
std::vector<std::string> tracefs_instance_names();
// Contents of the top-level events/<group>/<event>/enable file.
std::string top_level_enable(const std::string &group, const std::string &event);
// Why the real-kernel tests cannot run here, or empty.
std::string kernel_skip_reason();

// Path of the fixture program (set by the build as a compile definition).
std::string fixture_path();

}  // namespace kpp::test
