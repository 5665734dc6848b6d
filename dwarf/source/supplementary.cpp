// DWARF whose shared parts lie in a supplementary file (see
// supplementary_link.h): found and named, not read.
#include <unistd.h>

#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/supplementary_link.h"

namespace kpp::dwarf {

using namespace llvm;

std::string DwarfFiles::unread_supplementary() const {
  const object::ObjectFile *dwarf_file = debug_.object() ? debug_.object() : &image_.object();
  if (!no_dwarf_note().empty()) return {};
  std::optional<SupplementaryLink> link;
  for (const object::SectionRef &section : dwarf_file->sections()) {
    auto name = section.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (*name != ".gnu_debugaltlink" && *name != ".debug_sup") continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    std::string_view bytes(contents->data(), contents->size());
    link = *name == ".debug_sup" ? parse_debug_sup(bytes, dwarf_file->isLittleEndian()) : parse_gnu_debugaltlink(bytes);
    if (link) break;
  }
  if (!link) return {};
  std::string where = link->path;
  const std::string &holder = debug_path();
  if (!where.starts_with('/') && holder.find('/') != std::string::npos)
    where = holder.substr(0, holder.rfind('/') + 1) + where;
  bool present = access(where.c_str(), R_OK) == 0;
  return "the DWARF of '" + holder + "' leaves the names, types and inlined functions several files share to '" +
         where + "' (" + link->section + ", written by dwz -m" + (present ? "" : "; not found") +
         "), which kprobe-probe does not read yet: what is described there is missing (variables of such types "
         "show as void, such inline functions are not found)";
}

}  // namespace kpp::dwarf
