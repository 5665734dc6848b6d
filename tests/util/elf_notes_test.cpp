// The ELF note walker (util/elf_notes.h): records in order, the build-id
// among them, and damage named where it starts.
#include "util/elf_notes.h"

#include <gtest/gtest.h>

#include <vector>

namespace kpp {
namespace {

TEST(Notes, BuildIdFromNotes) {
  // One unrelated note, then the GNU build-id (namesz 4, descsz 4, type 3).
  std::string notes;
  auto u32 = [&notes](uint32_t v) { notes.append(reinterpret_cast<const char *>(&v), 4); };
  u32(6); u32(4); u32(1);
  notes += std::string("Linux\0\0\0", 8);
  notes += std::string("\1\2\3\4", 4);
  u32(4); u32(4); u32(3);
  notes += std::string("GNU\0", 4);
  notes += std::string("\xde\xad\xbe\xef", 4);
  EXPECT_EQ(gnu_build_id(notes), "deadbeef");
  EXPECT_EQ(gnu_build_id(notes.substr(0, 20)), "");
  EXPECT_EQ(gnu_build_id(""), "");
}

TEST(Notes, WalkStopsAtDamageAndNamesIt) {
  std::string notes;
  auto u32 = [&notes](uint32_t v) { notes.append(reinterpret_cast<const char *>(&v), 4); };
  u32(4); u32(3); u32(7);  // owner "abc\0", a 3-byte descriptor padded to 4
  notes += std::string("abc\0", 4);
  notes += std::string("xyz\0", 4);
  std::vector<std::string> seen;
  auto each = [&](const ElfNote &n) {
    seen.push_back(std::string(n.desc));
    return true;
  };
  EXPECT_FALSE(walk_elf_notes(notes, each));
  EXPECT_EQ(seen, std::vector<std::string>{"xyz"});
  u32(4); u32(4096); u32(1);  // a second note whose descriptor the bytes do not hold
  notes += std::string("abc\0", 4);
  seen.clear();
  std::optional<NoteDamage> damage = walk_elf_notes(notes, each);
  ASSERT_TRUE(damage);
  EXPECT_EQ(damage->offset, 20u);
  EXPECT_EQ(damage->why, "a note runs past the section");
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(walk_elf_notes(notes.substr(0, 25), each)->why, "a note header runs past the section");
}

}  // namespace
}  // namespace kpp
