// Attribute forms read raw (dwarf/raw/raw_forms.h): the size of every form the
// reader knows, in 32- and 64-bit units; references; strings by every
// string form; values past the end and unknown forms refused.
#include "dwarf/raw/raw_forms.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf::raw {
namespace {

using test::BytesWriter;

UnitHeader unit_of(int version, int offset_size, const DwarfBytes *bytes = nullptr) {
  UnitHeader u;
  u.bytes = bytes;
  u.version = static_cast<uint8_t>(version);
  u.offset_size = static_cast<uint8_t>(offset_size);
  u.address_size = 8;
  u.offset = 0x100;
  return u;
}

// The bytes skip_form() moves over for one value of `form` at the start of
// `bytes` (0x55 filler after it), or -1 when it refuses.
long skipped(uint16_t form, const std::string &bytes, const UnitHeader &u) {
  std::string padded = bytes + std::string(40, '\x55');
  Cursor c = cursor_at(padded, 0);
  skip_form(c, form, u);
  return c.ok ? c.p - bytes_of(padded) : -1;
}

struct FormSize {
  uint16_t form;
  std::string value;  // a value of the form (its length or LEB128 bytes; the rest is filler)
  long size32, size64;  // in a DWARF 4 unit of 32-bit and of 64-bit offsets
};

TEST(RawForms, SizeOfEveryForm) {
  const std::string none, leb("\x81\x01", 2);
  const std::vector<FormSize> forms = {
      {FORM_flag_present, none, 0, 0}, {FORM_implicit_const, none, 0, 0},
      {FORM_data1, none, 1, 1}, {FORM_ref1, none, 1, 1}, {FORM_flag, none, 1, 1},
      {FORM_strx1, none, 1, 1}, {FORM_addrx1, none, 1, 1},
      {FORM_data2, none, 2, 2}, {FORM_ref2, none, 2, 2}, {FORM_strx2, none, 2, 2}, {FORM_addrx2, none, 2, 2},
      {FORM_strx3, none, 3, 3}, {FORM_addrx3, none, 3, 3},
      {FORM_data4, none, 4, 4}, {FORM_ref4, none, 4, 4}, {FORM_ref_sup4, none, 4, 4},
      {FORM_strx4, none, 4, 4}, {FORM_addrx4, none, 4, 4},
      {FORM_data8, none, 8, 8}, {FORM_ref8, none, 8, 8}, {FORM_ref_sig8, none, 8, 8}, {FORM_ref_sup8, none, 8, 8},
      {FORM_data16, none, 16, 16},
      {FORM_addr, none, 8, 8},
      {FORM_ref_addr, none, 4, 8},
      {FORM_strp, none, 4, 8}, {FORM_sec_offset, none, 4, 8}, {FORM_line_strp, none, 4, 8},
      {FORM_strp_sup, none, 4, 8}, {FORM_GNU_ref_alt, none, 4, 8}, {FORM_GNU_strp_alt, none, 4, 8},
      {FORM_sdata, leb, 2, 2}, {FORM_udata, leb, 2, 2}, {FORM_ref_udata, leb, 2, 2}, {FORM_strx, leb, 2, 2},
      {FORM_addrx, leb, 2, 2}, {FORM_loclistx, leb, 2, 2}, {FORM_rnglistx, leb, 2, 2},
      {FORM_GNU_addr_index, leb, 2, 2}, {FORM_GNU_str_index, leb, 2, 2},
      {FORM_string, std::string("abc\0", 4), 4, 4},
      {FORM_block1, "\x03", 4, 4},
      {FORM_block2, std::string("\x03\x00", 2), 5, 5},
      {FORM_block4, std::string("\x03\x00\x00\x00", 4), 7, 7},
      {FORM_block, std::string("\x83\x00", 2), 5, 5},  // a padded ULEB128 length
      {FORM_exprloc, "\x02", 3, 3},
      {FORM_indirect, "\x05", 3, 3},  // DW_FORM_data2, then its value
      {FORM_indirect, std::string("\x08" "ab\0", 4), 4, 4},  // DW_FORM_string "ab"
  };
  for (const FormSize &f : forms) {
    SCOPED_TRACE(testing::Message() << "form 0x" << std::hex << f.form);
    EXPECT_EQ(skipped(f.form, f.value, unit_of(4, 4)), f.size32);
    EXPECT_EQ(skipped(f.form, f.value, unit_of(4, 8)), f.size64);
  }
}

TEST(RawForms, AddressSizedForms) {
  UnitHeader v2 = unit_of(2, 4);
  v2.address_size = 4;
  EXPECT_EQ(skipped(FORM_addr, "", v2), 4);
  EXPECT_EQ(skipped(FORM_ref_addr, "", v2), 4) << "DWARF 2: an address's size";
  v2.address_size = 8;
  EXPECT_EQ(skipped(FORM_ref_addr, "", v2), 8);
  EXPECT_EQ(skipped(FORM_ref_addr, "", unit_of(3, 4)), 4) << "DWARF 3 on: an offset's size";
}

TEST(RawForms, ValuePastTheEndIsRefused) {
  const UnitHeader u = unit_of(4, 4);
  const std::vector<std::pair<uint16_t, std::string>> cut = {
      {FORM_data4, "abc"}, {FORM_data16, std::string(15, 'x')}, {FORM_addr, "1234567"},
      {FORM_strp, "12"}, {FORM_udata, "\x80\x80"}, {FORM_string, "abc"},
      {FORM_block1, "\x05" "ab"}, {FORM_block, "\x10"}, {FORM_indirect, "\x80"},
  };
  for (const auto &[form, bytes] : cut) {
    Cursor c = cursor_at(bytes, 0);
    skip_form(c, form, u);
    EXPECT_FALSE(c.ok) << "form 0x" << std::hex << form;
  }
}

TEST(RawForms, UnknownFormIsRefused) {
  EXPECT_EQ(skipped(0x99, "", unit_of(5, 4)), -1);
  EXPECT_EQ(skipped(FORM_indirect, "\x99\x01", unit_of(5, 4)), -1) << "an unknown form named indirectly";
}

TEST(RawForms, References) {
  const UnitHeader v4 = unit_of(4, 4);
  auto ref = [&](uint16_t form, const std::string &bytes, const UnitHeader &u) {
    Cursor c = cursor_at(bytes, 0);
    uint64_t target = reference(c, form, u);
    EXPECT_TRUE(c.ok);
    return target;
  };
  EXPECT_EQ(ref(FORM_ref1, "\x10", v4), 0x110u) << "unit-relative";
  EXPECT_EQ(ref(FORM_ref2, std::string("\x10\x00", 2), v4), 0x110u);
  EXPECT_EQ(ref(FORM_ref4, std::string("\x10\x00\x00\x00", 4), v4), 0x110u);
  EXPECT_EQ(ref(FORM_ref8, std::string("\x10\0\0\0\0\0\0\0", 8), v4), 0x110u);
  EXPECT_EQ(ref(FORM_ref_udata, "\x90\x01", v4), 0x190u);
  EXPECT_EQ(ref(FORM_ref_addr, std::string("\x10\x02\x00\x00", 4), v4), 0x210u) << "section-relative";
  EXPECT_EQ(ref(FORM_ref_addr, std::string("\x10\x02\0\0\0\0\0\0", 8), unit_of(4, 8)), 0x210u);
  EXPECT_EQ(ref(FORM_GNU_ref_alt, std::string("\x10\x02\x00\x00", 4), v4), 0u) << "another file's DIE";
}

// Sections with strings reached by every string form.
struct StringSections {
  std::string str = std::string("\0first\0second\0", 14);
  std::string line_str = std::string("\0line\0", 6);
  std::string str_offsets;
  DwarfBytes bytes;

  explicit StringSections(int offset_size) {
    BytesWriter w;
    w.fixed(0xdead, offset_size);  // what a base past it skips
    w.fixed(1, offset_size).fixed(7, offset_size);  // index 0: "first", 1: "second"
    str_offsets = w.bytes();
    bytes.str = str;
    bytes.line_str = line_str;
    bytes.str_offsets = str_offsets;
  }
};

std::string_view string_read(uint16_t form, const std::string &value, const UnitHeader &u, uint64_t base) {
  Cursor c = cursor_at(value, 0);
  std::string_view s = string_of(c, form, u, base);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.p, c.end) << "the whole value is read";
  return s;
}

TEST(RawForms, StringsByEveryStringForm) {
  for (int offset_size : {4, 8}) {
    SCOPED_TRACE(offset_size);
    StringSections s(offset_size);
    const UnitHeader u = unit_of(5, offset_size, &s.bytes);
    BytesWriter strp, line_strp;
    strp.fixed(7, offset_size);
    line_strp.fixed(1, offset_size);
    uint64_t base = offset_size;
    EXPECT_EQ(string_read(FORM_string, std::string("inline\0", 7), u, base), "inline");
    EXPECT_EQ(string_read(FORM_strp, strp.bytes(), u, base), "second");
    EXPECT_EQ(string_read(FORM_line_strp, line_strp.bytes(), u, base), "line");
    EXPECT_EQ(string_read(FORM_strx, "\x01", u, base), "second");
    EXPECT_EQ(string_read(FORM_GNU_str_index, std::string("\x00", 1), u, base), "first");
    EXPECT_EQ(string_read(FORM_strx1, "\x01", u, base), "second");
    EXPECT_EQ(string_read(FORM_strx2, std::string("\x00\x00", 2), u, base), "first");
    EXPECT_EQ(string_read(FORM_strx3, std::string("\x01\x00\x00", 3), u, base), "second");
    EXPECT_EQ(string_read(FORM_strx4, std::string("\x01\x00\x00\x00", 4), u, base), "second");
  }
}

TEST(RawForms, StringsOutsideTheirSectionsAreEmpty) {
  StringSections s(4);
  const UnitHeader u = unit_of(5, 4, &s.bytes);
  EXPECT_EQ(string_read(FORM_strp, std::string("\x40\x00\x00\x00", 4), u, 4), "");
  EXPECT_EQ(string_read(FORM_strx1, "\x02", u, 4), "") << "an index past .debug_str_offsets";
  EXPECT_EQ(string_read(FORM_strx1, std::string("\x00", 1), u, 0x100), "") << "a base past it";
  EXPECT_EQ(string_read(FORM_data4, std::string("\x01\x00\x00\x00", 4), u, 4), "") << "not a string's form";
}

}  // namespace
}  // namespace kpp::dwarf::raw
