#include "src/lookup/source_file.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <sstream>

#include "util/unique_fd.h"

#include "dwarf/debuginfod.h"

namespace kpp {

std::vector<std::string> mapped_paths(const std::string &path, const PrefixMap &prefix_map) {
  std::vector<std::string> out;
  for (const auto &[old_prefix, new_prefix] : prefix_map) {
    std::string old_dir = old_prefix;
    while (old_dir.size() > 1 && old_dir.back() == '/') old_dir.pop_back();
    if (!path.starts_with(old_dir)) continue;
    // "/build/a" maps "/build/a/x.c", not "/build/ab/x.c".
    if (path.size() > old_dir.size() && path[old_dir.size()] != '/' && old_dir != "/") continue;
    out.push_back(new_prefix + path.substr(old_dir == "/" ? 0 : old_dir.size()));
  }
  return out;
}

namespace {

// A source file's bytes. The path comes from the DWARF, which may be
// hostile: only a regular file of a sane size is read (a FIFO would block,
// /dev/zero never end). Its error is empty when there is no such file.
constexpr off_t kMaxSourceBytes = off_t{256} << 20;
Result<std::string> read_regular_file(const std::string &path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return Error("");
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Error("not a regular file");
  if (st.st_size > kMaxSourceBytes) return Error("larger than 256 MiB");
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  if (!pread_fully(fd.get(), bytes.data(), bytes.size(), 0)) return Error("unreadable");
  return bytes;
}

}  // namespace

Result<SourceText> read_source(const std::string &recorded_path, const std::string &source_dir,
                               const PrefixMap &prefix_map, const std::string &build_id) {
  std::vector<std::string> candidates = mapped_paths(recorded_path, prefix_map);
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
    auto bytes = read_regular_file(path);
    if (!bytes) {
      tried += "\n    " + path + (bytes.error().message.empty() ? "" : " (" + bytes.error().message + ")");
      continue;
    }
    SourceText text{path, {}};
    std::istringstream in(*bytes);
    for (std::string line; std::getline(in, line);) text.lines.push_back(line);
    return text;
  }
  if (!build_id.empty() && dwarf::debuginfod_enabled() && recorded_path.starts_with("/")) {
    auto fetched = dwarf::debuginfod_find_source(build_id, recorded_path);
    if (fetched) return read_source(*fetched, "", {}, "");
    tried += "\n    " + fetched.error().message;
  }
  return Error("cannot find the source file '" + recorded_path + "'; tried:" + tried,
               prefix_map.empty() ? "give the source tree with -s DIR, or map the build tree's path with "
                                    "--prefix-map OLD=NEW"
                                  : "check the --prefix-map pairs, or give the source tree with -s DIR");
}

}  // namespace kpp
