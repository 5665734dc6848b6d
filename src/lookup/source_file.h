// Finding a source file's text: under a --prefix-map'ed path, under the
// -s/--source directory (trying ever shorter tails of the recorded path: a
// tree built elsewhere and moved), else where DWARF says it is.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace kpp {

struct SourceText {
  std::string path;                // where it was found
  std::vector<std::string> lines;  // lines[0] is line 1
};

// --prefix-map OLD=NEW pairs, as given: a recorded path that starts with the
// directory OLD is looked for with OLD replaced by NEW (gcc's
// -fdebug-prefix-map, undone).
using PrefixMap = std::vector<std::pair<std::string, std::string>>;

// Errors list every path tried. When no local copy is found, `build_id`
// is known (the binary's, lowercase hex) and $DEBUGINFOD_URLS is set, the
// file is fetched from the debuginfod servers by build-id and path.
Result<SourceText> read_source(const std::string &recorded_path, const std::string &source_dir,
                               const PrefixMap &prefix_map = {}, const std::string &build_id = {});

// `path` with each OLD of `prefix_map` it starts with (as a directory)
// replaced by its NEW, in the order given.
std::vector<std::string> mapped_paths(const std::string &path, const PrefixMap &prefix_map);

}  // namespace kpp
