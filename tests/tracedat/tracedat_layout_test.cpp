// Kernel-free checks of the v6 layout: magic, version, sizes, option block
// and page-aligned CPU blocks.
#include <gtest/gtest.h>

#include <cstring>

#include "src/tracedat/tracedat_writer.h"

namespace kpp {
namespace {

template <class T>
T get(const std::string &s, size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

TEST(TraceDatLayout, V6HeadStartsWithMagicAndPlacesCpuBlocksOnPages) {
  tracedat::Metadata m;
  m.header_page = "hp";
  m.header_event = "he";
  m.ftrace_formats = {{"print", "fmt1"}};
  m.systems = {{"kpptest", {{"hit", "fmt2"}}}};
  m.kallsyms = "ks";
  m.printk_formats = "";
  m.cmdlines = "1 init\n";
  m.trace_clock = "local [mono]\n";
  m.uname = "Linux h 6 #1 x86_64";
  std::vector<uint64_t> offsets;
  std::string h = build_tracedat_v6_head(m, 4096, {8192, 0}, offsets);
  EXPECT_EQ(h.compare(0, 10, std::string("\x17\x08\x44tracing", 10)), 0);
  EXPECT_EQ(h.compare(10, 2, std::string("6\0", 2)), 0);
  EXPECT_EQ(h[12], 0);                      // little endian
  EXPECT_EQ(h[13], 8);                      // sizeof(long)
  EXPECT_EQ(get<uint32_t>(h, 14), 4096u);   // page size
  EXPECT_EQ(h.compare(18, 12, std::string("header_page\0", 12)), 0);
  EXPECT_EQ(get<uint64_t>(h, 30), 2u);
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0] % 4096, 0u);
  EXPECT_GE(offsets[0], h.size());
  EXPECT_EQ(offsets[1], offsets[0] + 8192);
  // The table at the end holds exactly those offsets and sizes.
  size_t table = h.size() - 32;
  EXPECT_EQ(h.compare(table - 10, 10, std::string("flyrecord\0", 10)), 0);
  EXPECT_EQ(get<uint64_t>(h, table), offsets[0]);
  EXPECT_EQ(get<uint64_t>(h, table + 8), 8192u);
  EXPECT_EQ(get<uint64_t>(h, table + 16), offsets[1]);
  EXPECT_EQ(get<uint64_t>(h, table + 24), 0u);
  EXPECT_NE(h.find(std::string("options  \0", 10)), std::string::npos);
}

TEST(TraceDatLayout, OnlyVersion6IsOfferedAndBadPathsFailEarly) {
  auto v7 = TraceDatWriter::create("/tmp/kpp-unused.dat", TraceDatOptions{true, 7});
  ASSERT_FALSE(v7);
  EXPECT_NE(v7.error().message.find("version 7"), std::string::npos);
  auto bad = TraceDatWriter::create("/nonexistent-dir/x.dat");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("cannot create /nonexistent-dir/x.dat"), std::string::npos);
}

}  // namespace
}  // namespace kpp
