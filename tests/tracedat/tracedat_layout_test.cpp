// Kernel-free checks of the layouts: v6 magic, version, sizes, option block
// and page-aligned CPU blocks; v7 sections, options and compressed chunks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>

#include "src/tracedat/tracedat_compress.h"
#include "src/tracedat/tracedat_layout.h"
#include "src/tracedat/tracedat_v7.h"
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
  // The table holds exactly those offsets and sizes; the trace clock ends the
  // head (8-byte size and text, where trace-cmd reads a v6 file's clock).
  const std::string clock = "local [mono]\n";
  ASSERT_GT(h.size(), 40 + clock.size());
  EXPECT_EQ(get<uint64_t>(h, h.size() - clock.size() - 8), clock.size());
  EXPECT_EQ(h.substr(h.size() - clock.size()), clock);
  size_t table = h.size() - clock.size() - 8 - 32;
  EXPECT_EQ(h.compare(table - 10, 10, std::string("flyrecord\0", 10)), 0);
  EXPECT_EQ(get<uint64_t>(h, table), offsets[0]);
  EXPECT_EQ(get<uint64_t>(h, table + 8), 8192u);
  EXPECT_EQ(get<uint64_t>(h, table + 16), offsets[1]);
  EXPECT_EQ(get<uint64_t>(h, table + 24), 0u);
  EXPECT_NE(h.find(std::string("options  \0", 10)), std::string::npos);
}

TEST(TraceDatLayout, VersionsAndCompressionsAreCheckedAndBadPathsFailEarly) {
  auto v5 = TraceDatWriter::create("/tmp/kpp-unused.dat", TraceDatOptions{true, 5, ""});
  ASSERT_FALSE(v5);
  EXPECT_NE(v5.error().message.find("version 5"), std::string::npos);
  auto v6z = TraceDatWriter::create("/tmp/kpp-unused.dat", TraceDatOptions{true, 6, "zstd"});
  ASSERT_FALSE(v6z);
  EXPECT_NE(v6z.error().hint.find("--file-version 7"), std::string::npos);
  auto lz4 = TraceDatWriter::create("/tmp/kpp-unused.dat", TraceDatOptions{true, 7, "lz4"});
  ASSERT_FALSE(lz4);
  EXPECT_NE(lz4.error().message.find("lz4"), std::string::npos);
  auto bad = TraceDatWriter::create("/nonexistent-dir/x.dat");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("cannot create '/nonexistent-dir/x.dat'"), std::string::npos) << bad.error().message;
  std::remove("/tmp/kpp-unused.dat");
}

// A zlib v7 file taken apart by hand (this machine's trace-cmd cannot read
// zlib): every option points at a section of its id whose body uncompresses
// to the metadata given, and each CPU's chunks uncompress to its pages.
TEST(TraceDatLayout, V7ZlibSectionsAndChunksUncompressToWhatWasGiven) {
  using namespace tracedat;
  Metadata m;
  m.header_page = "hp";
  m.header_event = "he";
  m.ftrace_formats = {{"print", "fmt1"}};
  m.systems = {{"kpptest", {{"hit", "fmt2"}}}};
  m.kallsyms = std::string(10000, 'k');
  m.cmdlines = "1 init\n";
  m.trace_clock = "local [mono]\n";
  const int page = 4096;
  // CPU 0: 20 pages (two chunks), CPU 1: none.
  std::string pages0;
  for (int k = 0; k < 20 * page; ++k) pages0 += static_cast<char>((k * 7) % 251);
  FILE *cpu0 = std::tmpfile(), *cpu1 = std::tmpfile(), *out = std::tmpfile();
  ASSERT_TRUE(cpu0 && cpu1 && out);
  ASSERT_EQ(std::fwrite(pages0.data(), 1, pages0.size(), cpu0), pages0.size());
  std::fflush(cpu0);
  Status st = write_v7(fileno(out), "test", m, page, {fileno(cpu0), fileno(cpu1)}, {pages0.size(), 0}, Compression::Zlib);
  ASSERT_TRUE(st) << st.error().message;
  std::fseek(out, 0, SEEK_END);
  std::string f(static_cast<size_t>(std::ftell(out)), '\0');
  std::rewind(out);
  ASSERT_EQ(std::fread(f.data(), 1, f.size(), out), f.size());
  for (FILE *x : {cpu0, cpu1, out}) std::fclose(x);

  EXPECT_EQ(f.compare(0, 12, std::string("\x17\x08\x44tracing7\0", 12)), 0);
  size_t at = 18;
  EXPECT_EQ(f.substr(at, 5), std::string("zlib\0", 5));
  at = f.find('\0', at + 5) + 1;  // past the version string
  uint64_t options = get<uint64_t>(f, at);
  ASSERT_LT(options + 16, f.size());
  EXPECT_EQ(get<uint16_t>(f, options), 0);  // an options section
  const uint64_t end = options + 16 + get<uint64_t>(f, options + 8);
  std::map<uint16_t, std::string> expected = {
      {16, header_info_body(m)}, {17, ftrace_formats_body(m)}, {18, event_formats_body(m)},
      {19, kallsyms_body(m)}, {20, printk_body(m)}, {21, cmdlines_body(m)}};
  int sections = 0, buffers = 0;
  for (uint64_t o = options + 16; o < end;) {
    uint16_t id = get<uint16_t>(f, o);
    uint32_t size = get<uint32_t>(f, o + 2);
    std::string data = f.substr(o + 6, size);
    o += 6 + size;
    if (expected.count(id)) {
      uint64_t s = get<uint64_t>(data, 0);
      ASSERT_EQ(get<uint16_t>(f, s), id);
      EXPECT_EQ(get<uint16_t>(f, s + 2), 1) << "section " << id << " not flagged compressed";
      uint32_t csize = get<uint32_t>(f, s + 16), usize = get<uint32_t>(f, s + 20);
      auto body = uncompress_block(Compression::Zlib, std::string_view(f).substr(s + 24, csize), usize);
      ASSERT_TRUE(body) << body.error().message;
      EXPECT_EQ(*body, expected[id]) << "section " << id;
      ++sections;
    } else if (id == kOptionBuffer) {
      ++buffers;
      uint64_t s = get<uint64_t>(data, 0);
      EXPECT_EQ(get<uint16_t>(f, s), kOptionBuffer);
      EXPECT_EQ(data.substr(8, 6), std::string("\0mono\0", 6));  // top instance, its clock
      EXPECT_EQ(get<uint32_t>(data, 14), static_cast<uint32_t>(page));
      ASSERT_EQ(get<uint32_t>(data, 18), 2u);
      uint64_t off0 = get<uint64_t>(data, 26), off1 = get<uint64_t>(data, 46);
      EXPECT_EQ(off0 % page, 0u);
      EXPECT_EQ(get<uint32_t>(f, off1), 0u) << "cpu1 has no chunks";
      ASSERT_EQ(get<uint32_t>(f, off0), 2u) << "20 pages make two chunks";
      std::string pages;
      for (uint64_t c = off0 + 4, k = 0; k < 2; ++k) {
        uint32_t csize = get<uint32_t>(f, c), usize = get<uint32_t>(f, c + 4);
        EXPECT_EQ(usize % page, 0u);
        auto chunk = uncompress_block(Compression::Zlib, std::string_view(f).substr(c + 8, csize), usize);
        ASSERT_TRUE(chunk) << chunk.error().message;
        pages += *chunk;
        c += 8 + csize;
      }
      EXPECT_TRUE(pages == pages0) << "cpu0's pages changed";
    }
  }
  EXPECT_EQ(sections, 6);
  EXPECT_EQ(buffers, 1);
}

}  // namespace
}  // namespace kpp
