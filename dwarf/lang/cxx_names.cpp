#include "dwarf/lang/cxx_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

#include <llvm/Demangle/Demangle.h>

#include "dwarf/debug_info.h"
#include "dwarf/lang/rust_names.h"
#include "dwarf/names.h"

namespace kpp::dwarf {

namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The parts of `name` between its top-level "::" (depth 0 of <> and ()).
std::vector<std::string> split_scopes(std::string_view name) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
      parts.emplace_back();
      ++i;
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

// The position of the '(' that opens the parameter list `name` ends with
// ("f(int)", "f(int)const"), npos when it has none ("(anonymous namespace)::f").
size_t params_start(std::string_view name) {
  if (name.ends_with(")const")) name.remove_suffix(5);
  if (!name.ends_with(')')) return std::string_view::npos;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return i == 0 ? std::string_view::npos : i;
  }
  return std::string_view::npos;
}

using CharPtr = std::unique_ptr<char, decltype(&std::free)>;

}  // namespace

bool is_cxx_query(std::string_view name) {
  return name.find("::") != std::string_view::npos || name.find('<') != std::string_view::npos ||
         name.find('(') != std::string_view::npos;
}

bool is_scoped_path(std::string_view name) {
  return name.find("operator") == std::string_view::npos && split_scopes(name).size() > 1;
}

CxxQuery parse_cxx_query(std::string_view name) {
  std::string text = without_spaces(name);
  std::string printed = printed_key(name);
  // A ref-qualifier ("str() const &"), as the cv-qualifier below, does not
  // tell overloads apart in the demangled parameters the query is matched against.
  for (std::string_view ref : {"&&", "&"}) {
    std::string_view head = std::string_view(text).substr(0, text.size() - std::min(text.size(), ref.size()));
    if (std::string_view(text).ends_with(ref) && (head.ends_with(')') || head.ends_with(")const"))) {
      text.resize(head.size());
      break;
    }
  }
  CxxQuery q;
  size_t open = params_start(text);
  if (open != std::string::npos) {
    q.params = text.substr(open);
    if (q.params.ends_with(")const")) q.params.resize(q.params.size() - 5);
    text.resize(open);
  }
  q.scopes = split_scopes(text);
  // "names::price::h021f572b3b89d46a": legacy Rust's spelling with the hash.
  if (q.scopes.size() > 1 && is_rust_hash(q.scopes.back())) {
    q.rust_hash = q.scopes.back();
    q.scopes.pop_back();
    printed.resize(printed.size() - std::min(printed.size(), q.rust_hash.size() + 2));
  }
  q.base = q.scopes.back();
  q.scopes.pop_back();
  q.printed = std::move(printed);
  return q;
}

std::optional<std::string> verbatim_word(const CxxQuery &query) {
  std::string_view base = query.base;
  size_t end = 0;
  while (end < base.size() && (std::isalnum(static_cast<unsigned char>(base[end])) || base[end] == '_')) ++end;
  std::string_view word = base.substr(0, end);
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) || (end < base.size() && base[end] != '<'))
    return std::nullopt;
  // An operator's name is its code ("operator new", blanks dropped: "nw").
  if (word.starts_with("operator")) return std::nullopt;
  // The Itanium ABI's abbreviations (St, Sa, Sb, Ss, Si, So, Sd) spell these
  // classes' names, and so their constructors', otherwise.
  static constexpr std::string_view abbreviated[] = {"allocator", "basic_string", "string", "basic_istream",
                                                     "istream", "basic_ostream", "ostream", "basic_iostream", "iostream"};
  if (std::find(std::begin(abbreviated), std::end(abbreviated), word) != std::end(abbreviated)) return std::nullopt;
  return std::string(word);
}

namespace {
// v0's inherent impl "<names::Shop>::add" is legacy's "names::Shop::add"
// (a trait impl, "<names::Shop as names::Describe>::describe", stays).
std::string without_impl_brackets(const std::string &path) {
  if (!path.starts_with('<')) return path;
  int depth = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '<') ++depth;
    if (path[i] == '>' && --depth == 0) {
      std::string inner = path.substr(1, i - 1);
      if (inner.find(" as ") != std::string::npos || path.compare(i + 1, 2, "::") != 0) return path;
      return inner + path.substr(i + 1);
    }
  }
  return path;
}

// "names::largest::<i32>" -> "names::largest<i32>", spaces dropped.
DemangledFunction rust_function(RustName name) {
  std::string qualified = without_spaces(without_impl_brackets(name.path));
  for (size_t at; (at = qualified.find("::<")) != std::string::npos;) qualified.erase(at, 2);
  return DemangledFunction{std::move(qualified), {}, std::move(name.hash)};
}
}  // namespace

bool is_mangled(std::string_view symbol) { return symbol.starts_with("_Z") || symbol.starts_with("_R"); }

std::optional<DemangledFunction> demangle_function(std::string_view mangled) {
  std::string name(source_name_of_symbol(mangled));  // "_ZN1a1fEv.isra.0" -> "_ZN1a1fEv"
  if (std::optional<RustName> rust = demangle_rust(name)) return rust_function(std::move(*rust));
  if (!name.starts_with("_Z")) return std::nullopt;
  llvm::ItaniumPartialDemangler demangler;
  if (demangler.partialDemangle(name.c_str()) || !demangler.isFunction()) return std::nullopt;
  size_t size = 0;
  CharPtr qualified(demangler.getFunctionName(nullptr, &size), &std::free);
  CharPtr params(demangler.getFunctionParameters(nullptr, &size), &std::free);
  if (!qualified || !params) return std::nullopt;
  return DemangledFunction{without_spaces(qualified.get()), without_spaces(params.get())};
}

std::string demangle_for_display(const std::string &symbol) {
  if (!is_mangled(symbol)) return symbol;
  if (std::optional<RustName> rust = demangle_rust(source_name_of_symbol(symbol))) return rust->path;
  return symbol.starts_with("_Z") ? llvm::demangle(symbol) : symbol;
}

bool cxx_name_matches(const CxxQuery &query, const DemangledFunction &have) {
  std::vector<std::string> parts = split_scopes(have.qualified);
  if (parts.size() < query.scopes.size() + 1) return false;
  const std::string &last = parts.back();
  bool base_ok = last == query.base ||
                 (query.base.find('<') == std::string::npos && last.starts_with(query.base + "<"));
  if (!base_ok) return false;
  size_t offset = parts.size() - 1 - query.scopes.size();
  for (size_t i = 0; i < query.scopes.size(); ++i)
    if (parts[offset + i] != query.scopes[i]) return false;
  if (!query.rust_hash.empty() && query.rust_hash != have.rust_hash) return false;
  return query.params.empty() || query.params == have.params;
}

namespace {
bool printed_ignores(char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"'; }
}  // namespace

namespace {

// c++filt and gdb print the N-th lambda of a scope "{lambda(int)#N}", LLVM
// (and so -F) 'lambda'(int), 'lambda0'(int), 'lambda1'(int)...: the first
// spelling in LLVM's, so that both read back. Other text is kept.
std::string llvm_lambda_spelling(std::string_view name) {
  constexpr std::string_view open = "{lambda(";
  std::string out;
  size_t i = 0;
  for (size_t at; (at = name.find(open, i)) != std::string_view::npos;) {
    size_t params = at + open.size() - 1;
    int depth = 0;
    size_t close = params;
    for (; close < name.size(); ++close) {
      if (name[close] == '(') ++depth;
      if (name[close] == ')' && --depth == 0) break;
    }
    size_t digits = close + 2;
    size_t end = digits;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (close >= name.size() || name.substr(close + 1, 1) != "#" || end == digits || end >= name.size() ||
        name[end] != '}' || end - digits > 6) {
      out += name.substr(i, params - i);
      i = params;
      continue;
    }
    unsigned n = std::stoul(std::string(name.substr(digits, end - digits)));
    out += name.substr(i, at - i);
    out += n <= 1 ? std::string("lambda") : "lambda" + std::to_string(n - 2);
    out += name.substr(params, close + 1 - params);
    i = end + 1;
  }
  out += name.substr(i);
  return out;
}

}  // namespace

std::string printed_key(std::string_view name) {
  std::string out;
  for (char c : llvm_lambda_spelling(name))
    if (!printed_ignores(c)) out += c;
  return out;
}

bool printed_name_matches(std::string_view key, std::string_view display) {
  if (key.empty()) return false;
  // From the end: one pass, however many spaces the display has.
  size_t i = display.size();
  for (size_t k = key.size(); k > 0; --k) {
    while (i > 0 && printed_ignores(display[i - 1])) --i;
    if (i == 0 || display[i - 1] != key[k - 1]) return false;
    --i;
  }
  while (i > 0 && (display[i - 1] == '\'' || display[i - 1] == '"')) --i;
  if (i == 0) return true;
  // "non-virtual thunk to X::~X()" is not X::~X() (the spec's parser drops
  // the words before a name: such a name reads back as the function itself).
  return std::isspace(static_cast<unsigned char>(display[i - 1])) && !display.substr(0, i).ends_with("thunk to ");
}

std::string DebugInfo::display_symbol(const std::string &symbol) const {
  return demangles() ? demangle_for_display(symbol) : symbol;
}

}  // namespace kpp::dwarf
