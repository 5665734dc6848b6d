// Separate debug information: where to look (see debug_link.h).
#include "dwarf/debug_link.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "src/util/process_root.h"
#include "src/util/unique_fd.h"

namespace kpp::dwarf {

std::optional<DebugLink> parse_debug_link(std::string_view section, bool little_endian) {
  size_t nul = section.find('\0');
  if (nul == std::string_view::npos || nul == 0) return std::nullopt;
  size_t crc_at = (nul + 1 + 3) & ~size_t{3};
  if (crc_at + 4 > section.size()) return std::nullopt;
  uint32_t crc = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t byte = static_cast<uint8_t>(section[crc_at + (little_endian ? i : 3 - i)]);
    crc |= byte << (8 * i);
  }
  return DebugLink{std::string(section.substr(0, nul)), crc};
}

std::string debug_root() {
  const char *root = std::getenv("KPP_DEBUG_ROOT");
  std::string r = root && *root ? root : "/usr/lib/debug";
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return r;
}

namespace {

// The program's directory, as `program_path` shows it or, through
// symlinks, its real one: a link in /usr/bin to /opt/x/bin/prog has its
// debug file next to the target, as gdb looks for it.
std::string program_directory(const std::string &program_path, bool resolve) {
  std::string real = program_path;
  char resolved[PATH_MAX];
  if (resolve && realpath(program_path.c_str(), resolved)) real = resolved;
  size_t slash = real.rfind('/');
  return slash == std::string::npos ? "." : real.substr(0, slash);
}

// The places under one root: `prefix` (a process's root, or "") joined
// to the build-id path under `debug_dir` and the debuglink places of `dir`.
void add_candidates(std::vector<DebugCandidate> &out, const std::string &prefix, const std::string &debug_dir,
                    const std::string &dir, const std::string &build_id, const std::optional<DebugLink> &link) {
  if (build_id.size() > 2)
    out.push_back({prefix + debug_dir + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug",
                   std::nullopt});
  if (!link) return;
  out.push_back({prefix + dir + "/" + link->name, link->crc});
  out.push_back({prefix + dir + "/.debug/" + link->name, link->crc});
  if (!dir.empty() && dir[0] == '/') out.push_back({prefix + debug_dir + dir + "/" + link->name, link->crc});
}

}  // namespace

std::vector<DebugCandidate> separate_debug_candidates(const std::string &program_path, const std::string &build_id,
                                                      const std::optional<DebugLink> &link, const std::string &root) {
  std::vector<DebugCandidate> out;
  ProcessRootPath split = split_process_root(program_path);
  const std::string &process_root = split.root;
  // Resolving links would leave the process's root: its paths are taken as they are.
  std::string dir = program_directory(split.path, process_root.empty());
  // A container's own debug files first (its /usr/lib/debug, next to the
  // program), then ours for the same build-id or path.
  if (!process_root.empty()) add_candidates(out, process_root, "/usr/lib/debug", dir, build_id, link);
  add_candidates(out, "", root, dir, build_id, link);
  return out;
}

std::optional<uint32_t> file_crc32(const std::string &path) {
  // A regular file only: the debug link's name comes from the program, and a
  // FIFO or /dev/zero in its place would block or never end.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::unique_ptr<unsigned char[]> buffer(new unsigned char[1 << 16]);
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.get(), 1 << 16);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    crc = crc32(crc, buffer.get(), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace kpp::dwarf
