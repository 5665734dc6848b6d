// The tool's tracefs, pointed at a scratch tree (Tracefs::use_root): a fake
// tracefs made of plain files, so the test sees every command the tool
// writes, in order, and feeds it the files it reads.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "src/kernel/notrace_refusal.h"
#include "src/probes/probe_engine.h"
#include "src/tracefs/tracefs.h"
#include "src/tracefs/tracefs_cxx.h"
#include "src/tracefs/tracefs_mount.h"

namespace kpp {
namespace {

namespace fs = std::filesystem;

class ScratchTracefs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kpp_tracefs_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "instances");
    for (const char *file : {"kprobe_events", "uprobe_events", "dynamic_events", "error_log"}) put(file, "");
    ASSERT_TRUE(Tracefs::use_root(root_.string()));
  }
  void TearDown() override {
    (void)Tracefs::use_root("");
    fs::remove_all(root_);
  }
  void put(const std::string &file, const std::string &text) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text;
  }
  std::string text_of(const std::string &file) {
    std::ifstream in(root_ / file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static TraceDefinition definition(const std::string &line) {
    auto def = parse_definition(line);
    EXPECT_TRUE(def) << line;
    return def ? *def : TraceDefinition{};
  }
  fs::path root_;
};

TEST_F(ScratchTracefs, TheToolAndLibtracefsUseTheInjectedRoot) {
  auto found = ensure_tracefs();
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, root_.string());
  EXPECT_EQ(std::string(tracefs_tracing_dir()), root_.string());
  ASSERT_TRUE(Tracefs::mounted());
  EXPECT_EQ(Tracefs::mounted()->root(), root_.string());
  auto engine = ProbeEngine::open();
  ASSERT_TRUE(engine) << engine.error().message;
  EXPECT_EQ(engine->tracing_dir(), root_.string());
}

TEST_F(ScratchTracefs, AddingProbesWritesTheirDefinitionsToTheirOwnFiles) {
  auto engine = ProbeEngine::open();
  ASSERT_TRUE(engine);
  TraceDefinition k = definition("p:kpptest/open do_sys_openat2 dfd=%di:s32");
  TraceDefinition u = definition("p:kpptest/main /bin/true:0x1040");
  ASSERT_TRUE(engine->add({k, u}));
  EXPECT_EQ(text_of("kprobe_events"), format_definition(k));
  EXPECT_EQ(text_of("uprobe_events"), format_definition(u));
  // And read back as the kernel would list them.
  auto listed = engine->list();
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].qualified_name(), "kpptest:open");
  EXPECT_EQ((*listed)[1].qualified_name(), "kpptest:main");
}

TEST_F(ScratchTracefs, AFailedAddRemovesWhatItAddedBeforeAndSaysSo) {
  auto engine = ProbeEngine::open();
  ASSERT_TRUE(engine);
  fs::remove(root_ / "uprobe_events");
  fs::create_directory(root_ / "uprobe_events");  // no file to write: the add fails there
  TraceDefinition k = definition("p:kpptest/open do_sys_openat2");
  TraceDefinition u = definition("p:kpptest/main /bin/true:0x1040");
  Status s = engine->add({k, u});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "the kernel refused kpptest:main (" + format_definition(u) + "): Is a directory");
  EXPECT_EQ(s.error().hint, "the probes this command added before it were removed again");
  // The kprobe was written, then its removal: the kernel's list is as before.
  EXPECT_EQ(text_of("kprobe_events"), format_definition(k) + "-:kpptest/open");
}

TEST_F(ScratchTracefs, ARefusedDefinitionWritesNothing) {
  auto engine = ProbeEngine::open();
  ASSERT_TRUE(engine);
  TraceDefinition k = definition("p:kpptest/open do_sys_openat2");
  k.symbol += "\n-:kpptest/other";  // a second command hidden in the first
  ASSERT_FALSE(engine->add({k}));
  EXPECT_EQ(text_of("kprobe_events"), "");
}

TEST_F(ScratchTracefs, RemovingAndEnablingWriteToTheEventsFiles) {
  put("kprobe_events", "p:kpptest/open do_sys_openat2\n");
  put("events/kpptest/open/enable", "0\n");
  auto engine = ProbeEngine::open();
  ASSERT_TRUE(engine);
  auto enabled = engine->set_enabled("kpptest:*", true);
  ASSERT_TRUE(enabled);
  EXPECT_EQ(*enabled, std::vector<std::string>{"kpptest:open"});
  EXPECT_EQ(text_of("events/kpptest/open/enable"), "1");
  auto removal = engine->remove("open");
  ASSERT_TRUE(removal);
  EXPECT_EQ(removal->removed, std::vector<std::string>{"kpptest:open"});
  EXPECT_EQ(text_of("kprobe_events"), "p:kpptest/open do_sys_openat2\n-:kpptest/open");
}

TEST_F(ScratchTracefs, TheNotraceCheckReadsTheTreesFilterList) {
  EXPECT_FALSE(TraceableFunctions::read()) << "an empty list is no list";
  put("available_filter_functions", "vfs_read\nlo_ioctl [loop]\n");
  auto traceable = TraceableFunctions::read();
  ASSERT_TRUE(traceable);
  EXPECT_TRUE(traceable->has_name("vfs_read", ""));
  EXPECT_TRUE(traceable->has_module("loop"));
  EXPECT_FALSE(traceable->has_addresses());
  put("available_filter_functions_addrs", "ffffffff81100044 vfs_read\n");
  EXPECT_TRUE(TraceableFunctions::read()->has_address_in(0xffffffff81100040, 0xffffffff81100050));
}

TEST_F(ScratchTracefs, TheGatewayReadsWritesAndLists) {
  Tracefs t(root_.string());
  EXPECT_EQ(t.read("no_such_file"), "");
  EXPECT_FALSE(t.read_whole("no_such_file"));
  put("trace_clock", "[local] global\n");
  EXPECT_EQ(t.read("trace_clock"), "[local] global\n");
  std::string text;
  bool truncated = false;
  ASSERT_TRUE(t.read_capped("trace_clock", 7, text, &truncated));
  EXPECT_EQ(text, "[local]");
  EXPECT_TRUE(truncated);
  EXPECT_EQ(t.write("trace_clock", "global"), 0);
  EXPECT_EQ(t.read("trace_clock"), "global");
  EXPECT_EQ(t.append("trace_clock", "+"), 0);
  EXPECT_EQ(t.read("trace_clock"), "global+");
  EXPECT_NE(t.append("no/such/dir", "x"), 0);
  fs::create_directories(root_ / "instances" / "b");
  fs::create_directories(root_ / "instances" / "a");
  EXPECT_EQ(t.subdirectories("instances"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.entries("instances", 1).size(), 1u);
  EXPECT_TRUE(t.exists("instances/a"));
}

}  // namespace
}  // namespace kpp
