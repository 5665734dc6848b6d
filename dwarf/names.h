// Name matching that does not need DWARF: symbols to source names, path
// suffixes, closest names for suggestions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kpp::dwarf {

// The source name behind a compiler-made symbol: "walk.isra.0" -> "walk",
// "f.constprop.1", "f.part.0", "f.cold", "f.llvm.123" -> "f",
// "memcpy@GLIBC_2.2.5" -> "memcpy". Only gcc's and LLVM's suffixes are cut:
// a Go name keeps its dots ("main.Price", "main.main.func1").
std::string_view source_name_of_symbol(std::string_view symbol);

// Whether `path` is `suffix` or ends with "/" + `suffix` ("a/b/prog.c" ends with "prog.c", not "og.c").
bool path_ends_with(const std::string &path, const std::string &suffix);

// `path` with "." and "dir/.." components taken out ("./build/../Python/ceval.c" -> "Python/ceval.c"),
// by text alone: what two units of one program compare their file names by.
std::string lexically_normal(std::string_view path);

// Whether two units' names of a source file name the same file. Units of one
// program may join their file names to different directories: gcc's LTO
// units say "/build/pkg/build-static/../Python/ceval.c" where the unit the
// function was declared in said "./build-static/../Python/ceval.c" (a
// relative DW_AT_comp_dir, from -fdebug-prefix-map). Equal once made
// lexically normal, or, when one of them is relative, it is a whole-component
// suffix of the other.
bool same_source_file(std::string_view a, std::string_view b);

// Up to `max` candidates closest to `name` by edit distance, closest first,
// only those close enough to be a plausible typo or a name containing `name`.
std::vector<std::string> closest_names(const std::string &name, const std::vector<std::string> &candidates,
                                       size_t max);

}  // namespace kpp::dwarf
