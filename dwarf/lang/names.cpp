#include "dwarf/names.h"

#include <algorithm>

namespace kpp::dwarf {

std::string_view source_name_of_symbol(std::string_view symbol) {
  // C identifiers have no '.', so everything from the first '.' on was added
  // by the compiler (or is a version, "@GLIBC_2.2.5").
  size_t cut = symbol.find_first_of(".@", 1);
  return cut == std::string_view::npos ? symbol : symbol.substr(0, cut);
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
