// A stripped program's separate debug file: found (debug_link.h says where
// it is looked for: by build-id, by .gnu_debuglink, then from debuginfod),
// checked to be the program's (the link's CRC, the same machine, the
// build-id a server was asked for, a .debug_info in it), and kept open.
// One job, the debug file; when none is found, the note that says where it
// was looked for. Only the DWARF (and, for a program without .symtab, the
// symbols) come from it: load segments and file offsets stay the program's.
// Part of DwarfFiles (dwarf_files.h); private to dwarf/.
#pragma once

#include <string>
#include <string_view>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/debug_info.h"
#include "dwarf/elf/mapped_object.h"
#include "util/result.h"

namespace kpp::dwarf {

class SeparateDebugFile {
 public:
  // Finds the debug file of `program` (the file at `path`, of build-id
  // `build_id`, "" for none), debuginfod as `options` allow. The error lists
  // every path tried; not_found_note() keeps it.
  Status find(const llvm::object::ObjectFile &program, const std::string &path, const std::string &build_id,
              const OpenOptions &options);

  const std::string &path() const { return path_; }  // "" when none was found
  const llvm::object::ObjectFile *object() const { return file_.binary.getBinary(); }  // null when none
  std::string_view mapping() const { return file_.mapping; }  // its bytes when file-mapped
  // Set when none was found: where it was looked for.
  const std::string &not_found_note() const { return not_found_note_; }
  // The build-id whose debug file is being fetched in the background.
  const std::string &awaited_build_id() const { return awaited_build_id_; }

 private:
  // The debug file of `build_id` from debuginfod: here, or in the background
  // (OpenOptions::debuginfod_background: an error while it is pending).
  Result<std::string> fetch_from_debuginfod(const std::string &build_id, const OpenOptions &options);

  std::string path_;
  MappedObject file_;
  std::string not_found_note_;
  std::string awaited_build_id_;
};

}  // namespace kpp::dwarf
