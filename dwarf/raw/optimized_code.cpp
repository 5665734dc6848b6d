#include "dwarf/raw/optimized_code.h"

namespace kpp::dwarf {

namespace {
constexpr uint64_t lang_assembly = 0x31, lang_mips_assembler = 0x8001;  // DW_LANG_Assembly, DW_LANG_Mips_Assembler
}

bool unit_says_optimized(std::optional<uint64_t> language, std::optional<std::string_view> producer) {
  if (language == lang_assembly || language == lang_mips_assembler) return true;
  if (!producer) return false;
  size_t at = producer->rfind(" -O");  // the last -O wins, as it does for gcc
  if (at == std::string_view::npos) return false;
  char level = at + 3 < producer->size() ? (*producer)[at + 3] : ' ';
  return level != '0';  // -O, -O1..3, -Os, -Og, -Ofast
}

}  // namespace kpp::dwarf
