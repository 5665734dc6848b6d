// Where a program's DWARF is read from (private to dwarf/): the program's
// ELF image, its separate debug file (build-id, .gnu_debuglink, debuginfod:
// separate_debug.h) or an inflated copy of either (inflated_copy.h),
// and LLVM's context over it, made on first use (dwarf_files.cpp). One job,
// the files: LlvmDebugInfo (dwarf/query/llvm_debug_info.h) asks the questions.
// The image is owned here, declared after the debug file whose symbol table
// it may adopt (ElfImage::adopt_symbols_of), so that it is destroyed first.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ObjectFile.h>

#include "dwarf/debug_info.h"
#include "dwarf/elf/elf_image.h"
#include "dwarf/elf/mapped_object.h"
#include "dwarf/index/name_index.h"
#include "dwarf/index/name_search.h"
#include "dwarf/raw/raw_sections.h"
#include "dwarf/source/dwarf_problems.h"
#include "dwarf/source/inflated_copy.h"
#include "dwarf/source/separate_debug.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

// Where this run keeps cache files of a binary: the directory and the
// binary's key (dwarf/index/index_cache.h).
struct CacheHome {
  std::string directory;
  IndexKey key;
  uint64_t max_bytes = 0;
};

// map_unit_headers_alone() for the .debug_info of `context`, read from the
// file at `path` through `mapping`: called before LLVM reads the unit headers.
// Returns where the units start (kept in the cache as a .units file).
std::vector<UnitStart> map_headers_alone(llvm::DWARFContext &context, const std::string &path, std::string_view mapping,
                                         std::span<const UnitStart> known = {});

class DwarfFiles {
 public:
  DwarfFiles(ElfImage image, OpenOptions options) : image_(std::move(image)), options_(std::move(options)) {}

  ElfImage &image() { return image_; }
  const ElfImage &image() const { return image_; }
  // The separate debug file the DWARF comes from, else the program.
  const std::string &debug_path() const { return debug_.path().empty() ? image_.path() : debug_.path(); }

  // Whether the program has a .debug_info (its units are not read yet).
  bool has_debug_info() const;
  // For a program without DWARF: finds its separate debug file (build-id,
  // .gnu_debuglink, debuginfod: separate_debug.h), reads the DWARF from it,
  // and the symbols too when the program has no .symtab.
  // The error lists every path tried; no_dwarf_note() names them after a failure.
  Status attach_separate_debug();
  // Set when no DWARF was found: where it was looked for.
  const std::string &no_dwarf_note() const { return debug_.not_found_note(); }
  // The build-id whose debug file is being fetched in the background.
  const std::string &awaited_build_id() const { return debug_.awaited_build_id(); }
  // What the DWARF leaves to a supplementary file, unread (supplementary.cpp).
  std::string unread_supplementary() const;

  // Made on first use, none of its DIEs checked: for the raw readers (the
  // name index's scan, .debug_aranges) and the unit checks.
  llvm::DWARFContext &context();
  // context(), its unit headers isolated (isolate_headers) before the first
  // query makes LLVM read them all: a probe that needs no DWARF (FUNC%return,
  // -F) never maps them.
  llvm::DWARFContext &mapped_dwarf();
  // The separate debug file's object; null when the program holds its DWARF.
  const llvm::object::ObjectFile *debug_object() const { return debug_.object(); }
  // The mapping the DWARF is read from (empty when it is not a file mapping), and its file.
  std::string_view dwarf_mapping() const {
    return inflated_.object() ? inflated_.mapping() : debug_.object() ? debug_.mapping() : image_.mapping();
  }
  const std::string &dwarf_file() const { return inflated_.path().empty() ? debug_path() : inflated_.path(); }
  // Whether LLVM reads the DIEs from the cache's inflated copy, which a
  // crafted copy could replace after a verdict on the first; the file LLVM
  // reads the DIEs from, for messages.
  bool dies_from_cached_image() const { return inflated_.is_cached(); }
  std::string dies_file() const { return dies_from_cached_image() ? inflated_.path() : debug_path(); }
  // Removes a damaged inflated copy from the cache: whether it was removed.
  bool remove_cached_image() const { return inflated_.remove_from_cache(); }
  std::vector<std::string> problems() const { return problems_.messages(); }

  // Where this run keeps cache files of `binary` (the program, or the
  // DWARF's file); nullopt with --no-cache or without a directory
  // (cache_refused() then says why, for -v).
  std::optional<CacheHome> cache_home(const std::string &binary) const;
  const std::string &cache_refused() const { return cache_refused_; }
  // The raw sections the function index reads (dwarf/index/function_index.h),
  // and the DWARF's file open for its searches' pread(2) (closed with this object).
  DwarfBytes raw_dwarf();
  MappedFile searched_file();
  // Gives back the pages of the files' mappings read so far (see
  // dwarf/elf/mapped_object.h): after open, after the index scan.
  void drop_mapped_pages();

 private:
  SeparateDebugFile debug_;  // none found (or looked for): the program has its DWARF
  ElfImage image_;
  const OpenOptions options_;
  // The DWARF's file with its compressed sections inflated: a cache file, or
  // a memfd with --no-cache (inflated_copy.h).
  InflatedCopy inflated_;
  std::unique_ptr<llvm::DWARFContext> context_;
  DwarfProblems problems_;  // what LLVM's handlers of context_ report
  bool headers_mapped_ = false;
  mutable std::string cache_refused_;
  UniqueFd searched_fd_;
  bool searched_fd_opened_ = false;
};

}  // namespace kpp::dwarf
