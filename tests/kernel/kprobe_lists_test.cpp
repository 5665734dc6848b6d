// debugfs kprobes/list and kprobes/blacklist, in the kernel's own words
// (kernel/kprobes.c: report_probe() and kprobe_blacklist_seq_show()).
#include <gtest/gtest.h>

#include "src/kernel/kernel_refusals.h"
#include "src/kernel/kprobe_lists.h"

namespace kpp {
namespace {

TEST(KprobeList, FlagsAndModules) {
  auto list = parse_kprobe_list(
      "ffffffffb1b4cc50  k  vfs_read+0x0    [DISABLED][FTRACE]\n"
      "ffffffffb1b4cc50  r  vfs_read+0x0    [FTRACE]\n"
      "ffffffffc02a1230  k  lo_ioctl+0x1c  loop [GONE]\n"
      "ffffffffb1b4cd00  k  do_sys_openat2+0x4c    [OPTIMIZED]\n");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].flags, (std::vector<std::string>{"DISABLED", "FTRACE"}));
  EXPECT_EQ(list[1].type, 'r');
  EXPECT_EQ(list[2].module, "loop");
  EXPECT_EQ(list[2].offset, 0x1cu);
  EXPECT_EQ(list[3].flags, (std::vector<std::string>{"OPTIMIZED"}));

  TraceDefinition def;
  def.symbol = "loop:lo_ioctl";
  def.offset = 0x1c;
  auto status = status_of(list, def);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->flags, (std::vector<std::string>{"GONE"}));
  def.symbol = "vfs_read";
  def.offset = 0;
  def.is_return = true;
  ASSERT_TRUE(status_of(list, def));
  EXPECT_EQ(status_of(list, def)->flags, (std::vector<std::string>{"FTRACE"}));
  def.offset = 4;
  EXPECT_FALSE(status_of(list, def));
}

// Without runtime addresses (kallsyms hidden, or a BTF definition): by name.
TEST(KprobeBlacklist, RefusesListedSymbolsByNameWithoutAddresses) {
  auto blacklist = parse_kprobe_blacklist(
      "0xffffffffb3ec5070-0xffffffffb3ec5120\tnotify_die\n"
      "0xffffffffc0000000-0xffffffffc0000040\tsome_fn [mymod]\n"
      "0x0000000000000000-0x0000000000000000\texc_nmi\n");
  ASSERT_EQ(blacklist.size(), 3u);
  EXPECT_EQ(blacklist[1].module, "mymod");
  TraceDefinition ok, bad, mod, plain;
  ok.symbol = "vfs_read";
  bad.symbol = "notify_die";
  mod.symbol = "mymod:some_fn";
  plain.symbol = "some_fn";
  auto check = [&](std::vector<TraceDefinition *> defs) {
    std::vector<KernelSite> sites;
    for (TraceDefinition *d : defs) sites.push_back({d, {}});
    return check_addresses_not_blacklisted(sites, std::vector<uint64_t>(sites.size(), 0), blacklist);
  };
  EXPECT_TRUE(check({&ok}));
  Status refused = check({&ok, &bad});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("notify_die"), std::string::npos);
  EXPECT_NE(refused.error().message.find("blacklist"), std::string::npos);
  EXPECT_FALSE(check({&mod}));
  // A vmlinux symbol of the same name as a module's is not the module's.
  EXPECT_TRUE(check({&plain}));
}

}  // namespace
}  // namespace kpp
