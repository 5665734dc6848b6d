// dwarf/function_index.h: when no index can answer, FunctionIndex says so
// (nullopt: the caller walks every unit with LLVM) and why (-v's note),
// without reading the DWARF it cannot use.
#include <gtest/gtest.h>

#include <string>

#include "dwarf/function_index.h"

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

}  // namespace
}  // namespace kpp::dwarf
