// A DebugInfo with no file behind it: only the symbol queries answer (from
// maps), the rest is empty. Enough for FetchFormatter's kernel globals. It is
// its own ElfFacts (elf()) and DwarfProvenance (provenance()), and follows
// the pure virtuals of all three: a new one needs a line here.
#pragma once

#include <map>
#include <string>

#include "dwarf/debug_info.h"

namespace kpp::testing_support {

class FakeDebugInfo : public dwarf::DebugInfo, public dwarf::ElfFacts, public dwarf::DwarfProvenance {
 public:
  // Symbols as {start address -> name}; each covers up to the next.
  std::map<uint64_t, std::string> symbols;
  // Marker symbols (_text, __noinstr_text_start) for symbol_addresses().
  std::map<std::string, uint64_t> markers;
  uint16_t e_machine = 62;  // EM_X86_64

  dwarf::ElfFacts &elf() override { return *this; }
  const dwarf::ElfFacts &elf() const override { return *this; }
  dwarf::DwarfProvenance &provenance() override { return *this; }
  const dwarf::DwarfProvenance &provenance() const override { return *this; }
  const std::string &debug_path() const override { return path_; }
  const std::string &path() const override { return path_; }
  uint16_t machine() const override { return e_machine; }
  bool is_kernel() const override { return false; }
  std::string build_id() const override { return {}; }
  std::vector<dwarf::Function> find_functions(const std::string &, const std::string &,
                                             dwarf::InlineCopies) override {
    return {};
  }
  std::vector<dwarf::Function> function_symbols(const std::string &) override { return {}; }
  std::vector<std::string> similar_functions(const std::string &, size_t) override { return {}; }
  uint64_t probe_entry(const dwarf::Function &fn) override { return fn.entry; }
  std::vector<dwarf::LineSite> line_sites_in(const dwarf::Function &, int) override { return {}; }
  std::vector<int> lines_with_code(const dwarf::Function &) override { return {}; }
  std::vector<std::pair<dwarf::LineSite, dwarf::Function>> file_line_sites(const std::string &, int) override {
    return {};
  }
  std::vector<dwarf::Variable> variables_at(const dwarf::Function &, uint64_t) override { return {}; }
  std::optional<dwarf::Variable> variable_at(const dwarf::Function &, uint64_t, std::string_view) override {
    return std::nullopt;
  }
  dwarf::TypeRef return_type(const dwarf::Function &) override { return {}; }
  dwarf::TypeInfo describe(dwarf::TypeRef) override { return {}; }
  std::optional<dwarf::Member> member(dwarf::TypeRef, const std::string &) override { return std::nullopt; }
  std::vector<std::string> member_names(dwarf::TypeRef) override { return {}; }
  std::vector<std::string_view> function_names() override { return {}; }
  std::vector<dwarf::LineSite> line_rows(const dwarf::Function &) override { return {}; }
  std::string find_source_file(const std::string &) override { return {}; }
  std::optional<dwarf::SourcePlace> source_of(uint64_t) override { return std::nullopt; }
  std::optional<uint64_t> address_of_file_offset(uint64_t) override { return std::nullopt; }
  Result<uint64_t> file_offset(uint64_t) override { return Error("no file"); }
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address) override {
    auto it = symbols.upper_bound(address);
    if (it == symbols.begin()) return std::nullopt;
    --it;
    return std::make_pair(it->second, address - it->first);
  }
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names) override {
    std::map<std::string, uint64_t> found;
    for (const std::string &n : names)
      if (auto it = markers.find(n); it != markers.end()) found.insert(*it);
    return found;
  }
  std::vector<uint64_t> function_symbol_addresses(const std::string &name) override {
    std::vector<uint64_t> found;
    for (const auto &[address, n] : symbols)
      if (n == name) found.push_back(address);
    return found;
  }
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address) override {
    for (auto it = symbols.upper_bound(address); it != symbols.begin();) {
      --it;
      if (function_symbol_addresses(it->second).size() == 1) return std::make_pair(it->second, address - it->first);
    }
    return std::nullopt;
  }

 private:
  std::string path_ = "/nonexistent";
};

}  // namespace kpp::testing_support
