#include "dwarf/lang/rust_names.h"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <vector>

#include <llvm/Demangle/Demangle.h>

namespace kpp::dwarf {

namespace {

// The element's escapes decoded ("drop_in_place$LT$std..rt..X$GT$" ->
// "drop_in_place<std::rt::X>"); nullopt for an escape rustc does not write.
std::optional<std::string> decode_legacy_element(std::string_view e) {
  if (e.starts_with("_$")) e.remove_prefix(1);  // an element may not start with '$': rustc put '_' first
  static constexpr std::pair<std::string_view, char> named[] = {{"SP", '@'}, {"BP", '*'}, {"RF", '&'}, {"LT", '<'},
                                                                {"GT", '>'}, {"LP", '('}, {"RP", ')'}, {"C", ','}};
  std::string out;
  for (size_t i = 0; i < e.size();) {
    if (e.substr(i, 2) == "..") {
      out += "::";
      i += 2;
    } else if (e[i] == '$') {
      size_t close = e.find('$', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view code = e.substr(i + 1, close - i - 1);
      char decoded = 0;
      for (auto [name, c] : named)
        if (code == name) decoded = c;
      if (!decoded && code.size() == 3 && code[0] == 'u' && std::isxdigit(static_cast<unsigned char>(code[1])) &&
          std::isxdigit(static_cast<unsigned char>(code[2])))
        decoded = static_cast<char>(std::strtoul(std::string(code.substr(1)).c_str(), nullptr, 16));
      if (!decoded || decoded < 0x20) return std::nullopt;
      out += decoded;
      i = close + 1;
    } else {
      out += e[i++];
    }
  }
  return out;
}

// "_ZN" then length-prefixed elements then "E", the last element the hash.
std::optional<RustName> demangle_legacy(std::string_view symbol) {
  if (!symbol.starts_with("_ZN") || !symbol.ends_with('E')) return std::nullopt;
  std::string_view rest = symbol.substr(3, symbol.size() - 4);
  std::vector<std::string_view> elements;
  while (!rest.empty()) {
    size_t digits = 0, length = 0;
    while (digits < rest.size() && digits < 6 && std::isdigit(static_cast<unsigned char>(rest[digits])))
      length = length * 10 + (rest[digits++] - '0');
    if (digits == 0 || length == 0 || length > rest.size() - digits) return std::nullopt;
    elements.push_back(rest.substr(digits, length));
    rest.remove_prefix(digits + length);
  }
  if (elements.size() < 2 || !is_rust_hash(elements.back())) return std::nullopt;
  RustName name;
  name.hash = elements.back();
  elements.pop_back();
  for (std::string_view e : elements) {
    std::optional<std::string> decoded = decode_legacy_element(e);
    if (!decoded) return std::nullopt;
    name.path += (name.path.empty() ? "" : "::") + *decoded;
  }
  return name;
}

}  // namespace

bool is_rust_hash(std::string_view element) {
  if (element.size() != 17 || element[0] != 'h') return false;
  for (char c : element.substr(1))
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

std::optional<RustName> demangle_rust(std::string_view symbol) {
  if (symbol.starts_with("_ZN")) return demangle_legacy(symbol);
  if (!symbol.starts_with("_R")) return std::nullopt;
  std::unique_ptr<char, decltype(&std::free)> text(llvm::rustDemangle(symbol), &std::free);
  if (!text) return std::nullopt;
  return RustName{text.get(), {}};
}

}  // namespace kpp::dwarf
