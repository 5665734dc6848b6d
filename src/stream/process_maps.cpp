#include "src/stream/process_maps.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "util/files.h"

namespace kpp {

std::vector<FileMapping> parse_process_maps(const std::string &text) {
  std::vector<FileMapping> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    // "start-end perms pgoff dev inode path"
    std::istringstream words(line);
    std::string range, perms, pgoff, dev, inode, path;
    if (!(words >> range >> perms >> pgoff >> dev >> inode)) continue;
    std::getline(words >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    FileMapping m;
    unsigned long start = 0, end = 0;
    if (std::sscanf(range.c_str(), "%lx-%lx", &start, &end) != 2 || end <= start) continue;
    char *rest = nullptr;
    m.pgoff = std::strtoull(pgoff.c_str(), &rest, 16);
    if (!rest || *rest) continue;
    m.start = start;
    m.end = end;
    m.path = std::move(path);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<FileMapping> read_process_maps(pid_t pid) {
  Result<std::string> text = read_whole_file("/proc/" + std::to_string(pid) + "/maps");
  if (!text) return {};
  return parse_process_maps(*text);
}

const FileMapping *mapping_of(const std::vector<FileMapping> &maps, uint64_t address) {
  for (const FileMapping &m : maps)
    if (address >= m.start && address < m.end) return &m;
  return nullptr;
}

}  // namespace kpp
