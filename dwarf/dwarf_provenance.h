// DwarfProvenance: where one file's DWARF came from and how it read, as
// messages and -v tell the user: the file it was read from, why there is
// none, the name index's source, LLVM's problems, the split or
// supplementary files missing. DebugInfo::provenance() (dwarf/debug_info.h)
// hands it out beside the DWARF questions. No LLVM type appears here.
#pragma once

#include <string>
#include <vector>

namespace kpp::dwarf {

// Where this run's name index came from; None until a query needs it.
enum class IndexSource { None, Built, Cache };

class DwarfProvenance {
 public:
  virtual ~DwarfProvenance() = default;

  // The file the DWARF is read from: the file itself, or the separate debug
  // file found for a stripped program (symbols, segments and file offsets
  // are still the program's).
  virtual const std::string &debug_path() const = 0;
  // Without DWARF, one line naming where it was looked for; else empty.
  virtual std::string dwarf_note() const { return {}; }
  // The build-id whose debug file debuginfod is fetching in the background
  // (OpenOptions::debuginfod_background): opened again once it is done, the
  // file has its DWARF. Empty when nothing is awaited.
  virtual std::string awaited_debug_file() const { return {}; }

  // Where the name index came from, and a line for -v saying so (which
  // cache file, or why a cache file was rejected and rebuilt).
  virtual IndexSource index_source() const { return IndexSource::None; }
  virtual std::string index_note() const { return {}; }
  // LLVM's recoverable errors and warnings met so far in this file's DWARF
  // ("FILE: MESSAGE"; dwarf/source/dwarf_problems.h), for -v: empty when it read
  // cleanly or was not read yet.
  virtual std::vector<std::string> dwarf_problems() const { return {}; }

  // For a program built with -gsplit-dwarf whose .dwo files (or .dwp
  // package) are missing: which were not found, where we looked, and what
  // still works without them; empty when nothing is missing. Callers add it
  // to "no function" errors, the usual symptom.
  virtual std::string missing_split_dwarf() { return {}; }
  // For such a program: how many of its units' DIEs were found, and in
  // which file (its .dwp) or how many .dwo files, for -v; empty otherwise.
  virtual std::string split_dwarf_source() { return {}; }
  // For DWARF that leaves names, types and inlined functions' origins to a
  // supplementary file (dwz -m: .gnu_debugaltlink or .debug_sup), which is
  // not read: which file, and what is missing for it; empty otherwise.
  virtual std::string unread_supplementary() { return {}; }
};

}  // namespace kpp::dwarf
