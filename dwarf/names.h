// Name matching that does not need DWARF: symbols to source names, path
// suffixes, closest names for suggestions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpp::dwarf {

// The source name behind a compiler-made symbol: "walk.isra.0" -> "walk",
// "f.constprop.1", "f.part.0", "f.cold", "f.llvm.123" -> "f".
std::string_view source_name_of_symbol(std::string_view symbol);

// Whether `path` is `suffix` or ends with "/" + `suffix` ("a/b/prog.c" ends with "prog.c", not "og.c").
bool path_ends_with(const std::string &path, const std::string &suffix);

// Up to `max` candidates closest to `name` by edit distance, closest first,
// only those close enough to be a plausible typo or a name containing `name`.
std::vector<std::string> closest_names(const std::string &name, const std::vector<std::string> &candidates,
                                       size_t max);

}  // namespace kpp::dwarf
