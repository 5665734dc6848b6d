// Kernel sites checked against the running kernel's kallsyms and the kprobe
// blacklist by address (src/kernel/kernel_refusals.h): the KASLR shift, a
// debug file of another kernel, the re-anchoring on _text, and a blacklisted
// range reached through an offset or a _text anchor.
#include <gtest/gtest.h>

#include "src/kernel/kallsyms.h"
#include "src/kernel/kernel_refusals.h"
#include "util/strings.h"

namespace kpp {
namespace {

constexpr uint64_t kText = 0xffffffff81000000, kShift = 0x2e000000;

// A vmlinux site: `symbol` at link-time `symbol_address`, the site `offset` into it.
KernelPlacement vmlinux_site(const std::string &symbol, uint64_t symbol_address, uint64_t offset, bool on_text) {
  KernelPlacement p;
  p.symbol = symbol;
  p.symbol_address = symbol_address;
  p.address = symbol_address + offset;
  p.text_address = kText;
  p.anchor = on_text ? "_text" : symbol;
  p.anchor_address = on_text ? kText : symbol_address;
  return p;
}

// The running kernel: the same vmlinux moved by kShift, and a module with its own probes_seq_show.
Kallsyms running() {
  char text[1024];
  std::snprintf(text, sizeof text,
                "%llx T _text\n%llx T vfs_read\n%llx t probes_seq_show\n%llx t probes_seq_show\n%llx T notify_die\n"
                "ffffffffc0001000 t vfs_read\t[shadow]\n",
                (unsigned long long)(kText + kShift), (unsigned long long)(0xffffffff81200000 + kShift),
                (unsigned long long)(0xffffffff81300000 + kShift), (unsigned long long)(0xffffffff81400000 + kShift),
                (unsigned long long)(0xffffffff81500000 + kShift));
  return Kallsyms::parse(text);
}

TEST(Kallsyms, ParsesVmlinuxAndModules) {
  Kallsyms k = running();
  EXPECT_EQ(k.addresses_of("vfs_read", ""), (std::vector<uint64_t>{0xffffffff81200000 + kShift}));
  EXPECT_EQ(k.addresses_of("vfs_read", "shadow"), (std::vector<uint64_t>{0xffffffffc0001000}));
  EXPECT_EQ(k.count("probes_seq_show"), 2u);
  EXPECT_TRUE(k.has_module("shadow"));
  EXPECT_FALSE(k.has_module("loop"));
  auto named = k.at_text_offset(0x400010);
  ASSERT_TRUE(named);
  EXPECT_EQ(named->first, "probes_seq_show");
  EXPECT_EQ(named->second, 0x10u);
  EXPECT_TRUE(Kallsyms::parse("0000000000000000 T _text\n").addresses_hidden());
}

TEST(RunningKernel, TextAnchoredSiteIsPlacedOnItsCopy) {
  TraceDefinition def;
  def.symbol = "_text";
  def.offset = 0x400000;
  std::vector<KernelSite> sites{{&def, vmlinux_site("probes_seq_show", 0xffffffff81400000, 0, true)}};
  auto placed = place_on_running_kernel(sites, running());
  ASSERT_TRUE(placed) << placed.error().message;
  EXPECT_EQ((*placed)[0], 0xffffffff81400000 + kShift);
  EXPECT_EQ(def.symbol, "_text");
}

TEST(RunningKernel, NameAModuleAlsoHasIsReanchoredOnText) {
  TraceDefinition def;
  def.symbol = "vfs_read";
  def.offset = 4;
  std::vector<KernelSite> sites{{&def, vmlinux_site("vfs_read", 0xffffffff81200000, 4, false)}};
  auto placed = place_on_running_kernel(sites, running());
  ASSERT_TRUE(placed) << placed.error().message;
  EXPECT_EQ(def.symbol, "_text");
  EXPECT_EQ(def.offset, 0x200004u);
}

TEST(RunningKernel, DebugFileOfAnotherKernelIsRefused) {
  TraceDefinition def;
  def.symbol = "_text";
  // The vmlinux says the copy is at +0x380000; the running kernel has none there.
  std::vector<KernelSite> sites{{&def, vmlinux_site("probes_seq_show", 0xffffffff81380000, 0, true)}};
  auto placed = place_on_running_kernel(sites, running());
  ASSERT_FALSE(placed);
  EXPECT_NE(placed.error().message.find("kallsyms has no probes_seq_show at"), std::string::npos)
      << placed.error().message;
  // A unique name whose _text does not move with it: another build.
  TraceDefinition plain;
  plain.symbol = "notify_die";
  KernelPlacement moved = vmlinux_site("notify_die", 0xffffffff81500000, 0, false);
  moved.text_address = kText + 0x1000;
  std::vector<KernelSite> other{{&plain, moved}};
  auto refused = place_on_running_kernel(other, running());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("_text"), std::string::npos) << refused.error().message;
}

TEST(RunningKernel, BtfDefinitionOfANameHeldTwiceIsRefused) {
  TraceDefinition unique, twice;
  unique.symbol = "notify_die";
  twice.symbol = "probes_seq_show";
  std::vector<KernelSite> ok{{&unique, {}}};
  auto placed = place_on_running_kernel(ok, running());
  ASSERT_TRUE(placed);
  EXPECT_EQ((*placed)[0], 0u);
  std::vector<KernelSite> refused{{&twice, {}}};
  auto error = place_on_running_kernel(refused, running());
  ASSERT_FALSE(error);
  EXPECT_NE(error.error().message.find("'probes_seq_show' names 2 symbols"), std::string::npos)
      << error.error().message;
}

TEST(RunningKernel, BlacklistIsMatchedByAddress) {
  auto blacklist = parse_kprobe_blacklist(hex(0xffffffff81500000 + kShift) + "-" + hex(0xffffffff81500080 + kShift) +
                                          "\tnotify_die\n");
  TraceDefinition inside, after;
  inside.symbol = "notify_die";
  inside.offset = 0x1c;
  after.symbol = "notify_die";
  after.offset = 0x80;
  std::vector<KernelSite> sites{{&after, vmlinux_site("notify_die", 0xffffffff81500000, 0x80, false)},
                                {&inside, vmlinux_site("notify_die", 0xffffffff81500000, 0x1c, false)}};
  auto placed = place_on_running_kernel(sites, running());
  ASSERT_TRUE(placed) << placed.error().message;
  EXPECT_TRUE(check_addresses_not_blacklisted({sites[0]}, {(*placed)[0]}, blacklist));
  Status refused = check_addresses_not_blacklisted(sites, *placed, blacklist);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("notify_die+28"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("blacklist lists notify_die"), std::string::npos);
  // Without addresses (kallsyms hidden) the name decides.
  EXPECT_FALSE(check_addresses_not_blacklisted({sites[0]}, {0}, parse_kprobe_blacklist(
                                                                     "0x0-0x0\tnotify_die\n")));
}

}  // namespace
}  // namespace kpp
