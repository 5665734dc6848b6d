// The live view's Kernel pane source (src/live/kernel_histograms): our
// instances' hist triggers found and their tables read, over a tracefs tree
// laid out as the kernel's, with the files Debian's 6.1 kernel printed in the
// guest (the host kernel has no hist triggers; guest.kprobe_probe_hist runs
// the real ones).
#include "src/live/kernel_histograms.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/hist/kernel_hist_samples.h"

namespace kpp {
namespace {

using hist_samples::kExecnameHist;

namespace fs = std::filesystem;

const char *kTriggerHeader = "# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event "
                             "enable_hist disable_hist hist\n";

class FakeTracefs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kpp_kernel_hists_" + std::to_string(getpid()));
    fs::remove_all(root_);
    write("dynamic_events",
          "p:probe/vfs_read vfs_read count=%dx:u64\nr4:probe/vfs_read__return vfs_read arg1=$retval:s64\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string &rel, const std::string &text) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // An instance's event with `trigger` listed (and `hist` as its table),
  // its fields as a kprobe's format file lists them.
  void event(const std::string &instance, const std::string &event, const std::string &trigger,
             const std::string &hist, const std::string &fields = "\tfield:u64 count;\toffset:16;\tsize:8;\tsigned:0;\n") {
    std::string dir = "instances/" + instance + "/events/" + event + "/";
    write(dir + "trigger", std::string(kTriggerHeader) + trigger + "\n");
    write(dir + "hist", hist);
    write(dir + "format", "name: x\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" +
                              fields);
  }

  fs::path root_;
};

TEST_F(FakeTracefs, OurInstancesHistTriggersAreReadAsHistPrintsThem) {
  event("kprobe-probe-4242", "probe/vfs_read",
        "hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount.descending:size=2048 [active]", kExecnameHist);
  // --latency's entry timestamp is plumbing, not a table to show.
  event("kprobe-probe-4242", "probe/vfs_read__return",
        "hist:keys=common_pid:vals=hitcount:kpp_ts0=common_timestamp.usecs:sort=hitcount:size=2048 [active]",
        kExecnameHist);
  // Another tool's instance is not ours to read.
  event("someone-else", "probe/vfs_read",
        "hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount.descending:size=2048 [active]", kExecnameHist);
  auto hists = KernelHistograms(Tracefs(root_.string())).read();
  ASSERT_EQ(hists.size(), 1u);
  const tui::KernelHistogram &h = hists[0];
  EXPECT_EQ(h.event, "probe:vfs_read");
  EXPECT_EQ(h.instance, "kprobe-probe-4242");
  EXPECT_EQ(h.keys, "comm");
  EXPECT_EQ(h.hits, 6u);
  ASSERT_EQ(h.table.size(), 3u);  // header, cat, dd
  EXPECT_TRUE(std::regex_match(h.table[0], std::regex("comm +hits +sum\\(count\\)"))) << h.table[0];
  // The two cats are one row of 2 + 1 hits and 131072 + 65536 bytes; dd's 3 reads of 7.
  EXPECT_TRUE(std::regex_match(h.table[1], std::regex("cat +3 +196608"))) << h.table[1];
  EXPECT_TRUE(std::regex_match(h.table[2], std::regex("dd +3 +21"))) << h.table[2];
}

TEST_F(FakeTracefs, NothingRunningIsNothingShown) {
  EXPECT_TRUE(KernelHistograms(Tracefs(root_.string())).read().empty());
  // A trigger whose hist file is gone (the hist ended between two reads).
  write("instances/kprobe-probe-7/events/probe/vfs_read/trigger",
        "hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending:size=2048 [active]\n");
  EXPECT_TRUE(KernelHistograms(Tracefs(root_.string())).read().empty());
  EXPECT_TRUE(KernelHistograms(Tracefs((root_ / "no-such-dir").string())).read().empty());
}

TEST_F(FakeTracefs, ATableTheKernelPrintsOtherwiseIsSaidNotGuessed) {
  event("kprobe-probe-4242", "probe/vfs_read",
        "hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount.descending:size=2048 [active]",
        "{ something: else } hitcount: x\n");
  auto hists = KernelHistograms(Tracefs(root_.string())).read();
  ASSERT_EQ(hists.size(), 1u);
  ASSERT_EQ(hists[0].table.size(), 1u);
  EXPECT_EQ(hists[0].table[0].rfind("(cannot read the table: ", 0), 0u) << hists[0].table[0];
}

// A probed string that forges a row: the pane reads the table as hist does
// (the kernel's Entries say one row) and says why it shows none.
TEST_F(FakeTracefs, AStringKeyForgingARowIsNotShown) {
  std::string forged = std::string(50, 'x') + " } hitcount:          1\n{ name: FORGED" + std::string(44, ' ');
  std::string hist = "# event histogram\n#\n# trigger info: hist:keys=name:vals=hitcount:sort=hitcount.descending:size=8192 "
                     "[active]\n#\n\n{ name: " + forged + " } hitcount:          5\n\nTotals:\n    Hits: 5\n    Entries: 1\n"
                     "    Dropped: 0\n";
  event("kprobe-probe-4242", "probe/vfs_read", "hist:keys=name:vals=hitcount:sort=hitcount.descending:size=8192 [active]",
        hist, "\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:1;\n");
  auto hists = KernelHistograms(Tracefs(root_.string())).read();
  ASSERT_EQ(hists.size(), 1u);
  ASSERT_EQ(hists[0].table.size(), 1u);
  EXPECT_NE(hists[0].table[0].find("does not add up"), std::string::npos) << hists[0].table[0];
}

}  // namespace
}  // namespace kpp
