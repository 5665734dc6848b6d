#include "dwarf/raw/raw_line_header.h"

#include <algorithm>
#include <utility>

#include "dwarf/raw/raw_forms.h"

namespace kpp::dwarf {

std::string_view last_path_component(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace raw {

namespace {

// Reads a line table header's fixed part into `h` (format, version,
// address size) and leaves `c` at its directory and file tables, bounded
// by the header's length. False when they do not fit.
bool enter_line_header(Cursor &c, UnitHeader &h) {
  uint64_t length = c.fixed(4);
  if (length == 0xffffffff) {
    h.offset_size = 8;
    length = c.fixed(8);
  }
  if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return false;
  c.end = c.p + length;
  h.version = static_cast<uint8_t>(c.fixed(2));
  if (h.version < 2 || h.version > 5) return false;
  if (h.version >= 5) {
    h.address_size = static_cast<uint8_t>(c.fixed(1));
    c.skip(1);  // segment selector size
  }
  uint64_t header_length = c.fixed(h.offset_size);
  if (!c.ok || header_length > static_cast<uint64_t>(c.end - c.p)) return false;
  c.end = c.p + header_length;
  c.skip(h.version >= 4 ? 5 : 4);  // minimum_instruction_length .. line_range
  uint64_t opcode_base = c.fixed(1);
  c.skip(opcode_base ? opcode_base - 1 : 0);
  return c.ok;
}

// DWARF 2-4: strings of directories, then entries of a name and three LEB128s.
template <typename Add>
void line_files_v4(Cursor &c, const Add &add) {
  while (c.ok && !c.cstring().empty()) {}  // include_directories
  for (;;) {
    std::string_view name = c.cstring();
    if (!c.ok || name.empty()) break;
    add(name);
    c.skip_leb();  // directory index
    c.skip_leb();  // modification time
    c.skip_leb();  // length
  }
}

// DWARF 5: directories, then file names, each table described by its own
// (content, form) pairs.
template <typename Add>
void line_files_v5(Cursor &c, const UnitHeader &h, uint64_t str_offsets_base, const Add &add) {
  for (int table = 0; table < 2 && c.ok; ++table) {  // directories, then file names
    std::vector<std::pair<uint64_t, uint16_t>> format(c.fixed(1));
    for (auto &[content, form] : format) {
      content = c.uleb();
      form = static_cast<uint16_t>(c.uleb());
    }
    uint64_t count = c.uleb();
    for (uint64_t i = 0; i < count && c.ok; ++i)
      for (const auto &[content, form] : format) {
        if (table == 1 && content == LNCT_path) add(string_of(c, form, h, str_offsets_base));
        else skip_form(c, form, h);
      }
  }
}

}  // namespace

bool line_table_files(const DwarfBytes &b, uint64_t offset, uint64_t str_offsets_base, std::vector<std::string_view> &files,
                      std::string_view &header) {
  if (offset >= b.line.size()) return false;
  Cursor c = cursor_at(b.line, offset);
  struct Span {  // what was read, however the parse ends
    Cursor &c;
    std::string_view &header;
    const uint8_t *begin;
    ~Span() { header = std::string_view(reinterpret_cast<const char *>(begin), c.p - begin); }
  } span{c, header, c.p};
  UnitHeader h;  // the header's own format, for skip_form and string_of
  h.bytes = &b;
  if (!enter_line_header(c, h)) return false;
  auto add = [&](std::string_view path) { files.push_back(last_path_component(path)); };
  if (h.version < 5)
    line_files_v4(c, add);
  else
    line_files_v5(c, h, str_offsets_base, add);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return c.ok;
}

}  // namespace raw

}  // namespace kpp::dwarf
