// A stripped program's DWARF from its separate debug file (see
// debug_link.h for where we look). Only the DWARF moves: symbols, load
// segments and file offsets stay the program's, since uprobes are placed on
// the program's path and offsets.
#include <unistd.h>

#include <llvm/Support/Error.h>

#include "dwarf/debug_link.h"
#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

std::optional<DebugLink> debug_link_of(const object::ObjectFile &obj) {
  for (const object::SectionRef &section : obj.sections()) {
    auto name = section.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (*name != ".gnu_debuglink") continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      return std::nullopt;
    }
    return parse_debug_link(std::string_view(contents->data(), contents->size()), obj.isLittleEndian());
  }
  return std::nullopt;
}

}  // namespace

Status LlvmDebugInfo::attach_separate_debug() {
  const object::ObjectFile &program = *binary_.getBinary();
  std::optional<DebugLink> link = debug_link_of(program);
  std::string tried;
  for (const DebugCandidate &candidate : separate_debug_candidates(path_, build_id_, link, debug_root())) {
    std::string why;
    if (access(candidate.path.c_str(), R_OK) != 0) {
      why = "not found";
    } else if (candidate.crc && file_crc32(candidate.path) != candidate.crc) {
      // A debug file from another build of the program would put probes and
      // variables at wrong places: the CRC the link carries must match.
      why = "CRC32 does not match .gnu_debuglink's";
    } else {
      auto binary = open_mapped_object(candidate.path);
      if (!binary) {
        why = binary.error().message;
      } else if (!binary->binary.getBinary()->isELF() || binary->binary.getBinary()->getArch() != program.getArch()) {
        why = "not an ELF file for the same machine";
      } else {
        auto context = DWARFContext::create(*binary->binary.getBinary(), DWARFContext::ProcessDebugRelocations::Process,
                                            layout_->empty() ? nullptr : layout_.get(), path_ + ".dwp",
                                            [](llvm::Error e) { consumeError(std::move(e)); },
                                            [](llvm::Error e) { consumeError(std::move(e)); });
        map_headers_alone(*context, candidate.path, binary->mapping);
        if (context->getNumCompileUnits() == 0) {
          why = "no .debug_info in it";
        } else {
          context_ = std::move(context);
          headers_mapped_ = true;
          debug_binary_ = std::move(binary->binary);
          debug_mapping_ = binary->mapping;
          debug_path_ = candidate.path;
          // A fully stripped program has no .symtab (at most the exported
          // .dynsym); the debug file keeps the whole table.
          if (symbols_are_dynamic_ || !symbols_.has_functions()) {
            SymbolTable full(*debug_binary_.getBinary(), *layout_);
            if (full.has_functions()) {
              symbols_ = std::move(full);
              symbols_.read_lookups_from(debug_path_, debug_mapping_);
              symbols_are_dynamic_ = false;
            }
          }
          return Ok{};
        }
      }
    }
    tried += (tried.empty() ? "" : ", ") + candidate.path + " (" + why + ")";
  }
  // Without DWARF the symbol tables still serve: a note, not an error.
  no_dwarf_note_ = "'" + path_ + "' has no DWARF (no .debug_info; " +
                   (tried.empty() ? std::string("neither a build-id nor a .gnu_debuglink to find a debug file by")
                                  : "debug files tried: " + tried) +
                   ")";
  return Error(no_dwarf_note_, "rebuild it with -g, or install its debug symbols (the -dbg/-dbgsym package; "
                               "KPP_DEBUG_ROOT names a debug tree other than /usr/lib/debug)");
}

}  // namespace kpp::dwarf
