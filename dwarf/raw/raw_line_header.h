// The file names a line table's header lists (.debug_line, DWARF 2-5),
// read raw: the index of which units name which source file.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "dwarf/raw/raw_sections.h"

namespace kpp::dwarf {

// The last component of `path` ("read_write.c" for "fs/read_write.c").
std::string_view last_path_component(std::string_view path);

namespace raw {

// Adds to `files` the last path components of the file names in the header
// of the line table at `offset` of b.line, and sorts them, unique. DWARF 5
// strx names are looked up from `str_offsets_base` (the unit's). `header`
// is set to the bytes read, however the read ends. False when the header
// cannot be read (out of range, truncated, an unknown version or form): the
// caller then matches any file.
bool line_table_files(const DwarfBytes &b, uint64_t offset, uint64_t str_offsets_base, std::vector<std::string_view> &files,
                      std::string_view &header);

}  // namespace raw

}  // namespace kpp::dwarf
