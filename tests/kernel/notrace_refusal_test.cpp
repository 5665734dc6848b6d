// The notrace refusal (src/kernel/notrace_refusal.h) decided from fake
// inputs: a kernel configuration, available_filter_functions with and without
// the addresses of available_filter_functions_addrs, and kallsyms.
#include <gtest/gtest.h>

#include "src/kernel/notrace_refusal.h"

namespace kpp {
namespace {

TEST(NotraceConfig, OnlyAnUnsetOptionRefuses) {
  EXPECT_TRUE(config_refuses_notrace("CONFIG_KPROBE_EVENTS=y\n# CONFIG_KPROBE_EVENTS_ON_NOTRACE is not set\n"));
  EXPECT_FALSE(config_refuses_notrace("CONFIG_KPROBE_EVENTS=y\nCONFIG_KPROBE_EVENTS_ON_NOTRACE=y\n"));
  // A kernel before the option (4.19) has no check.
  EXPECT_FALSE(config_refuses_notrace("CONFIG_KPROBE_EVENTS=y\n"));
  EXPECT_FALSE(config_refuses_notrace("# CONFIG_KPROBE_EVENTS_ON_NOTRACE_X is not set\n"));
}

// The filter list of a kernel where vfs_read, show (in the vmlinux and in
// module shadow) and cpu_stop.constprop.0's base name are traceable;
// probes_seq_show, process_fetch_insn.isra.0 and rb_move_tail are not.
const char *kFunctions = "vfs_read\nshow\nshow [shadow]\ncpu_stop\nlo_ioctl [loop]\n";

TEST(NotraceDecision, ByName) {
  TraceableFunctions t = TraceableFunctions::parse(kFunctions, "");
  EXPECT_FALSE(t.has_addresses());
  EXPECT_FALSE(refused_as_notrace("vfs_read", "", 0, t, nullptr));
  EXPECT_TRUE(refused_as_notrace("probes_seq_show", "", 0, t, nullptr));
  EXPECT_FALSE(refused_as_notrace("lo_ioctl", "loop", 0, t, nullptr));
  EXPECT_TRUE(refused_as_notrace("lo_ioctl", "", 0, t, nullptr));  // the module's, not the vmlinux's
  // Suffixed names are retried without the suffix, as the kernel does.
  EXPECT_FALSE(refused_as_notrace("cpu_stop.constprop.0", "", 0, t, nullptr));
  EXPECT_TRUE(refused_as_notrace("process_fetch_insn.isra.0", "", 0, t, nullptr));
}

// kallsyms: show twice in the vmlinux (the first traceable, at +4 after its
// endbr64, the second not), cpu_stop and its .constprop.0 copy.
const char *kKallsyms =
    "ffffffff81000000 T _text\n"
    "ffffffff81100000 t show\n"
    "ffffffff81100040 T vfs_read\n"
    "ffffffff81100080 t show\n"
    "ffffffff811000c0 t cpu_stop\n"
    "ffffffff81100100 t cpu_stop.constprop.0\n"
    "ffffffff81100140 t fetch.isra.0\n"
    "ffffffff81100180 T etext\n";
const char *kAddresses = "ffffffff81100004 show\nffffffff81100044 vfs_read\nffffffff811000c4 cpu_stop\n";

TEST(NotraceDecision, ByAddressTellsDuplicatesApart) {
  TraceableFunctions t = TraceableFunctions::parse(kFunctions, kAddresses);
  Kallsyms k = Kallsyms::parse(kKallsyms);
  ASSERT_TRUE(t.has_addresses());
  EXPECT_FALSE(refused_as_notrace("show", "", 0xffffffff81100010, t, &k));
  // The name is listed, but not for this copy.
  EXPECT_TRUE(refused_as_notrace("show", "", 0xffffffff81100090, t, &k));
  EXPECT_FALSE(refused_as_notrace("vfs_read", "", 0xffffffff81100040, t, &k));
  EXPECT_FALSE(refused_as_notrace("cpu_stop.constprop.0", "", 0xffffffff81100108, t, &k));
  // fetch.isra.0's base name 'fetch' is not a kernel symbol: refused.
  EXPECT_TRUE(refused_as_notrace("fetch.isra.0", "", 0xffffffff81100140, t, &k));
  // Address unknown (from BTF): by name.
  EXPECT_FALSE(refused_as_notrace("show", "", 0, t, &k));
}

TEST(NotraceDecision, ZeroAddressesAreIgnored) {
  // A reader who may not see addresses gets zeros: match by name.
  TraceableFunctions t = TraceableFunctions::parse(kFunctions, "0000000000000000 show\n");
  EXPECT_FALSE(t.has_addresses());
}

TEST(NotraceCheck, NamesTheFunctionAndTheReason) {
  TraceableFunctions t = TraceableFunctions::parse(kFunctions, kAddresses);
  Kallsyms k = Kallsyms::parse(kKallsyms);
  TraceDefinition good, bad, btf, unloaded;
  good.group = bad.group = btf.group = unloaded.group = "probe";
  good.event = "vfs_read";
  bad.event = "show";
  btf.event = "probes_seq_show";
  btf.symbol = "probes_seq_show";
  unloaded.event = "sr_open";
  KernelPlacement pg, pb, pu;
  pg.symbol = "vfs_read";
  pb.symbol = "show";
  pu.symbol = "sr_open";
  pu.module = "sr_mod";
  std::vector<KernelSite> sites{{&good, pg}, {&unloaded, pu}};
  EXPECT_TRUE(check_sites_traceable(sites, {0xffffffff81100040, 0}, t, &k));

  sites.push_back({&bad, pb});
  Status s = check_sites_traceable(sites, {0xffffffff81100040, 0, 0xffffffff81100090}, t, &k);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("cannot probe show (0xffffffff81100090) for probe:show: show is a notrace "
                                   "function"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("CONFIG_KPROBE_EVENTS_ON_NOTRACE"), std::string::npos);
  EXPECT_NE(s.error().hint.find("probe its caller"), std::string::npos);

  std::vector<KernelSite> from_btf{{&btf, KernelPlacement{}}};
  Status b = check_sites_traceable(from_btf, {0}, t, &k);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("cannot probe probes_seq_show for probe:probes_seq_show"), std::string::npos)
      << b.error().message;
}

TEST(NotraceCheck, KernelRefusalGetsTheLikelyReason) {
  TraceableFunctions t = TraceableFunctions::parse(kFunctions, "");
  TraceDefinition good, bad;
  good.group = bad.group = "probe";
  good.event = "vfs_read";
  bad.event = "pss";
  KernelPlacement pg, pb;
  pg.symbol = "vfs_read";
  pb.symbol = "probes_seq_show";
  std::vector<KernelSite> sites{{&good, pg}, {&bad, pb}};
  Error refused("the kernel refused probe:pss (p:probe/pss _text+123): Failed to register probe event");
  Error e = explain_failed_registration(refused, sites, t);
  EXPECT_NE(e.hint.find("likely because probes_seq_show is a notrace function"), std::string::npos) << e.hint;
  // Another reason, or a traceable function: left as the kernel said it.
  Error other("the kernel refused probe:pss (p:probe/pss _text+123): Invalid argument");
  EXPECT_TRUE(explain_failed_registration(other, sites, t).hint.empty());
  Error traceable("the kernel refused probe:vfs_read (p:probe/vfs_read vfs_read): Failed to register probe event");
  EXPECT_TRUE(explain_failed_registration(traceable, sites, t).hint.empty());
}

}  // namespace
}  // namespace kpp
