// The questions a symbol table answers (symbol_table.h), by walks of its
// entries (symbol_entries.h) or, past a few, from its sorted copies.
#include "dwarf/elf/symbol_table.h"

#include <algorithm>
#include <utility>

#include <llvm/Object/ELFObjectFile.h>

#include "dwarf/names.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// Past this many walks a sort (~5 ms on a vmlinux: 16-byte address/index pairs) costs less than
// more walks (~0.5 ms each).
constexpr int kWalksBeforeSort = 8;

// Code a probe can be placed on: a function, or an indirect function's
// resolver (STT_GNU_IFUNC: glibc's memcpy, strlen...), which perf probe
// counts as a function too.
bool is_code(uint8_t type) { return type == ELF::STT_FUNC || type == ELF::STT_GNU_IFUNC; }

}  // namespace

SymbolTable::SymbolTable(const object::ObjectFile &object, const SectionLayout &layout, SymbolSection which)
    : table_(object, which), layout_(&layout) {}

std::optional<uint64_t> SymbolTable::address_of(const Raw &raw) const {
  bool function = is_code(raw.type), data = raw.type == ELF::STT_OBJECT || raw.type == ELF::STT_COMMON;
  if (!function && !data) return std::nullopt;
  uint64_t address = raw.value;
  if (table_.machine() == ELF::EM_ARM && function) address &= ~uint64_t{1};  // the Thumb bit is not part of the address
  if ((address == 0 && layout_->empty()) || raw.name_offset == 0) return std::nullopt;
  // In a .ko, values are offsets into their section: add the section's base.
  if (!layout_->empty()) {
    if (raw.section == ELF::SHN_UNDEF || raw.section >= ELF::SHN_LORESERVE || layout_->base_of(raw.section) == 0)
      return std::nullopt;
    address += layout_->base_of(raw.section);
  }
  return address;
}

std::optional<ElfSymbol> SymbolTable::accept(const Raw &raw) const {
  auto address = address_of(raw);
  if (!address) return std::nullopt;
  uint64_t section = raw.section >= ELF::SHN_LORESERVE ? 0 : raw.section;
  return ElfSymbol{raw.name_view(), table_.version_of(raw), *address, raw.size, section, is_code(raw.type)};
}

bool SymbolTable::has_functions() const {
  bool found = false;
  table_.walk([&](const Raw &raw) {
    if (is_code(raw.type)) found = address_of(raw).has_value();
    return !found;
  });
  return found;
}

std::vector<uint32_t> SymbolTable::named_exactly(std::string_view name) {
  std::vector<uint32_t> indexes;
  for (uint32_t index : with_name_hash(name))
    if (table_.looked_up(index).name_view() == name) indexes.push_back(index);
  std::sort(indexes.begin(), indexes.end());
  return indexes;
}

std::vector<uint32_t> SymbolTable::with_name_hash(std::string_view name) {
  if (!names_sorted_) sort_names();
  uint64_t key = name_hash(name);
  std::vector<uint32_t> indexes;
  for (size_t i = first_not_below(by_name_, key); i < by_name_.size(); ++i) {
    Slot slot = by_name_[i];
    if (slot.key != key) break;
    indexes.push_back(slot.index);
  }
  return indexes;
}

bool SymbolTable::contains(std::string_view name) {
  if (!walk_instead_of_sort()) return !named_exactly(name).empty();
  // Where the strings hold the name, then an entry that points there.
  std::vector<uint32_t> at = table_.offsets_of({name}, std::string_view("\0", 1))[0];
  bool found = false;
  table_.walk([&](const Raw &raw) {
    found = std::binary_search(at.begin(), at.end(), raw.name_offset);
    return !found;
  });
  return found && !name.empty();
}

std::vector<std::optional<uint64_t>> SymbolTable::first_addresses(const std::vector<std::string_view> &names) {
  std::vector<std::optional<uint64_t>> found(names.size());
  // The names asked before are answered from then; the others by one walk.
  std::vector<std::string_view> unknown;
  std::vector<size_t> unknown_at;  // index into names
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto it = first_address_before_.find(names[i]); it != first_address_before_.end()) {
      found[i] = it->second;
    } else {
      unknown.push_back(names[i]);
      unknown_at.push_back(i);
    }
  }
  if (unknown.empty()) return found;
  if (!walk_instead_of_sort()) {
    for (size_t k = 0; k < unknown.size(); ++k)
      if (auto indexes = named_exactly(unknown[k]); !indexes.empty())
        found[unknown_at[k]] = table_.looked_up(indexes.front()).value;
    return found;
  }
  size_t left = unknown.size();
  // Where the strings hold each name; then one walk for all of them.
  std::vector<std::pair<uint32_t, size_t>> wanted;  // (string offset, index into names)
  std::vector<std::vector<uint32_t>> offsets = table_.offsets_of(unknown, std::string_view("\0", 1));
  for (size_t k = 0; k < unknown.size(); ++k)
    if (!unknown[k].empty())
      for (uint32_t at : offsets[k]) wanted.emplace_back(at, unknown_at[k]);
  std::sort(wanted.begin(), wanted.end());
  table_.walk([&](const Raw &raw) {
    auto it = std::lower_bound(wanted.begin(), wanted.end(), std::make_pair(raw.name_offset, size_t{0}));
    for (; it != wanted.end() && it->first == raw.name_offset; ++it)
      if (!found[it->second]) {
        found[it->second] = raw.value;
        --left;
      }
    return left > 0;
  });
  for (size_t k = 0; k < unknown.size(); ++k) first_address_before_.emplace(unknown[k], found[unknown_at[k]]);
  return found;
}

bool SymbolTable::walk_instead_of_sort() {
  if (sorted_) return false;
  if (++walks_ <= kWalksBeforeSort) return true;
  sort();  // by name only when a name is asked for
  return false;
}

std::vector<ElfSymbol> SymbolTable::functions_named(std::string_view name) {
  std::vector<ElfSymbol> found;
  if (name.empty()) return found;
  if (size_t at = name.find('@', 1); at != std::string_view::npos) {
    // A versioned name: the symbols of its source name with that version.
    std::string_view version = name.substr(at);
    while (version.starts_with('@')) version.remove_prefix(1);
    for (const ElfSymbol &sym : functions_named(name.substr(0, at)))
      if (sym.version == version) found.push_back(sym);
    return found;
  }
  auto named = [&](std::string_view symbol) { return symbol == name || source_name_of_symbol(symbol) == name; };
  // A probe asks for its function's symbols more than once (the bodies, then
  // whether the kernel holds the name twice).
  if (auto it = named_before_.find(name); it != named_before_.end()) return it->second;
  if (walk_instead_of_sort()) {
    // The name itself, or its source name followed by a compiler's suffix.
    std::vector<uint32_t> at = table_.offsets_of({name}, std::string_view("\0.@", 3))[0];
    table_.walk([&](const Raw &raw) {
      if (!is_code(raw.type) || !std::binary_search(at.begin(), at.end(), raw.name_offset)) return true;
      if (auto sym = accept(table_.named(raw)); sym && named(sym->name)) found.push_back(*sym);
      return true;
    });
    std::stable_sort(found.begin(), found.end(), [](const ElfSymbol &a, const ElfSymbol &b) { return a.address < b.address; });
    named_before_.emplace(name, found);
    return found;
  }
  // Sorted: candidates by a hash of the name (a function is filed under
  // its own name and its source name), then compared.
  std::vector<uint32_t> indexes = with_name_hash(name);
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  for (uint32_t index : indexes) {
    Raw raw = table_.looked_up(index);
    if (!is_code(raw.type)) continue;
    if (auto sym = accept(raw); sym && named(sym->name)) found.push_back(*sym);
  }
  std::stable_sort(found.begin(), found.end(), [](const ElfSymbol &a, const ElfSymbol &b) { return a.address < b.address; });
  return found;
}

std::optional<std::pair<std::string_view, uint64_t>> SymbolTable::symbolize(uint64_t address) {
  if (auto it = symbolized_before_.find(address); it != symbolized_before_.end()) return it->second;
  std::optional<ElfSymbol> best;
  if (walk_instead_of_sort()) {
    // The highest start at or below `address`; among aliases the first in
    // the table (a file's own static name before a global alias of it, as
    // loop_init before init_module). Only the winner's name is measured.
    std::optional<Raw> winner;
    uint64_t winner_address = 0;
    bool plain = table_.machine() != ELF::EM_ARM && layout_->empty();  // addresses are the values
    table_.walk([&](const Raw &raw) {
      if (plain && (raw.value > address || (winner && raw.value <= winner_address))) return true;
      auto at = address_of(raw);
      if (at && *at <= address && (!winner || *at > winner_address)) {
        winner = raw;
        winner_address = *at;
      }
      return true;
    });
    if (winner) best = accept(table_.named(*winner));
    std::optional<std::pair<std::string_view, uint64_t>> answer = symbol_covering(best, address);
    symbolized_before_.emplace(address, answer);
    return answer;
  } else {
    // The last start at or below `address`, then back to the first of its aliases.
    size_t above = address == UINT64_MAX ? by_address_.size() : first_not_below(by_address_, address + 1);
    if (above > 0) {
      uint64_t start = by_address_[above - 1].key;
      best = accept(table_.looked_up(by_address_[first_not_below(by_address_, start)].index));
    }
  }
  return symbol_covering(best, address);
}

std::optional<std::pair<std::string_view, uint64_t>> SymbolTable::symbol_covering(const std::optional<ElfSymbol> &best,
                                                                                 uint64_t address) {
  // A slot's key comes from the cache file: the symbol it names must start
  // at or below `address` (else the offset would wrap), whatever the key said.
  if (!best || best->address > address) return std::nullopt;
  // Several symbols can share an address (aliases); any one that covers it will do.
  if (best->size != 0 && address >= best->address + best->size) return std::nullopt;
  return std::make_pair(best->name, address - best->address);
}

std::vector<std::string_view> SymbolTable::function_source_names() const {
  std::vector<std::string_view> names;
  names.reserve(table_.count() / 2);
  table_.walk([&](const Raw &raw) {
    if (is_code(raw.type) && address_of(raw)) names.push_back(source_name_of_symbol(raw.name_view()));
    return true;
  });
  return names;
}

const std::vector<ElfSymbol> &SymbolTable::functions() {
  if (walk_instead_of_sort()) sort();
  if (!functions_) {
    functions_.emplace();
    for (const Slot &slot : by_address_)
      if (auto sym = accept(table_.raw_at(slot.index)); sym && sym->function) functions_->push_back(*sym);
  }
  return *functions_;
}

namespace {

// FNV-1a: a hash this file defines, so that a cached table means the same
// to every build of the tool.
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace

uint64_t SymbolTable::name_hash(std::string_view name) { return fnv1a(name); }

namespace {

// Slots made in table order, sorted by key with equal keys left in that
// order: a least-significant-digit radix sort, a byte at a time, skipping
// the bytes all keys share (a kernel's addresses all start ffffffff8...).
// ~2 ms for a vmlinux's ~120k symbols, where std::sort took ~7.
template <class Slot>
void radix_sort(std::vector<Slot> &slots) {
  std::vector<Slot> other(slots.size());
  for (int shift = 0; shift < 64; shift += 8) {
    size_t count[256] = {};
    for (const Slot &s : slots) ++count[(s.key >> shift) & 0xff];
    if (std::find(std::begin(count), std::end(count), slots.size()) != std::end(count)) continue;
    size_t at = 0;
    for (size_t &c : count) at += std::exchange(c, at);
    for (const Slot &s : slots) other[count[(s.key >> shift) & 0xff]++] = s;
    slots.swap(other);
  }
}

}  // namespace

size_t SymbolTable::first_not_below(std::span<const Slot> table, uint64_t key) const {
  size_t low = 0, high = table.size();
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    if (table[mid].key < key) low = mid + 1;
    else high = mid;
  }
  return low;
}

void SymbolTable::sort() {
  // (key, table index) pairs, 16 bytes each, made in table order so that
  // equal keys (aliases) stay in it: the function and data symbols by address.
  by_address_.reserve(table_.count());
  table_.walk([&](const Raw &raw) {
    if (auto address = address_of(raw)) by_address_.push_back({*address, raw.index, 0});
    return true;
  });
  radix_sort(by_address_);
  sorted_ = true;
}

void SymbolTable::add_names(const Raw &raw, std::vector<Slot> &by_name) const {
  if (raw.name_room == 0 || *raw.name == '\0') return;
  std::string_view own = raw.name_view();
  by_name.push_back({fnv1a(own), raw.index, 0});
  if (is_code(raw.type))
    if (std::string_view source = source_name_of_symbol(own); source != own) by_name.push_back({fnv1a(source), raw.index, 0});
}

void SymbolTable::sort_names() {
  // By name: every named symbol under its own name, a function also under its source name.
  by_name_.reserve(table_.count() + table_.count() / 4);
  table_.walk([&](const Raw &raw) {
    add_names(raw, by_name_);
    return true;
  });
  radix_sort(by_name_);
  names_sorted_ = true;
}

}  // namespace kpp::dwarf
