#include "dwarf/lang/go_pclntab.h"

#include <algorithm>
#include <cstring>

#include "src/util/strings.h"

namespace kpp::dwarf {

namespace {

constexpr uint32_t go118_magic = 0xfffffff0, go120_magic = 0xfffffff1;
constexpr size_t max_name = 64 * 1024;  // a longer "name" is damage, not a function

template <typename T>
std::optional<T> read_at(std::string_view bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));  // little-endian: x86-64, the table's writer's order
  return value;
}

Error damaged(const std::string &what) { return Error(".gopclntab is damaged: " + what); }

// The header's word `index` (pointer-sized, after the 8 fixed bytes).
std::optional<uint64_t> header_word(std::string_view bytes, unsigned ptr_size, unsigned index) {
  uint64_t at = 8 + uint64_t{index} * ptr_size;
  if (ptr_size == 8) return read_at<uint64_t>(bytes, at);
  auto word = read_at<uint32_t>(bytes, at);
  return word ? std::optional<uint64_t>(*word) : std::nullopt;
}

}  // namespace

Result<GoFunctionTable> GoFunctionTable::parse(std::string_view bytes, uint64_t text_start) {
  auto magic = read_at<uint32_t>(bytes, 0);
  if (!magic || bytes.size() < 8 + 8 * 8) return damaged("it is shorter than its header");
  if (*magic != go118_magic && *magic != go120_magic)
    return Error(".gopclntab has magic " + hex(*magic) + ": only Go 1.18 and later's tables (0xfffffff0, 0xfffffff1) are read");
  unsigned ptr_size = static_cast<unsigned char>(bytes[7]);
  if (bytes[4] != 0 || bytes[5] != 0 || (ptr_size != 4 && ptr_size != 8)) return damaged("its header's fixed bytes are wrong");
  uint64_t count = *header_word(bytes, ptr_size, 0);
  uint64_t header_text = *header_word(bytes, ptr_size, 2);  // Go 1.18-1.19: the code's start; 1.20 on: 0
  uint64_t names_at = *header_word(bytes, ptr_size, 3), funcs_at = *header_word(bytes, ptr_size, 7);
  if (names_at >= bytes.size() || funcs_at >= bytes.size()) return damaged("a table offset is past its end");
  // The function table: count (entry offset, _func offset) pairs of 32-bit
  // words, then the end of the last function's code.
  if (count == 0 || count > (bytes.size() - funcs_at) / 8) return damaged("it says " + std::to_string(count) + " functions");
  uint64_t base = *magic == go118_magic && header_text ? header_text : text_start;
  // The names end where the next table starts (cutab, filetab, pctab, then the functions).
  uint64_t names_end = bytes.size();
  for (unsigned word = 4; word <= 7; ++word)
    if (uint64_t at = *header_word(bytes, ptr_size, word); at > names_at) names_end = std::min(names_end, at);
  std::string_view names = bytes.substr(names_at, names_end - names_at);
  std::string_view funcs = bytes.substr(funcs_at);
  GoFunctionTable table;
  table.functions_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    auto entry = read_at<uint32_t>(funcs, i * 8), info = read_at<uint32_t>(funcs, i * 8 + 4);
    auto end = read_at<uint32_t>(funcs, (i + 1) * 8);
    if (!entry || !info || !end || *end < *entry) return damaged("function " + std::to_string(i) + "'s entry is out of order");
    // The _func record: its entry offset again, then its name's offset.
    auto own_entry = read_at<uint32_t>(funcs, *info);
    auto name_off = read_at<int32_t>(funcs, uint64_t{*info} + 4);
    if (!own_entry || !name_off || *own_entry != *entry || *name_off < 0 || static_cast<uint64_t>(*name_off) >= names.size())
      return damaged("function " + std::to_string(i) + "'s record at " + hex(funcs_at + *info) + " does not match its entry");
    std::string_view rest = names.substr(*name_off, max_name);
    size_t nul = rest.find('\0');
    if (nul == std::string_view::npos || nul == 0) return damaged("function " + std::to_string(i) + " has no name");
    table.functions_.push_back({rest.substr(0, nul), base + *entry, base + *end});
  }
  return table;
}

std::vector<GoFunction> GoFunctionTable::named(std::string_view name) const {
  std::vector<GoFunction> found;
  for (const GoFunction &f : functions_)
    if (f.name == name) found.push_back(f);
  return found;
}

std::optional<GoFunction> GoFunctionTable::at(uint64_t address) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const GoFunction &f) { return a < f.entry; });
  if (it == functions_.begin()) return std::nullopt;
  --it;
  if (address >= it->end) return std::nullopt;
  return *it;
}

}  // namespace kpp::dwarf
