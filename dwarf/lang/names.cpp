#include "dwarf/names.h"

#include <algorithm>
#include <span>

namespace kpp::dwarf {

namespace {

// The words gcc and LLVM append to a function they cloned, split or
// privatized: ".isra.0", ".constprop.1", ".part.0", ".cold", ".cold.3",
// ".llvm.1234", ".lto_priv.0", ".localalias", clang's ".__uniq.123". Those
// that always carry their number come first: without it the word is a Go
// name's ("main.part" is a function named part).
constexpr std::string_view numbered_words[] = {"isra", "constprop", "part", "llvm", "lto_priv", "clone", "specialized", "__uniq"};
constexpr std::string_view plain_words[] = {"cold", "hot", "localalias", "unlikely"};

bool is_word_of(std::string_view w, std::span<const std::string_view> words) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

bool is_number(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether `tail`, what follows a '.', is only clone words and their numbers.
// A number alone ("f.0", gcc's copy of a nested or static function) counts
// only after a name with no other '.': Go's nested closures end so too
// ("main.main.func1.1"), and are no C name.
bool is_clone_suffix(std::string_view tail, bool after_plain_name) {
  // Word by word, without a copy: every '.' of a symbol asks this, and a Rust
  // symbol has dozens ("..", "$LT$", "$u7b$"), most failing at their first word.
  auto word_at = [tail](size_t at) { return tail.substr(at, std::min(tail.find('.', at), tail.size()) - at); };
  for (size_t at = 0; at <= tail.size();) {
    std::string_view word = word_at(at);
    bool first = at == 0;
    at += word.size() + 1;
    if (is_word_of(word, numbered_words)) {
      if (at > tail.size() || !is_number(word_at(at))) return false;
      at += word_at(at).size() + 1;
    } else if (!is_word_of(word, plain_words) && !(is_number(word) && (!first || after_plain_name))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string_view source_name_of_symbol(std::string_view symbol) {
  // A version ("memcpy@GLIBC_2.2.5") is no part of the name.
  if (size_t at = symbol.find('@', 1); at != std::string_view::npos) symbol = symbol.substr(0, at);
  // From the first '.' that starts a compiler's suffix on: Go's names
  // ("main.Price", "main.(*Shop).Restock") have dots of their own.
  for (size_t dot = symbol.find('.', 1); dot != std::string_view::npos; dot = symbol.find('.', dot + 1))
    if (is_clone_suffix(symbol.substr(dot + 1), symbol.find('.') == dot)) return symbol.substr(0, dot);
  return symbol;
}

bool path_ends_with(const std::string &path, const std::string &suffix) {
  if (suffix.size() > path.size()) return false;
  if (path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/' ||
         (!suffix.empty() && suffix.front() == '/');
}

std::string lexically_normal(std::string_view path) {
  bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  size_t leading_ups = 0;  // ".." that climb above the start of a relative path
  for (size_t at = 0; at <= path.size();) {
    size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(at, slash - at);
    at = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part != "..") {
      parts.push_back(part);
    } else if (!parts.empty()) {
      parts.pop_back();
    } else if (!absolute) {
      ++leading_ups;  // kept: "../x" is not "x"
    }
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < leading_ups; ++i) out += "../";
  for (size_t i = 0; i < parts.size(); ++i) out += std::string(parts[i]) + (i + 1 < parts.size() ? "/" : "");
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool same_source_file(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.empty() || b.empty()) return false;
  std::string x = lexically_normal(a), y = lexically_normal(b);
  if (x == y) return true;
  bool x_relative = x.front() != '/', y_relative = y.front() != '/';
  if (!x_relative && !y_relative) return false;
  // A relative name that climbs ("../Python/ceval.c") names the file by
  // what follows its climb: where it climbed from is not known.
  auto below = [](std::string p) {
    while (p.rfind("../", 0) == 0) p.erase(0, 3);
    return p;
  };
  auto ends_with = [&](const std::string &whole, const std::string &relative) {
    std::string tail = below(relative);
    return !tail.empty() && tail != ".." && path_ends_with(whole, tail);
  };
  return (x_relative && ends_with(y, x)) || (y_relative && ends_with(x, y));
}

namespace {
size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::vector<std::string> closest_names(const std::string &name, const std::vector<std::string> &candidates,
                                       size_t max) {
  std::vector<std::pair<size_t, std::string>> scored;
  size_t limit = std::max<size_t>(2, name.size() / 3);
  for (const std::string &c : candidates) {
    size_t d = edit_distance(name, c);
    if (d <= limit || (name.size() >= 3 && c.find(name) != std::string::npos)) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace kpp::dwarf
