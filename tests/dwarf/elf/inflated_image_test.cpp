// The inflated image of a file with compressed DWARF (dwarf/elf/inflated_image.h)
// holds, section by section, the bytes of the same file built uncompressed:
// inflated in one call into the image's pages and streamed through a chunk,
// from zlib and from zstd, on one thread and on two; damaged data is refused.
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "dwarf/elf/inflated_image.h"
#include "tests/common/run_command.h"

namespace kpp::dwarf {
namespace {

std::string fixture(const std::string &name) { return std::string(KPP_INDEX_FIXTURE_DIR) + "/" + name; }

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string slurp_fd(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return {};
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  if (pread(fd, bytes.data(), bytes.size(), 0) != st.st_size) return {};
  return bytes;
}

// The .debug_* sections of a 64-bit ELF file by name: their bytes as stored
// (compressed ones with their Elf64_Chdr), and whether they are compressed.
struct Section {
  std::string bytes;
  bool compressed = false;
};
std::map<std::string, Section> debug_sections(const std::string &elf) {
  std::map<std::string, Section> out;
  Elf64_Ehdr h;
  std::memcpy(&h, elf.data(), sizeof h);
  auto header = [&](unsigned i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + h.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  Elf64_Shdr names = header(h.e_shstrndx);
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr s = header(i);
    std::string name(elf.data() + names.sh_offset + s.sh_name);
    if (name.rfind(".debug_", 0) != 0 || s.sh_type == SHT_NOBITS) continue;
    out[name] = {elf.substr(s.sh_offset, s.sh_size), (s.sh_flags & SHF_COMPRESSED) != 0};
  }
  return out;
}

class InflatedImageTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    plain_ = slurp(fixture("index_gcc_O2"));
    packed_ = slurp(fixture("index_gcc_O2_" + GetParam()));
    if (plain_.empty() || packed_.empty()) GTEST_SKIP() << "no index_gcc_O2 fixture compressed with " << GetParam() << " (objcopy)";
  }

  // The image of `elf` as written with `options`, or the error.
  Result<std::string> image(const std::string &elf, const InflateOptions &options) {
    int fd = memfd_create("kpp-test-image", MFD_CLOEXEC);
    if (fd < 0) return Error("memfd_create failed");
    Status written = write_inflated_image(elf, fd, options);
    std::string bytes = slurp_fd(fd);
    close(fd);
    if (!written) return std::move(written).error();
    return bytes;
  }

  std::string plain_, packed_;
};

TEST_P(InflatedImageTest, EveryCompressedSectionInflatesToTheUncompressedBuildsBytes) {
  std::map<std::string, Section> want = debug_sections(plain_), packed = debug_sections(packed_);
  int compressed = 0;
  for (const auto &[name, section] : packed) compressed += section.compressed;
  ASSERT_GE(compressed, 3) << "objcopy compressed fewer sections than .debug_info, .debug_abbrev, .debug_line";
  struct Way {
    const char *what;
    InflateOptions options;
  };
  for (const Way &way : {Way{"in one call, one thread", {1, uint64_t{64} << 20}},
                         Way{"in one call, two threads", {2, uint64_t{64} << 20}},
                         Way{"in one call, two threads, blocks not reserved (a memfd)", {2, uint64_t{64} << 20, false}},
                         Way{"in one call, three threads", {3, uint64_t{64} << 20}},
                         Way{"streamed, one thread", {1, 0}}, Way{"streamed, two threads", {2, 0}}}) {
    SCOPED_TRACE(way.what);
    Result<std::string> made = image(packed_, way.options);
    ASSERT_TRUE(made) << made.error().message;
    // The layout matches what a cached image is checked against.
    std::optional<InflatedLayout> layout = inflated_layout(packed_);
    ASSERT_TRUE(layout);
    ASSERT_EQ(made->size(), layout->size);
    std::map<std::string, Section> got = debug_sections(*made);
    ASSERT_EQ(got.size(), want.size());
    for (const auto &[name, section] : want) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(got.count(name));
      EXPECT_FALSE(got[name].compressed);
      EXPECT_TRUE(got[name].bytes == section.bytes) << "the inflated section differs from the uncompressed build's";
    }
  }
}

// A run that reads no location list leaves .debug_loclists out: its header
// says it is empty, the other sections are the uncompressed build's.
TEST_P(InflatedImageTest, ASectionLeftOutIsEmptyAndTheOthersAsTheyWere) {
  std::map<std::string, Section> want = debug_sections(plain_);
  ASSERT_TRUE(want.count(".debug_loclists") && !want.at(".debug_loclists").bytes.empty())
      << "the -O2 fixture has location lists";
  InflateOptions options{2, uint64_t{64} << 20, false};
  options.leave_out = {".debug_loclists", ".debug_loc"};
  Result<std::string> made = image(packed_, options);
  ASSERT_TRUE(made) << made.error().message;
  std::optional<InflatedLayout> whole = inflated_layout(packed_);
  ASSERT_TRUE(whole);
  EXPECT_EQ(made->size(), whole->size - want.at(".debug_loclists").bytes.size()) << "the image holds no room for it";
  std::map<std::string, Section> got = debug_sections(*made);
  ASSERT_EQ(got.size(), want.size());
  for (const auto &[name, section] : want) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(got[name].compressed);
    if (name == ".debug_loclists") EXPECT_TRUE(got[name].bytes.empty());
    else EXPECT_TRUE(got[name].bytes == section.bytes) << "the inflated section differs from the uncompressed build's";
  }
}

// Without the cache the tool inflates a compressed program's DWARF in
// memory, leaving the location lists out when no probe reads a variable
// (dwarf/debug_info.h, OpenOptions::reads_locations): with arguments they
// are read, and either way the definitions are the uncompressed build's.
TEST_P(InflatedImageTest, WithoutTheCacheTheToolReadsTheLocationListsItsProbesNeed) {
  const std::string plain = fixture("index_gcc_O2"), packed = fixture("index_gcc_O2_" + GetParam());
  auto as_plain = [&](std::string out) {
    for (auto [from, to] : {std::pair{packed, plain}, std::pair{"probe_index_gcc_O2_" + GetParam(), std::string("probe_index_gcc_O2")}})
      for (size_t at; (at = out.find(from)) != std::string::npos;) out.replace(at, from.size(), to);
    return out;
  };
  for (const char *spec : {"lookup it key", "index_mix acc it", "lookup:2 it", "lookup", "lookup:2", "lookup%return $retval"}) {
    SCOPED_TRACE(spec);
    auto tool = [&](const std::string &program) {
      return test::run_command(std::string(KPP_BIN) + " --no-cache -x " + program + " -D '" + spec + "'", test::Stderr::Merged);
    };
    test::CommandRun want = tool(plain), got = tool(packed);
    ASSERT_EQ(want.status, 0) << want.out;
    EXPECT_EQ(got.status, 0) << got.out;
    EXPECT_EQ(as_plain(got.out), want.out);
  }
}

// zlib data carries a checksum (adler32): damage is refused, whichever way it
// is inflated. objcopy's zstd frames carry none, so damage to literal bytes
// can inflate; both ways must then give the same image.
TEST_P(InflatedImageTest, DamagedCompressedDataGivesTheSameVerdictBothWays) {
  // Overwrite the middle of the largest compressed section's data.
  std::map<std::string, Section> packed = debug_sections(packed_);
  const Section &info = packed.at(".debug_info");
  ASSERT_TRUE(info.compressed);
  size_t at = packed_.find(info.bytes);
  ASSERT_NE(at, std::string::npos);
  std::string damaged = packed_;
  size_t data = at + sizeof(Elf64_Chdr), length = info.bytes.size() - sizeof(Elf64_Chdr);
  for (size_t i = data + length / 3; i < data + length / 3 + 64 && i < data + length; ++i) damaged[i] = static_cast<char>(0xA5);
  Result<std::string> in_one_call = image(damaged, {1, uint64_t{64} << 20}), streamed = image(damaged, {1, 0});
  if (GetParam() == "zlib") {
    for (const Result<std::string> *made : {&in_one_call, &streamed}) {
      ASSERT_FALSE(*made) << "a damaged zlib .debug_info was inflated";
      EXPECT_NE(made->error().message.find("inflate"), std::string::npos) << made->error().message;
    }
    return;
  }
  ASSERT_EQ(bool(in_one_call), bool(streamed));
  if (in_one_call) {
    EXPECT_TRUE(*in_one_call == *streamed) << "the two ways inflated the damaged data differently";
  }
}

INSTANTIATE_TEST_SUITE_P(Compressions, InflatedImageTest, ::testing::Values("zlib", "zstd"));

}  // namespace
}  // namespace kpp::dwarf
