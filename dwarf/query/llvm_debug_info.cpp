// Opening a program's debug info: its ELF image (dwarf/elf/elf_image.h), and
// the parts LlvmDebugInfo is composed of (llvm_debug_info.h).
#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string &path, const OpenOptions &options) {
  auto image = ElfImage::open(path);
  if (!image) return std::move(image).error();
  return std::unique_ptr<DebugInfo>(std::make_unique<LlvmDebugInfo>(std::move(*image), options));
}

// The function index is made with the object, from its ELF facts: files_
// (which hold the image) and open_options_ are members declared before it.
LlvmDebugInfo::LlvmDebugInfo(ElfImage image, OpenOptions options)
    : files_(std::move(image), options),
      open_options_(std::move(options)),
      function_index_(index_inputs_,
                      FunctionIndex::Target{image_.path(), image_.build_id(),
                                            !image_.object().isRelocatableObject() && image_.object().isLittleEndian()},
                      open_options_) {
  // No DWARF anywhere is a mode, as in perf probe: the symbol tables still
  // place function entries, returns and offsets (has_dwarf(), dwarf_note()).
  if (!files_.has_debug_info()) (void)files_.attach_separate_debug();
}

}  // namespace kpp::dwarf
