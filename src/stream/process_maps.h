// A process's executable file mappings, from /proc/PID/maps: how a user
// address (a uprobe's ip, a user stack's frame) becomes a file and an
// offset in it. Read while the process lives; afterwards it is gone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kpp {

struct FileMapping {
  uint64_t start = 0, end = 0;  // [start, end) in the process
  uint64_t pgoff = 0;           // file offset of start
  std::string path;
};

// The executable mappings of files (not [vdso], anonymous memory or deleted
// files' "(deleted)" suffix left as the kernel shows it) in a maps text.
std::vector<FileMapping> parse_process_maps(const std::string &text);

// parse_process_maps() of /proc/PID/maps; empty when the process is gone.
std::vector<FileMapping> read_process_maps(pid_t pid);

// The mapping that holds `address`, or null.
const FileMapping *mapping_of(const std::vector<FileMapping> &maps, uint64_t address);

}  // namespace kpp
