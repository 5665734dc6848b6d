// The file lists of line table headers read raw
// (dwarf/raw/raw_line_header.h): DWARF 4 and 5, 32- and 64-bit, names by
// several string forms, and damaged headers refused.
#include "dwarf/raw/raw_line_header.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dwarf/raw/raw_constants.h"
#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf::raw {
namespace {

using test::BytesWriter;
using Files = std::vector<std::string_view>;

constexpr uint64_t LNCT_directory_index = 0x2;
constexpr uint8_t opcode_base = 13;

// A line table header of `version` up to its file tables; `tables` writes
// them; the program after it is one byte.
template <typename Tables>
std::string line_table(int version, int offset_size, const Tables &tables) {
  BytesWriter w;
  size_t length = w.begin_length(offset_size);
  w.u16(version);
  if (version >= 5) w.u8(8).u8(0);  // address size, segment selector size
  size_t header_length = w.size();
  w.fixed(0, offset_size);
  w.u8(1);  // minimum_instruction_length
  if (version >= 4) w.u8(1);  // maximum_operations_per_instruction
  w.u8(1).u8(0xfb).u8(14).u8(opcode_base);  // default_is_stmt, line_base, line_range
  for (int i = 1; i < opcode_base; ++i) w.u8(i % 3);  // standard_opcode_lengths
  tables(w);
  std::string bytes = w.bytes();
  uint64_t header = bytes.size() - header_length - offset_size;
  for (int i = 0; i < offset_size; ++i) bytes[header_length + i] = static_cast<char>(header >> (8 * i));
  bytes.push_back('\x01');  // the program
  uint64_t unit = bytes.size() - length - offset_size;
  for (int i = 0; i < offset_size; ++i) bytes[length + i] = static_cast<char>(unit >> (8 * i));
  return bytes;
}

void v4_tables(BytesWriter &w) {
  w.str("/usr/include").str("lib").str("");  // include_directories
  w.str("src/main.c").uleb(0).uleb(0).uleb(0);
  w.str("stdio.h").uleb(1).uleb(0x12345678).uleb(300);
  w.str("lib/util.h").uleb(2).uleb(0).uleb(0);
  w.str("main.c").uleb(0).uleb(0).uleb(0);  // the same last component twice
  w.str("");
}

struct Read {
  bool ok;
  Files files;
  std::string_view header;
};

Read files_of(const DwarfBytes &b, uint64_t offset = 0, uint64_t str_offsets_base = 0) {
  Read r;
  r.ok = line_table_files(b, offset, str_offsets_base, r.files, r.header);
  return r;
}

TEST(RawLineHeader, Dwarf4FileList) {
  for (int offset_size : {4, 8}) {
    SCOPED_TRACE(offset_size);
    std::string line = line_table(4, offset_size, v4_tables);
    DwarfBytes b;
    b.line = line;
    Read r = files_of(b);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.files, (Files{"main.c", "stdio.h", "util.h"})) << "last components, sorted, unique";
    EXPECT_EQ(r.header.size(), line.size() - 1) << "the header, not the program";
  }
}

TEST(RawLineHeader, Dwarf3FileList) {
  std::string line = line_table(3, 4, v4_tables);
  DwarfBytes b;
  b.line = line;
  Read r = files_of(b);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.files, (Files{"main.c", "stdio.h", "util.h"}));
}

TEST(RawLineHeader, Dwarf5FileList) {
  std::string line_str("\0/build\0src/a.c\0", 16);
  std::string str("\0inc/b.h\0", 9);
  for (int offset_size : {4, 8}) {
    SCOPED_TRACE(offset_size);
    BytesWriter offsets;  // .debug_str_offsets: a unit's base, then index 0
    offsets.fixed(0, offset_size).fixed(1, offset_size);
    std::string str_offsets = offsets.bytes();
    std::string line = line_table(5, offset_size, [&](BytesWriter &w) {
      w.u8(1).uleb(LNCT_path).uleb(FORM_line_strp);  // directories: a path each
      w.uleb(1).fixed(1, offset_size);
      w.u8(3).uleb(LNCT_path).uleb(FORM_strx1);  // files: a path, a data16 (an MD5), a directory
      w.uleb(0x5).uleb(FORM_data16).uleb(LNCT_directory_index).uleb(FORM_udata);
      w.uleb(3);
      w.u8(0).fixed(0, 8).fixed(0, 8).uleb(0);  // strx 0: "inc/b.h"
      w.u8(1).fixed(0, 8).fixed(0, 8).uleb(0);  // strx 1: out of range, an empty name
      w.u8(0).fixed(0, 8).fixed(0, 8).uleb(300);
    });
    // A second table whose file names are strings of their own forms.
    size_t second = line.size();
    line += line_table(5, offset_size, [&](BytesWriter &w) {
      w.u8(1).uleb(LNCT_path).uleb(FORM_string).uleb(1).str("/build");
      w.u8(2).uleb(LNCT_directory_index).uleb(FORM_data1).uleb(LNCT_path).uleb(FORM_line_strp);
      w.uleb(1).u8(0).fixed(8, offset_size);
    });
    DwarfBytes b;
    b.line = line;
    b.line_str = line_str;
    b.str = str;
    b.str_offsets = str_offsets;
    Read r = files_of(b, 0, offset_size);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.files, (Files{"", "b.h"}));
    EXPECT_EQ(r.header.size(), second - 1);
    r = files_of(b, second, offset_size);
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.files, (Files{"a.c"}));
  }
}

TEST(RawLineHeader, OffsetOutsideTheSectionIsRefused) {
  std::string line = line_table(4, 4, v4_tables);
  DwarfBytes b;
  b.line = line;
  Read r = files_of(b, line.size());
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.files.empty());
}

TEST(RawLineHeader, TruncatedHeaderIsRefused) {
  std::string line = line_table(4, 4, v4_tables);
  // Inside the length, the fixed part, the directories and the files: the
  // unit length then says more than the section holds.
  for (size_t keep : {size_t{3}, size_t{12}, size_t{40}, line.size() - 3}) {
    DwarfBytes b;
    b.line = std::string_view(line).substr(0, keep);
    Read r = files_of(b);
    EXPECT_FALSE(r.ok) << keep << " bytes";
    EXPECT_LE(r.header.size(), keep);
  }
}

TEST(RawLineHeader, HeaderLengthTooShortForItsFilesIsRefused) {
  std::string line = line_table(4, 4, v4_tables);
  line[6] = static_cast<char>(line[6] - 4);  // header_length: the file table runs past it
  DwarfBytes b;
  b.line = line;
  Read r = files_of(b);
  EXPECT_FALSE(r.ok);
  EXPECT_LE(r.header.size(), line.size() - 5);
}

TEST(RawLineHeader, UnknownVersionOrFormIsRefused) {
  for (int version : {1, 6}) {
    std::string line = line_table(version, 4, v4_tables);
    DwarfBytes b;
    b.line = line;
    EXPECT_FALSE(files_of(b).ok) << "version " << version;
  }
  std::string line = line_table(5, 4, [](BytesWriter &w) {
    w.u8(0).uleb(0);  // no directories
    w.u8(1).uleb(LNCT_path).uleb(0x99).uleb(1).u8(0);
  });
  DwarfBytes b;
  b.line = line;
  EXPECT_FALSE(files_of(b).ok);
}

TEST(RawLineHeader, LastPathComponent) {
  EXPECT_EQ(last_path_component("fs/read_write.c"), "read_write.c");
  EXPECT_EQ(last_path_component("read_write.c"), "read_write.c");
  EXPECT_EQ(last_path_component("/usr/include/"), "");
}

}  // namespace
}  // namespace kpp::dwarf::raw
