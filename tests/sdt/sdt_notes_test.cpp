// The note reader against readelf's reading of the same notes (binutils is
// the oracle), on the fixtures and on Debian's own python3.11 and
// libstdc++; then on copies of a fixture whose notes were made to lie.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "dwarf/elf_reader.h"
#include "src/sdt/sdt_notes.h"
#include "tests/common/run_command.h"

namespace kpp::sdt {
namespace {

const std::string fixture_dir = KPP_SDT_FIXTURE_DIR;

// readelf -n's stapsdt entries: "Provider: P", "Name: N",
// "Location: 0x..., Base: 0x..., Semaphore: 0x...", "Arguments: ...".
struct ReadelfMarker {
  std::string provider, name, args;
  uint64_t location = 0, semaphore = 0;
};

std::vector<ReadelfMarker> readelf_markers(const std::string &path) {
  std::vector<ReadelfMarker> out;
  std::istringstream lines(test::run_command("readelf -n --wide '" + path + "' 2>/dev/null").out);
  for (std::string line; std::getline(lines, line);) {
    auto value = [&](const char *key) -> std::optional<std::string> {
      size_t at = line.find(key);
      if (at == std::string::npos) return std::nullopt;
      return line.substr(at + std::strlen(key));
    };
    if (auto v = value("Provider: ")) out.push_back({*v, {}, {}, 0, 0});
    else if (out.empty()) continue;
    else if (auto n = value("Name: ")) out.back().name = *n;
    else if (auto a = value("Arguments: ")) out.back().args = *a;
    else if (auto l = value("Location: ")) {
      out.back().location = std::stoull(*l, nullptr, 16);
      out.back().semaphore = std::stoull(*value("Semaphore: "), nullptr, 16);
    }
  }
  return out;
}

void expect_same_as_readelf(const std::string &path) {
  auto elf = open_marker_file(path);
  ASSERT_TRUE(elf) << elf.error().message;
  auto markers = read_sdt_markers(*elf);
  ASSERT_TRUE(markers) << markers.error().message;
  std::vector<ReadelfMarker> expected = readelf_markers(path);
  ASSERT_FALSE(expected.empty()) << "readelf shows no SDT notes in " << path;
  ASSERT_EQ(markers->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const SdtMarker &m = (*markers)[i];
    EXPECT_EQ(m.provider, expected[i].provider) << i;
    EXPECT_EQ(m.name, expected[i].name) << i;
    EXPECT_EQ(m.args, expected[i].args) << i;
    EXPECT_EQ(m.address, expected[i].location) << i;
    EXPECT_EQ(m.semaphore, expected[i].semaphore) << i;
    EXPECT_EQ(m.problem, "") << m.name;
    EXPECT_EQ(m.semaphore_offset.has_value(), m.semaphore != 0) << m.name;
  }
}

TEST(SdtNotes, FixturesReadAsReadelfReadsThem) {
  for (const char *name : {"sdt_pie", "sdt_nopie", "libkpp_sdt.so"}) {
    SCOPED_TRACE(name);
    expect_same_as_readelf(fixture_dir + "/" + name);
  }
}

TEST(SdtNotes, DebianPackagesReadAsReadelfReadsThem) {
  int checked = 0;
  for (const char *path : {"/usr/bin/python3.11", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"}) {
    if (access(path, R_OK) != 0) continue;
    SCOPED_TRACE(path);
    expect_same_as_readelf(path);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "neither python3.11 nor libstdc++6 is installed (scripts/install-deps.sh --tests)";
}

// The semaphore's file offset, by the section that holds it (readelf -S):
// what the kernel's reference counter is given.
TEST(SdtNotes, SemaphoreFileOffsetIsWhereTheProbesSectionHasIt) {
  std::string path = fixture_dir + "/sdt_pie";
  std::istringstream lines(test::run_command("readelf -SW '" + path + "'").out);
  uint64_t addr = 0, off = 0;
  for (std::string line; std::getline(lines, line);) {
    size_t at = line.find(".probes ");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at));
    std::string name, type, a, o;
    words >> name >> type >> a >> o;
    addr = std::stoull(a, nullptr, 16);
    off = std::stoull(o, nullptr, 16);
  }
  ASSERT_NE(addr, 0u) << "no .probes section";
  auto elf = open_marker_file(path);
  ASSERT_TRUE(elf);
  auto markers = read_sdt_markers(*elf);
  ASSERT_TRUE(markers);
  int guarded = 0;
  for (const SdtMarker &m : *markers) {
    if (m.name != "guarded") continue;
    ++guarded;
    ASSERT_TRUE(m.semaphore_offset);
    EXPECT_EQ(*m.semaphore_offset, m.semaphore - addr + off);
  }
  EXPECT_EQ(guarded, 2) << "two sites share the semaphore";
}

TEST(SdtNotes, AFileWithoutNotesHasNoMarkers) {
  auto elf = open_marker_file(fixture_dir + "/sdt_lib_main");
  ASSERT_TRUE(elf);
  auto markers = read_sdt_markers(*elf);
  ASSERT_TRUE(markers);
  EXPECT_TRUE(markers->empty());
}

// ---------------------------------------------------------------------------
// Lying notes: a copy of the PIE fixture with one field of one note changed.

class LyingNote : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(fixture_dir + "/sdt_pie", std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), {});
    auto elf = open_marker_file(fixture_dir + "/sdt_pie");
    ASSERT_TRUE(elf);
    const dwarf::ElfSectionHeader *notes = elf->section(".note.stapsdt");
    ASSERT_NE(notes, nullptr);
    notes_ = notes->offset;
    // The first note of `guarded` (namesz 8, "stapsdt\0", then 24 bytes of addresses).
    for (uint64_t at = notes_; at < notes_ + notes->size && guarded_desc_ == 0;) {
      uint32_t namesz, descsz;
      std::memcpy(&namesz, &bytes_[at], 4);
      std::memcpy(&descsz, &bytes_[at + 4], 4);
      uint64_t desc = at + 12 + ((namesz + 3) & ~3u);
      if (std::strcmp(&bytes_[desc + 24 + 4], "guarded") == 0) guarded_desc_ = desc;
      at = desc + ((descsz + 3) & ~3u);
    }
    ASSERT_NE(guarded_desc_, 0u);
    path_ = "/tmp/kpp_sdt_lying_" + std::to_string(getpid());
  }
  void TearDown() override { unlink(path_.c_str()); }

  uint64_t get64(uint64_t at) const {
    uint64_t v;
    std::memcpy(&v, &bytes_[at], 8);
    return v;
  }
  void put64(uint64_t at, uint64_t v) { std::memcpy(&bytes_[at], &v, 8); }
  void put32(uint64_t at, uint32_t v) { std::memcpy(&bytes_[at], &v, 4); }

  Result<std::vector<SdtMarker>> read_back() {
    std::ofstream(path_, std::ios::binary).write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    auto elf = open_marker_file(path_);
    if (!elf) return std::move(elf).error();
    return read_sdt_markers(*elf);
  }
  std::string problem_of_guarded() {
    auto markers = read_back();
    EXPECT_TRUE(markers) << markers.error().message;
    if (!markers) return {};
    for (const SdtMarker &m : *markers)
      if (m.name == "guarded") return m.problem;
    return "no guarded marker";
  }

  std::vector<char> bytes_;
  uint64_t notes_ = 0, guarded_desc_ = 0;
  std::string path_;
};

TEST_F(LyingNote, TheUntouchedCopyIsAccepted) { EXPECT_EQ(problem_of_guarded(), ""); }

TEST_F(LyingNote, AnAddressOutsideTheCodeIsRefused) {
  put64(guarded_desc_, 0x10);  // the ELF header
  EXPECT_NE(problem_of_guarded().find("not in an executable segment"), std::string::npos);
}

TEST_F(LyingNote, AnAddressThatIsNotTheMarkersNopIsRefused) {
  put64(guarded_desc_, get64(guarded_desc_) - 1);  // the instruction before the marker
  EXPECT_NE(problem_of_guarded().find("nop"), std::string::npos);
}

TEST_F(LyingNote, ASemaphoreOutsideWritableDataIsRefused) {
  put64(guarded_desc_ + 16, get64(guarded_desc_));  // the code
  EXPECT_NE(problem_of_guarded().find("not in a writable segment"), std::string::npos);
}

TEST_F(LyingNote, AnOddSemaphoreIsRefused) {
  put64(guarded_desc_ + 16, get64(guarded_desc_ + 16) + 1);
  EXPECT_NE(problem_of_guarded().find("2-byte aligned"), std::string::npos);
}

TEST_F(LyingNote, ADescriptorRunningPastTheSectionIsAnError) {
  put32(guarded_desc_ - 16, 0x7fffffff);  // descsz
  auto markers = read_back();
  ASSERT_FALSE(markers);
  EXPECT_NE(markers.error().message.find("runs past the section"), std::string::npos) << markers.error().message;
}

TEST_F(LyingNote, StringsWithoutTheirNulAreAnError) {
  put32(guarded_desc_ - 16, 24 + 3);  // descsz: the provider "kpp" without its NUL
  auto markers = read_back();
  ASSERT_FALSE(markers);
  EXPECT_NE(markers.error().message.find("no terminating NUL"), std::string::npos) << markers.error().message;
}

TEST_F(LyingNote, SectionHeadersOutsideTheFileAreAnError) {
  put64(0x28, 1ull << 40);  // e_shoff
  auto markers = read_back();
  ASSERT_FALSE(markers);
  EXPECT_NE(markers.error().message.find("outside the file"), std::string::npos) << markers.error().message;
}

}  // namespace
}  // namespace kpp::sdt
