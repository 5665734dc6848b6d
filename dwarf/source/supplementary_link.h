// Where a DWARF file leaves part of its debug information: a supplementary
// file that dwz -m writes (DIEs and strings several programs share), named
// by a .gnu_debugaltlink section (the GNU form: a path, then the
// supplementary file's build-id) or a DWARF 5 .debug_sup section (a path
// and a checksum). The DWARF then refers into that file with forms LLVM
// does not follow (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt,
// DW_FORM_ref_sup4/8, DW_FORM_strp_sup). Pure functions of bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kpp::dwarf {

struct SupplementaryLink {
  std::string path;        // as the section spells it (relative: to the DWARF file's directory)
  std::string identifier;  // the build-id or checksum, lowercase hex ("" when none)
  const char *section = "";  // ".gnu_debugaltlink" or ".debug_sup"
};

// The link in a .gnu_debugaltlink section's bytes; nullopt when the path is
// not NUL-terminated or empty.
std::optional<SupplementaryLink> parse_gnu_debugaltlink(std::string_view section);

// The link in a .debug_sup section's bytes (DWARF 5, 7.3.6: version 5,
// is_supplementary 0, filename, checksum length as ULEB128, checksum);
// nullopt for a supplementary file's own section or malformed bytes.
std::optional<SupplementaryLink> parse_debug_sup(std::string_view section, bool little_endian);

}  // namespace kpp::dwarf
