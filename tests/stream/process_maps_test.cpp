// /proc/PID/maps as the stack symbolizer and the event sites read it: only
// executable mappings of files, hostile lines skipped.
#include <gtest/gtest.h>

#include "src/stream/process_maps.h"

namespace kpp {
namespace {

TEST(ProcessMaps, ExecutableFileMappingsOnly) {
  std::string text =
      "55d0c3a00000-55d0c3a01000 r--p 00000000 08:01 1234 /usr/bin/prog\n"
      "55d0c3a01000-55d0c3a02000 r-xp 00001000 08:01 1234 /usr/bin/prog\n"
      "7f3e2a400000-7f3e2a428000 r-xp 00028000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7ffc10000000-7ffc10021000 rw-p 00000000 00:00 0 [stack]\n"
      "7ffc10100000-7ffc10102000 r-xp 00000000 00:00 0 [vdso]\n"
      "7f0000000000-7f0000001000 r-xp 00000000 00:00 0\n"
      "garbage line\n"
      "20-10 r-xp 00000000 08:01 5 /backwards\n"
      "30-40 r-xp zz 08:01 5 /bad/offset\n"
      "7f1000000000-7f1000001000 r-xp 00000000 08:01 7 /tmp/with space (deleted)\n";
  std::vector<FileMapping> maps = parse_process_maps(text);
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(maps[0].path, "/usr/bin/prog");
  EXPECT_EQ(maps[0].start, 0x55d0c3a01000u);
  EXPECT_EQ(maps[0].pgoff, 0x1000u);
  EXPECT_EQ(maps[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(maps[2].path, "/tmp/with space (deleted)");
  const FileMapping *m = mapping_of(maps, 0x7f3e2a423d90);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(mapping_of(maps, 0x55d0c3a02000), nullptr);  // end is exclusive
}

}  // namespace
}  // namespace kpp
