// A stripped program's separate debug file, found and checked
// (separate_debug.h; debug_link.h for where we look). Only the DWARF moves:
// load segments and file offsets stay the program's (its ELF image's), since
// uprobes are placed on the program's path and offsets; so do its symbols,
// unless it has no .symtab and the debug file has one (ElfImage::adopt_symbols_of).
#include <unistd.h>

#include <llvm/Support/Error.h>

#include "dwarf/debuginfod.h"
#include "dwarf/elf/elf_image.h"  // build_id_of
#include "dwarf/elf/mapped_object.h"
#include "dwarf/source/debug_link.h"
#include "dwarf/source/debuginfod_background.h"
#include "dwarf/source/separate_debug.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// The contents of the first section named `wanted`; nullopt when there is
// none or it cannot be read.
std::optional<StringRef> section_named(const object::ObjectFile &obj, StringRef wanted) {
  for (const object::SectionRef &section : obj.sections()) {
    auto name = section.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (*name != wanted) continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      return std::nullopt;
    }
    return *contents;
  }
  return std::nullopt;
}

// Whether `obj` has a section named `wanted` with contents.
bool has_section(const object::ObjectFile &obj, StringRef wanted) {
  std::optional<StringRef> contents = section_named(obj, wanted);
  return contents && !contents->empty();
}

std::optional<DebugLink> debug_link_of(const object::ObjectFile &obj) {
  std::optional<StringRef> contents = section_named(obj, ".gnu_debuglink");
  if (!contents) return std::nullopt;
  return parse_debug_link(std::string_view(contents->data(), contents->size()), obj.isLittleEndian());
}

// Where the program's debug file may be, in the order tried: the local
// places, then (by build-id) the debuginfod servers.
std::vector<DebugCandidate> debug_candidates(const object::ObjectFile &program, const std::string &path,
                                             const std::string &build_id) {
  std::vector<DebugCandidate> candidates =
      separate_debug_candidates(path, build_id, debug_link_of(program), debug_root());
  if (!build_id.empty() && debuginfod_enabled()) candidates.push_back({"", std::nullopt, true});
  return candidates;
}

// The file at `candidate.path`, opened, when it is the debug file of
// `program` (of build-id `build_id`); else why not, as the error's message.
Result<MappedObject> open_debug_file(const DebugCandidate &candidate, const object::ObjectFile &program,
                                     const std::string &build_id) {
  if (access(candidate.path.c_str(), R_OK) != 0) return Error("not found");
  // A debug file from another build of the program would put probes and
  // variables at wrong places: the CRC the link carries must match.
  if (candidate.crc && file_crc32(candidate.path) != candidate.crc)
    return Error("CRC32 does not match .gnu_debuglink's");
  auto file = open_mapped_object(candidate.path);
  if (!file) return std::move(file).error();
  const object::ObjectFile &debug = *file->binary.getBinary();
  if (!debug.isELF() || debug.getArch() != program.getArch()) return Error("not an ELF file for the same machine");
  // A file a debuginfod server sent is taken only when it carries the build-id it was asked for.
  if (candidate.from_debuginfod && build_id_of(debug) != build_id)
    return Error("from the server, but not the debug file of build-id " + build_id);
  if (!has_section(debug, ".debug_info") && !has_section(debug, ".zdebug_info")) return Error("no .debug_info in it");
  return file;
}

// The note a program without DWARF gets: where its debug file was looked for.
std::string missing_dwarf_note(const std::string &path, const std::string &tried) {
  return "'" + path + "' has no DWARF (no .debug_info; " +
         (tried.empty() ? std::string("neither a build-id nor a .gnu_debuglink to find a debug file by")
                        : "debug files tried: " + tried) +
         ")";
}

}  // namespace

Result<std::string> SeparateDebugFile::fetch_from_debuginfod(const std::string &build_id, const OpenOptions &options) {
  DebuginfodBackground *background = options.debuginfod_background;
  if (!background && !options.debuginfod_fetch) {
    if (auto cached = debuginfod_cached_debuginfo(build_id)) return *cached;
    return Error("the debug info of build-id " + build_id + " is not in the debuginfod cache (not fetched here)");
  }
  if (!background) return debuginfod_find_debuginfo(build_id);
  DebuginfodBackground::Answer answer = background->debuginfo(build_id);
  if (answer.state == DebuginfodBackground::State::Ready) return answer.text;
  if (answer.state == DebuginfodBackground::State::Failed) return Error(answer.text);
  awaited_build_id_ = build_id;
  return Error("the debug info of build-id " + build_id + " is being fetched from debuginfod");
}

Status SeparateDebugFile::find(const object::ObjectFile &program, const std::string &path, const std::string &build_id,
                               const OpenOptions &options) {
  std::string tried;
  for (DebugCandidate &candidate : debug_candidates(program, path, build_id)) {
    if (candidate.from_debuginfod) {
      // Fetched only when nothing local was found; then checked as a local file is.
      auto fetched = fetch_from_debuginfod(build_id, options);
      if (!fetched) {
        tried += "\n    " + fetched.error().message;
        continue;
      }
      candidate.path = *fetched;
    }
    auto file = open_debug_file(candidate, program, build_id);
    if (!file) {
      tried += (tried.empty() ? "" : ", ") + candidate.path + " (" + file.error().message + ")";
      continue;
    }
    // Its DWARF is read on first use (context()): -F and bare return
    // probes need only its symbol table, not its inflated sections.
    file_ = std::move(*file);
    path_ = candidate.path;
    return Ok{};
  }
  // Without DWARF the symbol tables still serve: a note, not an error.
  not_found_note_ = missing_dwarf_note(path, tried);
  return Error(not_found_note_, "rebuild it with -g, or install its debug symbols (the -dbg/-dbgsym package; "
                               "KPP_DEBUG_ROOT names a debug tree other than /usr/lib/debug), or name debuginfod "
                               "servers in DEBUGINFOD_URLS");
}

}  // namespace kpp::dwarf
