// Where a program's separate debug information may be (the gdb/elfutils
// conventions, which distributions' -dbgsym packages follow):
//   ROOT/.build-id/xx/yyyy.debug       named by the ELF build-id note
//   DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME
//                                      named by .gnu_debuglink (NAME + CRC32),
//                                      DIR being the program's directory
// ROOT is /usr/lib/debug, or $KPP_DEBUG_ROOT (tests, or a debug tree kept
// elsewhere). Pure functions of strings and files: no ELF reading here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpp::dwarf {

// The contents of a .gnu_debuglink section: a file name, NUL-padded to 4
// bytes, then the CRC32 of that file in the ELF file's byte order.
struct DebugLink {
  std::string name;
  uint32_t crc = 0;
};
std::optional<DebugLink> parse_debug_link(std::string_view section, bool little_endian);

// $KPP_DEBUG_ROOT when set and not empty, else /usr/lib/debug.
std::string debug_root();

struct DebugCandidate {
  std::string path;
  std::optional<uint32_t> crc;  // set for .gnu_debuglink candidates: the file must match it
  bool from_debuginfod = false;  // the last resort: fetched by build-id when reached (dwarf/debuginfod.h)
};
// The candidates for the program at `program_path` (absolute, or relative to
// the working directory), in the order they are tried: the build-id path
// first (when `build_id` is known), then the debuglink places. A program
// reached through a process's root (/proc/PID/root/PATH: -p on a
// container's process) has the same places inside that root tried first
// (its own /usr/lib/debug, whatever `root` is), then ours.
std::vector<DebugCandidate> separate_debug_candidates(const std::string &program_path, const std::string &build_id,
                                                      const std::optional<DebugLink> &link, const std::string &root);

// The CRC32 (the zlib/ITU-T V.42 one .gnu_debuglink uses) of a whole file;
// nullopt when it cannot be read.
std::optional<uint32_t> file_crc32(const std::string &path);

}  // namespace kpp::dwarf
