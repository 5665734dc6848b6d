// File writes the trace.dat writers share. Internal to kpp_tracedat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/result.h"

namespace kpp::tracedat {

// Writes all of `data` at the file position; `what` names the file in errors.
Status write_all(int fd, const char *data, size_t len, const std::string &what);
inline Status write_all(int fd, const std::string &data, const std::string &what) {
  return write_all(fd, data.data(), data.size(), what);
}
// Writes `data` at `offset` (to fill in a size or offset known only later).
Status pwrite_all(int fd, const std::string &data, uint64_t offset, const std::string &what);
// Copies the first `len` bytes of `in` to the end of `out` (copy_file_range,
// read/write where the file systems cannot share extents). `release`: in
// chunks, punching each copied chunk out of `in`, so that a full disk needs
// only one chunk of room to move the data (a write error while recording).
Status copy_block(int in, int out, uint64_t len, const std::string &what, bool release = false);
// Gives the disk blocks of [offset, offset + len) of `fd` back (a hole; the size stays).
void release_bytes(int fd, uint64_t offset, uint64_t len);
// The chunk copy_block(release) moves at a time.
inline constexpr uint64_t kReleaseChunk = 256 * 1024;
// Reads exactly `len` bytes of `fd` at `offset` into `buf`.
Status pread_all(int fd, char *buf, size_t len, uint64_t offset);
// The current end of `fd` (its size), or an error.
Result<uint64_t> file_end(int fd, const std::string &what);

}  // namespace kpp::tracedat
