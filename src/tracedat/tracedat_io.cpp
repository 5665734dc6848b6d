#include "src/tracedat/tracedat_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kpp::tracedat {

Status write_all(int fd, const char *data, size_t len, const std::string &what) {
  while (len) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error("cannot write " + what + ": " + std::strerror(errno));
    data += n;
    len -= static_cast<size_t>(n);
  }
  return Ok{};
}

Status pwrite_all(int fd, const std::string &data, uint64_t offset, const std::string &what) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error("cannot write " + what + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Ok{};
}

Status pread_all(int fd, char *buf, size_t len, uint64_t offset) {
  size_t done = 0;
  while (done < len) {
    ssize_t r = ::pread(fd, buf + done, len - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Error("cannot read temporary CPU data: " + std::string(std::strerror(errno)));
    if (r == 0) return Error("cannot read temporary CPU data: short temporary file");
    done += static_cast<size_t>(r);
  }
  return Ok{};
}

void release_bytes(int fd, uint64_t offset, uint64_t len) {
  (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset), static_cast<off_t>(len));
}

Status copy_block(int in, int out, uint64_t len, const std::string &what, bool release) {
  if (release) {
    for (uint64_t done = 0; done < len; done += kReleaseChunk) {
      uint64_t n = std::min(kReleaseChunk, len - done);
      std::string buf(n, '\0');
      if (Status st = pread_all(in, buf.data(), n, done); !st) return st;
      if (Status st = write_all(out, buf.data(), n, what); !st) return st;
      release_bytes(in, done, n);
    }
    return Ok{};
  }
  loff_t off = 0;
  while (static_cast<uint64_t>(off) < len) {
    ssize_t n = copy_file_range(in, &off, out, nullptr, len - static_cast<uint64_t>(off), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) continue;
    if (n == 0) return Error("cannot copy CPU data into " + what + ": short temporary file");
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
      return Error("cannot copy CPU data into " + what + ": " + std::strerror(errno));
    // Fallback: plain read/write.
    char buf[1 << 16];
    while (static_cast<uint64_t>(off) < len) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof buf, len - static_cast<uint64_t>(off)));
      if (Status st = pread_all(in, buf, want, static_cast<uint64_t>(off)); !st) return st;
      if (Status st = write_all(out, buf, want, what); !st) return st;
      off += static_cast<loff_t>(want);
    }
  }
  return Ok{};
}

Result<uint64_t> file_end(int fd, const std::string &what) {
  off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) return Error("cannot seek in " + what + ": " + std::strerror(errno));
  return static_cast<uint64_t>(end);
}

}  // namespace kpp::tracedat
