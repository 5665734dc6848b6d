// Separate debug information: where to look (see debug_link.h).
#include "dwarf/source/debug_link.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "util/unique_fd.h"

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

std::vector<DebugCandidate> separate_debug_candidates(const std::string &program_path, const std::string &build_id,
                                                      const std::optional<DebugLink> &link, const std::string &root) {
  std::vector<DebugCandidate> out;
  if (build_id.size() > 2)
    out.push_back({root + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug", std::nullopt});
  if (!link) return out;
  // The program's real directory: a link in /usr/bin to /opt/x/bin/prog
  // has its debug file next to the target, as gdb looks for it.
  std::string real = program_path;
  char resolved[PATH_MAX];
  if (realpath(program_path.c_str(), resolved)) real = resolved;
  size_t slash = real.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "" : real.substr(0, slash);
  out.push_back({(dir.empty() ? "" : dir) + "/" + link->name, link->crc});
  out.push_back({(dir.empty() ? "" : dir) + "/.debug/" + link->name, link->crc});
  if (!dir.empty() && dir[0] == '/') out.push_back({root + dir + "/" + link->name, link->crc});
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
