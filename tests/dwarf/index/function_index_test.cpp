// dwarf/index/function_index.h: when no index can answer, FunctionIndex says so
// (nullopt: the caller walks every unit with LLVM) and why (-v's note),
// without reading the DWARF it cannot use.
#include <gtest/gtest.h>

#include <string>

#include "dwarf/index/function_index.h"
#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf {
namespace {

// DWARF that must not be read: each read is counted.
class UnreadDwarf : public IndexedDwarf {
 public:
  DwarfBytes raw_dwarf() override { return ++reads, DwarfBytes{}; }
  MappedFile searched_file() override { return ++reads, MappedFile{}; }
  std::vector<UnitSpan> unit_spans() override { return ++reads, std::vector<UnitSpan>{}; }
  std::vector<SplitUnitBytes> split_unit_bytes(size_t &) override { return ++reads, std::vector<SplitUnitBytes>{}; }
  void drop_mapped_pages() override {}
  int reads = 0;
};

TEST(FunctionIndex, AskedNotToItAnswersNothingAndReadsNothing) {
  UnreadDwarf dwarf;
  FunctionIndex index(dwarf, {"/bin/true", "", true}, {.use_cache = false, .use_index = false});
  EXPECT_FALSE(index.find("main", false));
  EXPECT_FALSE(index.units_naming("main.c"));
  EXPECT_EQ(index.note(), "index: not used (asked not to)");
  EXPECT_EQ(index.source(), IndexSource::None);
  EXPECT_EQ(dwarf.reads, 0);
}

TEST(FunctionIndex, ARelocatableObjectIsLeftToTheWalkOfEveryUnit) {
  for (bool use_cache : {true, false}) {
    UnreadDwarf dwarf;
    FunctionIndex index(dwarf, {"/lib/modules/x.ko", "", false}, {.use_cache = use_cache});
    EXPECT_FALSE(index.find("loop_ioctl", true));
    EXPECT_FALSE(index.units_naming("loop.c"));
    EXPECT_NE(index.note().find("relocatable"), std::string::npos) << index.note();
    EXPECT_EQ(dwarf.reads, 0);
  }
}

// Two DWARF 4 units as LTO writes them: the second unit's inlined copy of g
// names its origin in the first unit by DW_FORM_ref_addr, so the byte
// search cannot say which units name g.
class LtoDwarf : public IndexedDwarf {
 public:
  LtoDwarf() {
    test::BytesWriter abbrev;
    abbrev.uleb(1).uleb(0x11).u8(1).uleb(0).uleb(0);                                       // compile unit, children
    abbrev.uleb(2).uleb(0x2e).u8(0).uleb(0x03).uleb(0x0e).uleb(0x11).uleb(0x01).uleb(0).uleb(0);  // subprogram: name, low_pc
    abbrev.uleb(3).uleb(0x2e).u8(0).uleb(0x03).uleb(0x0e).uleb(0).uleb(0);                 // abstract subprogram: name
    abbrev.uleb(4).uleb(0x1d).u8(0).uleb(0x31).uleb(0x10).uleb(0).uleb(0);                 // inlined copy: origin by ref_addr
    abbrev.uleb(0);
    abbrev_ = abbrev.bytes();
    str_ = std::string("\0f\0g\0", 5);
    test::BytesWriter info;
    size_t length = info.begin_length(4);
    info.u16(4).u32(0).u8(8);
    info.uleb(1);
    f_ = info.size();
    info.uleb(2).u32(1).u64(0x1000);
    g_ = info.size();
    info.uleb(3).u32(3);
    info.uleb(0);
    info.end_length(length, 4);
    second_ = info.size();
    length = info.begin_length(4);
    info.u16(4).u32(0).u8(8);
    info.uleb(1);
    inlined_ = info.size();
    info.uleb(4).u32(g_);
    info.uleb(0);
    info.end_length(length, 4);
    info_ = info.bytes();
  }
  DwarfBytes raw_dwarf() override { return {info_, abbrev_, str_, {}, {}, {}, {}}; }
  MappedFile searched_file() override { return {}; }
  std::vector<UnitSpan> unit_spans() override {
    return {{0, second_, 4, 4, false, 0}, {second_, info_.size(), 4, 4, false, 0}};
  }
  std::vector<SplitUnitBytes> split_unit_bytes(size_t &skeletons) override { return skeletons = 0, std::vector<SplitUnitBytes>{}; }
  void drop_mapped_pages() override { ++scans; }  // once after each scan of every unit

  std::string info_, abbrev_, str_;
  uint64_t f_ = 0, g_ = 0, second_ = 0, inlined_ = 0;
  int scans = 0;
};

std::vector<uint64_t> offsets_of(const std::optional<FunctionIndex::Found> &found) {
  std::vector<uint64_t> offsets;
  if (found)
    for (const IndexedDie &d : found->dies) offsets.push_back(d.die_offset);
  return offsets;
}

// Without the cache, names the byte search cannot place are picked from one
// scan of every unit, kept for the run: a second name scans nothing again,
// and both answer as the whole file's index does.
TEST(FunctionIndex, WithoutTheCacheAnLtoFileIsScannedOnceForEveryName) {
  LtoDwarf dwarf;
  FunctionIndex index(dwarf, {"/usr/bin/lto", "", true}, {.use_cache = false});
  auto g = index.find("g", false);
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->cached);
  EXPECT_EQ(offsets_of(g), std::vector<uint64_t>{dwarf.inlined_}) << "the inlined copy in the other unit";
  ASSERT_EQ(g->dies.size(), 1u);
  EXPECT_TRUE(g->dies[0].inlined);
  EXPECT_NE(index.note().find("a scan of every unit"), std::string::npos) << index.note();
  EXPECT_EQ(offsets_of(index.find("f", false)), std::vector<uint64_t>{dwarf.f_});
  EXPECT_TRUE(offsets_of(index.find("h", false)).empty());
  EXPECT_EQ(dwarf.scans, 1) << "every unit was scanned again for another name";
}

}  // namespace
}  // namespace kpp::dwarf
