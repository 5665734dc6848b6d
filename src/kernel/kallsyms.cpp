#include "src/kernel/kallsyms.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "util/files.h"

namespace kpp {

Kallsyms Kallsyms::parse(const std::string &text) {
  Kallsyms k;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string address, type, name, module;
    if (!(words >> address >> type >> name) || type.size() != 1) continue;
    words >> module;
    KallsymsEntry e;
    e.address = std::strtoull(address.c_str(), nullptr, 16);
    e.type = type[0];
    e.name = std::move(name);
    if (module.size() > 2 && module.front() == '[' && module.back() == ']') e.module = module.substr(1, module.size() - 2);
    k.entries_.push_back(std::move(e));
  }
  std::stable_sort(k.entries_.begin(), k.entries_.end(),
                   [](const KallsymsEntry &a, const KallsymsEntry &b) { return a.address < b.address; });
  return k;
}

std::optional<Kallsyms> Kallsyms::read() {
  Result<std::string> text = read_whole_file("/proc/kallsyms");
  if (!text) return std::nullopt;
  Kallsyms k = parse(*text);
  if (k.entries_.empty() || k.addresses_hidden()) return std::nullopt;
  return k;
}

bool Kallsyms::addresses_hidden() const {
  return std::all_of(entries_.begin(), entries_.end(), [](const KallsymsEntry &e) { return e.address == 0; });
}

std::vector<uint64_t> Kallsyms::addresses_of(const std::string &name, const std::string &module) const {
  std::vector<uint64_t> out;
  for (const KallsymsEntry &e : entries_)
    if (e.name == name && e.module == module) out.push_back(e.address);
  return out;
}

size_t Kallsyms::count(const std::string &name) const {
  return std::count_if(entries_.begin(), entries_.end(), [&](const KallsymsEntry &e) { return e.name == name; });
}

bool Kallsyms::has_module(const std::string &module) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const KallsymsEntry &e) { return e.module == module; });
}

const KallsymsEntry *Kallsyms::code_symbol_at(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const KallsymsEntry &e) { return a < e.address; });
  // Code symbols only: markers and data (_stext, __start_*) share addresses with them.
  while (it != entries_.begin()) {
    --it;
    if (it->type == 't' || it->type == 'T') return &*it;
  }
  return nullptr;
}

std::optional<std::pair<std::string, uint64_t>> Kallsyms::symbolize(uint64_t address) const {
  const KallsymsEntry *e = code_symbol_at(address);
  if (!e) return std::nullopt;
  return std::make_pair(e->name, address - e->address);
}

std::optional<std::pair<uint64_t, uint64_t>> Kallsyms::function_range(uint64_t address) const {
  auto symbol = symbolize(address);
  if (!symbol) return std::nullopt;
  uint64_t start = address - symbol->second;
  auto next = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t a, const KallsymsEntry &e) { return a < e.address; });
  return std::make_pair(start, next == entries_.end() ? UINT64_MAX : next->address);
}

std::optional<std::pair<std::string, uint64_t>> Kallsyms::at_text_offset(uint64_t offset) const {
  auto text = addresses_of("_text", "");
  if (text.size() != 1) return std::nullopt;
  return symbolize(text[0] + offset);
}

}  // namespace kpp
