// A Go program stripped of its symbol table and DWARF (-ldflags='-s -w')
// still names its functions through Go's own table (go_pclntab.h): the
// symbol questions of such a file are answered from it.
#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

const GoFunctionTable *LlvmDebugInfo::go_table() {
  if (!go_table_read_) {
    go_table_read_ = true;
    if (image_.symbols().has_functions() || !image_.is_go_program()) return nullptr;
    std::optional<ElfImage::SectionBytes> table = image_.section_named(".gopclntab");
    std::optional<ElfImage::SectionBytes> text = image_.section_named(".text");
    if (!table || !text) {
      go_table_error_ = "the Go program has no .gopclntab or .text section with contents";
      return nullptr;
    }
    Result<GoFunctionTable> parsed = GoFunctionTable::parse(table->bytes, text->address);
    if (!parsed) go_table_error_ = parsed.error().message;
    else go_table_ = std::move(*parsed);
  }
  return go_table_ ? &*go_table_ : nullptr;
}

std::optional<std::pair<std::string, uint64_t>> LlvmDebugInfo::symbolize(uint64_t at) {
  if (auto sym = image_.symbolize(at)) return sym;
  const GoFunctionTable *table = go_table();
  std::optional<GoFunction> fn = table ? table->at(at) : std::nullopt;
  if (!fn) return std::nullopt;
  return std::make_pair(std::string(fn->name), at - fn->entry);
}

}  // namespace kpp::dwarf
