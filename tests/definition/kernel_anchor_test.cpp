// Which symbol a kernel definition names (src/definition/kernel_anchor.h),
// on a fake symbol table shaped like a vmlinux with same-named statics: the
// kernel refuses "probes_seq_show+0" when kallsyms has two probes_seq_show.
#include <gtest/gtest.h>

#include "src/definition/kernel_anchor.h"
#include "tests/definition/fake_debug_info.h"

namespace kpp {
namespace {

testing_support::FakeDebugInfo fake_vmlinux() {
  testing_support::FakeDebugInfo debug;
  debug.markers["_text"] = 0xffffffff81000000;
  debug.symbols[0xffffffff81000000] = "_stext";
  debug.symbols[0xffffffff81200000] = "vfs_read";
  debug.symbols[0xffffffff81300000] = "probes_seq_show";  // kernel/trace/trace_kprobe.c
  debug.symbols[0xffffffff81300100] = "trace_kprobe_show";
  debug.symbols[0xffffffff81400000] = "probes_seq_show";  // kernel/trace/trace_uprobe.c
  debug.symbols[0xffffffff81400200] = "uprobe_show";
  return debug;
}

TEST(KernelAnchor, UniqueNameIsWrittenAsItself) {
  auto debug = fake_vmlinux();
  auto p = place_kernel_probe(debug, 0xffffffff81200010, "");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->anchored());
  EXPECT_EQ(p->definition_symbol(), "vfs_read");
  EXPECT_EQ(p->offset(), 0x10u);
  EXPECT_EQ(p->text_address, 0xffffffff81000000u);
}

TEST(KernelAnchor, DuplicatedNameIsAnchoredOnText) {
  auto debug = fake_vmlinux();
  // Each copy gets its own _text offset: the address minus _text's.
  for (uint64_t copy : {0xffffffff81300000ull, 0xffffffff81400000ull}) {
    auto p = place_kernel_probe(debug, copy + 4, "");
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_TRUE(p->anchored());
    EXPECT_EQ(p->definition_symbol(), "_text");
    EXPECT_EQ(p->offset(), copy + 4 - 0xffffffff81000000);
    EXPECT_EQ(p->symbol, "probes_seq_show");
    EXPECT_EQ(p->symbol_address, copy);
  }
}

TEST(KernelAnchor, DuplicatedNameWithoutTextIsRefused) {
  auto debug = fake_vmlinux();
  debug.markers.clear();
  auto p = place_kernel_probe(debug, 0xffffffff81300000, "");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("'probes_seq_show' names 2 functions"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("_text"), std::string::npos);
}

TEST(KernelAnchor, ModuleDuplicateIsAnchoredOnTheUniqueSymbolBefore) {
  testing_support::FakeDebugInfo debug;
  debug.symbols[0x1000] = "mod_init_one";
  debug.symbols[0x1100] = "show";
  debug.symbols[0x1200] = "helper";
  debug.symbols[0x1300] = "show";
  auto p = place_kernel_probe(debug, 0x1308, "mymod");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->definition_symbol(), "mymod:helper");
  EXPECT_EQ(p->offset(), 0x108u);
  EXPECT_EQ(p->symbol, "show");
  auto unique = place_kernel_probe(debug, 0x1204, "mymod");
  ASSERT_TRUE(unique);
  EXPECT_EQ(unique->definition_symbol(), "mymod:helper");
  EXPECT_EQ(unique->offset(), 4u);
}

}  // namespace
}  // namespace kpp
