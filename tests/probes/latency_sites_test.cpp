// Latency pairs from the definitions (src/probes/latency_sites.h), the one
// rule the live view and export share, on a real -O0 program: fade:2 and
// fade%return pair, whatever the events are called; a later probe of the
// same function and a probe of another function do not.
#include <gtest/gtest.h>

#include <unistd.h>

#include "dwarf/debug_info.h"
#include "dwarf/opened_files.h"
#include "src/probes/latency_sites.h"
#include "util/goroutine_field.h"

namespace kpp {
namespace {

TraceDefinition uprobe(const std::string &path, uint64_t offset, bool is_return, const std::string &event) {
  TraceDefinition d;
  d.kind = TraceDefinition::Kind::Uprobe;
  d.path = path;
  d.offset = offset;
  d.is_return = is_return;
  d.group = "g";
  d.event = event;
  return d;
}

class LatencySites : public ::testing::Test {
 protected:
  void SetUp() override {
    auto info = dwarf::DebugInfo::open(path_);
    ASSERT_TRUE(info) << info.error().message;
    debug_ = std::move(*info);
  }
  uint64_t offset_of(uint64_t address) {
    auto o = debug_->elf().file_offset(address);
    EXPECT_TRUE(o);
    return o ? *o : 0;
  }
  // The file offset where line `rel` of `fn` (perf's relative line) begins.
  uint64_t line_offset(const dwarf::Function &fn, int rel) {
    auto sites = debug_->line_sites_in(fn, fn.decl_line + rel);
    EXPECT_FALSE(sites.empty()) << fn.name << ":" << rel;
    return sites.empty() ? 0 : offset_of(sites.front().address);
  }
  dwarf::Function function(const std::string &name) {
    auto fns = debug_->find_functions(name, "", dwarf::InlineCopies::Exclude);
    EXPECT_EQ(fns.size(), 1u) << name;
    return fns.empty() ? dwarf::Function{} : fns.front();
  }

  // fade's probes: a later line, its line 2 (after the prologue), its
  // return; and main's entry. Named as no name rule would pair them.
  struct FadeProbes {
    TraceDefinition later, entry, ret, main_entry;
  };
  FadeProbes fade_probes() {
    dwarf::Function fade = function("fade"), main_fn = function("main");
    return {uprobe(path_, line_offset(fade, 4), false, "fade_L4"), uprobe(path_, line_offset(fade, 2), false, "add"),
            uprobe(path_, offset_of(fade.entry), true, "a1"),
            uprobe(path_, offset_of(debug_->probe_entry(main_fn)), false, "main")};
  }

  std::string path_ = KPP_LATENCY_FIXTURE;
  std::unique_ptr<dwarf::DebugInfo> debug_;
  dwarf::OpenedFiles files;  // what latency_sites() reads the probed binaries through
};

TEST_F(LatencySites, AnEntryAfterThePrologueAndTheReturnPair) {
  auto [later, entry, ret, other] = fade_probes();
  ASSERT_NE(entry.offset, ret.offset) << "fade:2 should sit after the prologue";
  std::vector<LatencySite> sites = latency_sites({&later, &entry, &ret, &other}, files);
  EXPECT_FALSE(sites[1].key.empty());
  EXPECT_EQ(sites[1].key, sites[2].key) << "entry and return of fade";
  EXPECT_FALSE(sites[1].is_return);
  EXPECT_TRUE(sites[2].is_return);
  EXPECT_TRUE(sites[0].key.empty()) << "a later probe of fade is no entry";
  EXPECT_TRUE(sites[3].key.empty()) << "main has no return probe";
}

TEST_F(LatencySites, ExportPairsEachReturnWithItsFunctionsEntry) {
  auto [later, entry, ret, main_entry] = fade_probes();
  TraceDefinition ret_elsewhere = ret;  // the same return probe in another group pairs too
  ret_elsewhere.group = "h";
  TraceDefinition fade_other_binary = uprobe("/nonexistent/prog", ret.offset, true, "fade__return");
  auto pairs = latency_pairs({&later, &entry, &ret, &main_entry, &ret_elsewhere, &fade_other_binary}, files);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].entry, 1u);
  EXPECT_EQ(pairs[0].ret, 2u);
  EXPECT_EQ(pairs[1].entry, 1u);
  EXPECT_EQ(pairs[1].ret, 4u);
}

TEST_F(LatencySites, ReturnsWithoutAnEntryProbeMakeNoPair) {
  dwarf::Function fade = function("fade");
  TraceDefinition ret = uprobe(path_, offset_of(fade.entry), true, "fade__return");
  EXPECT_TRUE(latency_pairs({&ret}, files).empty());
}


// A Go function's FUNC%return is probes on its return instructions (p:, not
// r:) carrying the goroutine: they are its returns, and pair with its entry
// (tests/lang/go/deep.go's main.Deep, Go's optimized build).
TEST(LatencySitesGo, ReturnInstructionProbesPairWithTheEntry) {
  const std::string path = KPP_GO_DEEP_FIXTURE;
  if (access(path.c_str(), R_OK) != 0) GTEST_SKIP() << "no " << path << " (golang-go missing)";
  auto debug = dwarf::DebugInfo::open(path);
  ASSERT_TRUE(debug) << debug.error().message;
  auto fns = (*debug)->find_functions("main.Deep", "", dwarf::InlineCopies::Exclude);
  ASSERT_EQ(fns.size(), 1u);
  auto returns = (*debug)->return_instructions(fns.front());
  if (!returns && returns.error().message.find("without an instruction decoder") != std::string::npos)
    GTEST_SKIP() << returns.error().message;
  ASSERT_TRUE(returns) << returns.error().message;
  ASSERT_FALSE(returns->empty());
  auto with_goroutine = [](TraceDefinition d) {
    d.args.push_back(FetchArg{goroutine_field, goroutine_fetch_x86_64, "x64"});
    return d;
  };
  TraceDefinition entry = with_goroutine(uprobe(path, *(*debug)->elf().file_offset((*debug)->probe_entry(fns.front())), false, "e"));
  TraceDefinition ret = with_goroutine(uprobe(path, *(*debug)->elf().file_offset(returns->front()), false, "r"));
  TraceDefinition line = uprobe(path, *(*debug)->elf().file_offset(returns->front()), false, "l");  // no goroutine: a plain probe
  dwarf::OpenedFiles files;
  std::vector<LatencySite> sites = latency_sites({&entry, &ret, &line}, files);
  EXPECT_FALSE(sites[0].key.empty());
  EXPECT_EQ(sites[0].key, sites[1].key);
  EXPECT_FALSE(sites[0].is_return);
  EXPECT_TRUE(sites[1].is_return);
  EXPECT_FALSE(sites[2].is_return) << "a probe of our own on a ret without the goroutine field is no return probe";
  auto pairs = latency_pairs({&entry, &ret}, files);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].entry, 0u);
  EXPECT_EQ(pairs[0].ret, 1u);
}

}  // namespace
}  // namespace kpp
