// Where the debug files of a kernel and its modules are looked for.
#include <gtest/gtest.h>

#include "src/kernel/debug_paths.h"

namespace kpp {
namespace {

TEST(DebugPaths, VmlinuxCandidatesEndWithTheBuildIdPath) {
  auto c = vmlinux_candidates("6.1.0-57-cloud-amd64", "01d2640d3a13");
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0], "/usr/lib/debug/boot/vmlinux-6.1.0-57-cloud-amd64");
  EXPECT_EQ(c[4], "/usr/lib/debug/.build-id/01/d2640d3a13.debug");
  EXPECT_EQ(vmlinux_candidates("r", "").size(), 4u);
}

TEST(DebugPaths, ModulesFromModulesDep) {
  std::string dep =
      "kernel/drivers/md/dm-mod.ko.xz:\n"
      "kernel/drivers/block/loop.ko: kernel/lib/x.ko\n"
      "kernel/fs/ext4/ext4.ko.zst: kernel/fs/jbd2/jbd2.ko.zst\n";
  EXPECT_EQ(module_path_in_dep(dep, "loop"), "kernel/drivers/block/loop.ko");
  EXPECT_EQ(module_path_in_dep(dep, "dm_mod"), "kernel/drivers/md/dm-mod.ko.xz");
  EXPECT_EQ(module_path_in_dep(dep, "dm-mod"), "kernel/drivers/md/dm-mod.ko.xz");
  EXPECT_EQ(module_path_in_dep(dep, "jbd2"), "");
  auto c = module_debug_candidates("R", "kernel/fs/ext4/ext4.ko.zst", "abcd");
  EXPECT_EQ(c, (std::vector<std::string>{"/usr/lib/debug/lib/modules/R/kernel/fs/ext4/ext4.ko",
                                         "/usr/lib/debug/.build-id/ab/cd.debug"}));
  // An uncompressed installed module may carry its own DWARF (self-built kernels).
  auto plain = module_debug_candidates("R", "kernel/drivers/block/loop.ko", "");
  EXPECT_EQ(plain.back(), "/lib/modules/R/kernel/drivers/block/loop.ko");
}

}  // namespace
}  // namespace kpp
