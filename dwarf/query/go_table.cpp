// A Go program stripped of its symbol table and DWARF (-ldflags='-s -w')
// still names its functions through Go's own table (go_pclntab.h): the
// symbol questions of such a file are answered from it.
#include "dwarf/query/go_code.h"

namespace kpp::dwarf {

const GoFunctionTable *GoCode::table() {
  if (!table_read_) {
    table_read_ = true;
    ElfImage &image = files_.image();
    if (image.symbols().has_functions() || !image.is_go_program()) return nullptr;
    std::optional<ElfImage::SectionBytes> table = image.section_named(".gopclntab");
    std::optional<ElfImage::SectionBytes> text = image.section_named(".text");
    if (!table || !text) return nullptr;  // no .gopclntab or .text section with contents
    // A damaged table names nothing: the file answers as without it.
    if (Result<GoFunctionTable> parsed = GoFunctionTable::parse(table->bytes, text->address))
      table_ = std::move(*parsed);
  }
  return table_ ? &*table_ : nullptr;
}

std::optional<std::pair<std::string, uint64_t>> GoCode::symbolize(uint64_t at) {
  if (auto sym = files_.image().symbolize(at)) return sym;
  const GoFunctionTable *table = this->table();
  std::optional<GoFunction> fn = table ? table->at(at) : std::nullopt;
  if (!fn) return std::nullopt;
  return std::make_pair(std::string(fn->name), at - fn->entry);
}

}  // namespace kpp::dwarf
