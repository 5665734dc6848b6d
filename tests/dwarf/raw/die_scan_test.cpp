// The function scan (dwarf/raw/die_scan.h) on hand-made units: DIEs whose
// attributes all have fixed sizes have the attributes the scan needs read
// where they lie, the others are decoded one by one, and both find the same.
#include "dwarf/raw/die_scan.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf {
namespace {

// The names of the functions a scan found, in offset order.
std::vector<std::string> names_of(const ScanResult &scanned) {
  std::vector<std::string> names;
  for (const ScannedFunction &f : scanned.functions) names.emplace_back(f.name);
  return names;
}

// A DWARF 4 unit of 32-bit DWARF and 8-byte addresses, its abbreviations
// at 0 (code 1: the unit DIE, with children), its DIEs written by `dies`.
struct Unit {
  std::string info, abbrev, str;
  DwarfBytes bytes() const { return {info, abbrev, str, {}, {}, {}, {}}; }
};
Unit unit(const std::function<void(test::BytesWriter &)> &declarations, const std::function<void(test::BytesWriter &)> &dies,
          std::string str) {
  test::BytesWriter abbrev;
  abbrev.uleb(1).uleb(0x11).u8(1).uleb(0).uleb(0);
  declarations(abbrev);
  abbrev.uleb(0);
  test::BytesWriter info;
  size_t length = info.begin_length(4);
  info.u16(4).u32(0).u8(8);
  info.uleb(1);
  dies(info);
  info.end_length(length, 4);
  return {info.bytes(), abbrev.bytes(), std::move(str)};
}

TEST(DieScan, FixedAndVariableSizedDiesAreReadAlike) {
  size_t copy = 0;
  Unit u = unit(
      [](test::BytesWriter &a) {
        a.uleb(2).uleb(0x2e).u8(0).uleb(0x03).uleb(0x0e).uleb(0x11).uleb(0x01).uleb(0).uleb(0);         // name strp, low_pc
        a.uleb(3).uleb(0x2e).u8(0).uleb(0x03).uleb(0x08).uleb(0x11).uleb(0x01).uleb(0).uleb(0);         // name string, low_pc
        a.uleb(4).uleb(0x1d).u8(0).uleb(0x3a).uleb(0x0b).uleb(0x31).uleb(0x13).uleb(0x11).uleb(0x01)    // call_file, origin, low_pc
            .uleb(0).uleb(0);
        a.uleb(5).uleb(0x2e).u8(0).uleb(0x3f).uleb(0x19).uleb(0x03).uleb(0x0e).uleb(0).uleb(0);         // external, name: no code
        a.uleb(6).uleb(0x13).u8(1).uleb(0x03).uleb(0x0e).uleb(0x0b).uleb(0x0b).uleb(0x01).uleb(0x13)    // struct: name, size, sibling
            .uleb(0).uleb(0);
      },
      [&](test::BytesWriter &info) {
        info.uleb(2).u32(1).u64(0x1000);           // "fixed", read where its attributes lie
        info.uleb(3).str("variable").u64(0x2000);  // an inline string: decoded one by one
        size_t origin = info.size();
        info.uleb(5).u32(7);  // "origin", declared without code
        copy = info.size();
        info.uleb(4).u8(1).u32(static_cast<uint32_t>(origin)).u64(0x3000);  // its inlined copy, a ref4 after a data1
        info.uleb(6).u32(21).u8(8);                                         // struct "point", then its sibling
        size_t sibling_at = info.size();
        info.u32(0);
        info.uleb(2).u32(14).u64(0x4000);  // "hidden": inside the struct, jumped over
        info.uleb(0);
        info.put(sibling_at, info.size(), 4);
        info.uleb(0);
      },
      std::string("\0fixed\0origin\0hidden\0point\0", 27));
  DwarfBytes bytes = u.bytes();

  auto scanned = scan_functions(bytes, 1);
  ASSERT_TRUE(scanned) << scanned.error().message;
  EXPECT_EQ(names_of(*scanned), (std::vector<std::string>{"fixed", "variable", "origin"}));
  ASSERT_EQ(scanned->functions.size(), 3u);
  EXPECT_EQ(scanned->functions[2].die_offset, copy);
  EXPECT_TRUE(scanned->functions[2].inlined);
}

TEST(DieScan, AFixedSizeDieThatRunsPastItsUnitIsAnError) {
  Unit u = unit([](test::BytesWriter &a) { a.uleb(2).uleb(0x2e).u8(0).uleb(0x03).uleb(0x0e).uleb(0x11).uleb(0x01).uleb(0).uleb(0); },
                 [](test::BytesWriter &info) { info.uleb(2).u32(1).u32(0); },  // low_pc cut short: 4 of its 8 bytes
                 std::string("\0f\0", 3));
  DwarfBytes bytes = u.bytes();
  auto scanned = scan_functions(bytes, 1);
  ASSERT_FALSE(scanned);
  EXPECT_NE(scanned.error().message.find("runs past its end"), std::string::npos) << scanned.error().message;
}

}  // namespace
}  // namespace kpp::dwarf
