// A symbol table's entries and strings (symbol_entries.h).
#include "dwarf/elf/symbol_entries.h"

#include <algorithm>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <llvm/Object/ELFObjectFile.h>

#include "dwarf/index/name_search.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// Whether every symbol table lies inside the file. LLVM walks a table by its
// header's size and makes an error for each entry past the end: a hostile
// header claiming billions of entries would take minutes (found by tests/fuzz).
bool symbol_tables_fit(const object::ObjectFile &obj) {
  uint64_t file_size = obj.getData().size();
  for (const object::SectionRef &section : obj.sections()) {
    object::ELFSectionRef elf(section);
    if (elf.getType() != ELF::SHT_SYMTAB && elf.getType() != ELF::SHT_DYNSYM) continue;
    uint64_t offset = elf.getOffset(), size = section.getSize();
    if (offset > file_size || size > file_size - offset) return false;
  }
  return true;
}

}  // namespace

std::string_view SymbolEntries::Raw::name_view() const { return {name, strnlen(name, name_room)}; }



template <class ELFT>
void SymbolEntries::read_table(const object::ELFFile<ELFT> &elf, unsigned section_type) {
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return;
  }
  for (const auto &sh : *sections) {
    if (sh.sh_type != section_type) continue;
    auto symbols = elf.symbols(&sh);
    auto strings = elf.getStringTableForSymtab(sh);
    if (!symbols || !strings) {
      if (!symbols) consumeError(symbols.takeError());
      if (!strings) consumeError(strings.takeError());
      return;
    }
    strings_ = std::string_view(strings->data(), strings->size());
    bool in_place = ELFT::Is64Bits && ELFT::Endianness == llvm::endianness::native &&
                    llvm::endianness::native == llvm::endianness::little &&
                    reinterpret_cast<uintptr_t>(symbols->data()) % alignof(Entry) == 0;
    if (in_place) {
      entries_ = reinterpret_cast<const Entry *>(symbols->data());
    } else {
      converted_.reserve(symbols->size());
      for (const auto &sym : *symbols)
        converted_.push_back({static_cast<uint32_t>(sym.st_name), sym.st_info, sym.st_other,
                              static_cast<uint16_t>(sym.st_shndx), static_cast<uint64_t>(sym.st_value),
                              static_cast<uint64_t>(sym.st_size)});
      entries_ = converted_.data();
    }
    entry_count_ = symbols->size();
    return;  // the first symbol table, as LLVM's symbols() reads
  }
}

SymbolEntries::SymbolEntries(const object::ObjectFile &object, SymbolSection which) {
  // Without a readable symbol table, functions are found in the DWARF alone.
  if (!symbol_tables_fit(object)) return;
  unsigned type = which == SymbolSection::Dynamic ? ELF::SHT_DYNSYM : ELF::SHT_SYMTAB;
  const auto *elf = dyn_cast<object::ELFObjectFileBase>(&object);
  if (elf) machine_ = elf->getEMachine();
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&object)) read_table(e->getELFFile(), type);
  else if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&object)) read_table(e->getELFFile(), type);
  else if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&object)) read_table(e->getELFFile(), type);
  else if (const auto *e = dyn_cast<object::ELF32BEObjectFile>(&object)) read_table(e->getELFFile(), type);
  if (which != SymbolSection::Dynamic || !elf || entry_count_ == 0) return;
  // LLVM gives one version per symbol after the null one at index 0.
  auto versions = elf->readDynsymVersions();
  if (!versions) {
    consumeError(versions.takeError());
    return;
  }
  if (versions->size() + 1 != entry_count_) return;
  versions_.resize(entry_count_);
  for (size_t i = 0; i < versions->size(); ++i)
    if (!(*versions)[i].Name.empty()) versions_[i + 1] = ((*versions)[i].IsVerDef ? "@@" : "@") + (*versions)[i].Name;
}

std::string_view SymbolEntries::version_of(const Raw &raw) const {
  std::string_view with_at;
  if (!versions_.empty()) {
    if (raw.index < versions_.size()) with_at = versions_[raw.index];
  } else if (raw.name_room > 0) {
    std::string_view name = raw.name_view();
    if (size_t at = name.find('@', 1); at != std::string_view::npos) with_at = name.substr(at);
  }
  while (with_at.starts_with('@')) with_at.remove_prefix(1);
  return with_at;
}

SymbolEntries::Raw SymbolEntries::raw_at(uint32_t index) const {
  static const Entry none{};
  const Entry &e = index < entry_count_ ? entries_[index] : none;
  uint32_t name = e.name < strings_.size() ? e.name : 0;  // (a walk skips such an entry)
  size_t room = e.name < strings_.size() ? strings_.size() - name : 0;
  return Raw{strings_.data() + name, room, name, e.value, e.size, static_cast<uint8_t>(e.info & 0xf), e.section, index};
}

void SymbolEntries::read_lookups_from(const std::string &path, std::string_view mapping) {
  auto inside = [&](const void *p, size_t n) {
    auto *c = static_cast<const char *>(p);
    return !mapping.empty() && c >= mapping.data() && c + n <= mapping.data() + mapping.size();
  };
  if (entry_count_ == 0 || !converted_.empty() || !inside(entries_, entry_count_ * sizeof(Entry)) ||
      !inside(strings_.data(), strings_.size()))
    return;
  file_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  table_offset_ = static_cast<uint64_t>(reinterpret_cast<const char *>(entries_) - mapping.data());
  strings_offset_ = static_cast<uint64_t>(strings_.data() - mapping.data());
  mapping_ = mapping;
}

bool SymbolEntries::read_entries(size_t first, size_t count, Entry *into) const {
  return pread_fully(file_.get(), into, count * sizeof(Entry), table_offset_ + first * sizeof(Entry));
}

std::vector<std::vector<uint32_t>> SymbolEntries::offsets_of(const std::vector<std::string_view> &names,
                                                           std::string_view ends) const {
  std::vector<std::string> needles;
  for (std::string_view name : names)
    for (char end : ends) needles.push_back(std::string(name) + end);
  std::vector<std::vector<uint32_t>> offsets(names.size());
  // With the file, the strings are searched with pread; without (a table
  // in memory), in place.
  auto hits = find_in_section(strings_, needles, 1, file_.valid() ? MappedFile{file_.get(), mapping_} : MappedFile{});
  if (!hits) return offsets;
  // Each hit back to the names it spells (read again with pread: a few bytes each).
  size_t longest = 0;
  for (std::string_view name : names) longest = std::max(longest, name.size() + 1);
  std::string have(longest, '\0');
  for (uint64_t at : *hits) {
    size_t want = std::min<size_t>(longest, strings_.size() - at);
    std::string_view text = strings_.substr(at, want);
    if (file_.valid()) {
      ssize_t n = ::pread(file_.get(), have.data(), want, static_cast<off_t>(strings_offset_ + at));
      if (n <= 0) continue;
      text = std::string_view(have.data(), static_cast<size_t>(n));
    }
    for (size_t i = 0; i < names.size(); ++i)
      if (text.size() > names[i].size() && text.starts_with(names[i]) &&
          ends.find(text[names[i].size()]) != std::string_view::npos)
        offsets[i].push_back(static_cast<uint32_t>(at));
  }
  for (auto &o : offsets) {
    std::sort(o.begin(), o.end());
    o.erase(std::unique(o.begin(), o.end()), o.end());
  }
  return offsets;
}

SymbolEntries::Raw SymbolEntries::looked_up(uint32_t index) const {
  if (!file_.valid() || index >= entry_count_) return raw_at(index);
  Entry e{};
  if (::pread(file_.get(), &e, sizeof e, static_cast<off_t>(table_offset_ + uint64_t{index} * sizeof e)) !=
      static_cast<ssize_t>(sizeof e))
    return raw_at(index);
  Raw raw{strings_.data(), 0, 0, e.value, e.size, static_cast<uint8_t>(e.info & 0xf), e.section, index};
  if (e.name == 0 || e.name >= strings_.size()) return raw;
  // The name, read up to its NUL into names_read_ (whose strings stay put).
  std::string name;
  char chunk[128];
  for (uint64_t at = e.name; at < strings_.size();) {
    size_t want = std::min<uint64_t>(sizeof chunk, strings_.size() - at);
    ssize_t n = ::pread(file_.get(), chunk, want, static_cast<off_t>(strings_offset_ + at));
    if (n <= 0) return raw_at(index);
    const void *nul = std::memchr(chunk, '\0', static_cast<size_t>(n));
    name.append(chunk, nul ? static_cast<const char *>(nul) - chunk : static_cast<size_t>(n));
    if (nul) break;
    at += static_cast<uint64_t>(n);
  }
  const std::string &kept = names_read_.emplace_back(std::move(name));
  raw.name = kept.c_str();
  raw.name_room = kept.size() + 1;
  raw.name_offset = e.name;
  return raw;
}

}  // namespace kpp::dwarf
