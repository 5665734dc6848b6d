// Kprobe definitions turned into fprobes, as Debian's 6.12 kernel takes them
// (checked in its guest: "f:kpp/c vfs_read c=$arg3:u64" and
// "f:kpp/e vfs_read%return c=$arg3:u64" accepted and fired with dd's count 7;
// "count=%dx:u64" and "+64(%di)" refused at the '%').
#include "src/definition/fprobe.h"

#include <elf.h>
#include <gtest/gtest.h>

namespace kpp {
namespace {

const arch::Registers &x86() { return *arch::for_machine(EM_X86_64); }

TraceDefinition kprobe(const std::string &line) { return *parse_definition(line); }

TEST(Fprobe, ArgumentRegistersBecomeArgN) {
  auto f = to_fprobe(kprobe("p:probe/vfs_read vfs_read+0 count=%dx:u64 pos=+0(%cx):s64"), x86());
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(format_definition(*f), "f:probe/vfs_read vfs_read count=$arg3:u64 pos=+0($arg4):s64");
}

TEST(Fprobe, ReturnKeepsRetvalAndDropsMaxactive) {
  auto f = to_fprobe(kprobe("r10:probe/vfs_read__return vfs_read+0 arg1=$retval:s64"), x86());
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(format_definition(*f), "f:probe/vfs_read__return vfs_read%return arg1=$retval:s64");
}

TEST(Fprobe, ReadBackFromDynamicEvents) {
  auto d = parse_definition("f:kpp/e vfs_read%return c=$arg3:u64");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->fprobe);
  EXPECT_TRUE(d->is_return);
  EXPECT_EQ(d->symbol, "vfs_read");
  EXPECT_EQ(format_definition(*d), "f:kpp/e vfs_read%return c=$arg3:u64");
}

TEST(Fprobe, RefusesWhatAnFprobeCannotRead) {
  auto line = to_fprobe(kprobe("p:probe/vfs_read_L5 vfs_read+45 count=%dx:u64"), x86());
  ASSERT_FALSE(line);
  EXPECT_NE(line.error().message.find("not at vfs_read+45"), std::string::npos);
  auto other = to_fprobe(kprobe("p:probe/f f+0 x=%bx:u64"), x86());
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("%bx, which holds no argument"), std::string::npos);
  auto ret = to_fprobe(kprobe("r:probe/f__return f+0 x=%di:u64"), x86());
  ASSERT_FALSE(ret);
  auto uprobe = to_fprobe(kprobe("p:probe_prog/walk /bin/prog:0x1139"), x86());
  ASSERT_FALSE(uprobe);
}

TEST(Fprobe, KernelSupportFromTheReadme) {
  EXPECT_TRUE(kernel_has_fprobe_events("\t  f[:[<group>/][<event>]] <func-name>[%return] [<args>]\n"));
  EXPECT_FALSE(kernel_has_fprobe_events("\t  p[:[<group>/][<event>]] <place> [<args>]\n"));
}

}  // namespace
}  // namespace kpp
