#include "src/lookup/source_file.h"

#include <fstream>

namespace kpp {

Result<SourceText> read_source(const std::string &recorded_path, const std::string &source_dir) {
  std::vector<std::string> candidates;
  if (!source_dir.empty()) {
    // "/build/x/fs/read_write.c" under DIR: DIR/build/x/fs/read_write.c,
    // DIR/x/fs/read_write.c, DIR/fs/read_write.c, DIR/read_write.c.
    for (size_t from = 0; from != std::string::npos;) {
      std::string tail = recorded_path.substr(from);
      while (!tail.empty() && tail.front() == '/') tail.erase(0, 1);
      if (!tail.empty()) candidates.push_back(source_dir + "/" + tail);
      size_t slash = recorded_path.find('/', from + 1);
      from = slash == std::string::npos ? std::string::npos : slash + 1;
    }
  }
  candidates.push_back(recorded_path);
  std::string tried;
  for (const std::string &path : candidates) {
    std::ifstream in(path);
    if (!in) {
      tried += "\n    " + path;
      continue;
    }
    SourceText text{path, {}};
    for (std::string line; std::getline(in, line);) text.lines.push_back(line);
    return text;
  }
  return Error("cannot find the source file '" + recorded_path + "'; tried:" + tried,
               "give the source tree with -s DIR");
}

}  // namespace kpp
