#include "src/tracedat/tracedat_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kpp {

namespace {

// trace.dat integers are in the file's byte order; we write the host's
// (little-endian on every target we build for, declared in the header).
template <class T>
void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}

void put_cstr(std::string &out, const std::string &s) {
  out += s;
  out += '\0';
}

constexpr uint16_t kOptionDone = 0;
constexpr uint16_t kOptionTraceClock = 4;
constexpr uint16_t kOptionUname = 5;
constexpr uint16_t kOptionCpuCount = 8;

void put_option(std::string &out, uint16_t id, const std::string &data) {
  put<uint16_t>(out, id);
  put<uint32_t>(out, static_cast<uint32_t>(data.size()));
  out += data;
}

bool host_is_big_endian() {
  const uint16_t one = 1;
  return *reinterpret_cast<const uint8_t *>(&one) == 0;
}

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

// Copies `len` bytes of `in` (from offset 0) to the end of `out`.
Status copy_block(int in, int out, uint64_t len, const std::string &what) {
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
      ssize_t r = pread(in, buf, std::min<uint64_t>(sizeof buf, len - static_cast<uint64_t>(off)), off);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return Error("cannot read temporary CPU data: " + std::string(std::strerror(errno)));
      if (Status st = write_all(out, buf, static_cast<size_t>(r), what); !st) return st;
      off += r;
    }
  }
  return Ok{};
}

std::string dir_of(const std::string &path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// An unnamed temporary file on the output's file system (so copying it in
// can share extents), or in /tmp if that file system lacks O_TMPFILE.
int open_temp(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string tmpl = "/tmp/kpp-tracedat-XXXXXX";
  fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd >= 0) unlink(tmpl.c_str());
  return fd;
}

}  // namespace

std::string build_tracedat_v6_head(const tracedat::Metadata &meta, int page_size,
                                   const std::vector<uint64_t> &cpu_bytes, std::vector<uint64_t> &cpu_offsets) {
  std::string h;
  h += "\x17\x08\x44tracing";
  put_cstr(h, "6");
  put<uint8_t>(h, host_is_big_endian() ? 1 : 0);
  put<uint8_t>(h, static_cast<uint8_t>(sizeof(long)));
  put<uint32_t>(h, static_cast<uint32_t>(page_size));

  put_cstr(h, "header_page");
  put<uint64_t>(h, meta.header_page.size());
  h += meta.header_page;
  put_cstr(h, "header_event");
  put<uint64_t>(h, meta.header_event.size());
  h += meta.header_event;

  put<uint32_t>(h, static_cast<uint32_t>(meta.ftrace_formats.size()));
  for (const auto &f : meta.ftrace_formats) {
    put<uint64_t>(h, f.text.size());
    h += f.text;
  }

  put<uint32_t>(h, static_cast<uint32_t>(meta.systems.size()));
  for (const auto &sys : meta.systems) {
    put_cstr(h, sys.system);
    put<uint32_t>(h, static_cast<uint32_t>(sys.events.size()));
    for (const auto &f : sys.events) {
      put<uint64_t>(h, f.text.size());
      h += f.text;
    }
  }

  put<uint32_t>(h, static_cast<uint32_t>(meta.kallsyms.size()));
  h += meta.kallsyms;
  put<uint32_t>(h, static_cast<uint32_t>(meta.printk_formats.size()));
  h += meta.printk_formats;
  put<uint64_t>(h, meta.cmdlines.size());
  h += meta.cmdlines;

  const uint32_t cpus = static_cast<uint32_t>(cpu_bytes.size());
  put<uint32_t>(h, cpus);

  h.append("options  \0", 10);
  put_option(h, kOptionTraceClock, meta.trace_clock);
  if (!meta.uname.empty()) put_option(h, kOptionUname, meta.uname + '\0');
  std::string count;
  put<uint32_t>(count, cpus);
  put_option(h, kOptionCpuCount, count);
  put<uint16_t>(h, kOptionDone);  // v6: DONE has no size and no payload

  h.append("flyrecord\0", 10);
  // Each CPU block starts on a page boundary, after this table.
  uint64_t at = h.size() + 16ull * cpus;
  const uint64_t ps = static_cast<uint64_t>(page_size);
  cpu_offsets.assign(cpus, 0);
  for (uint32_t c = 0; c < cpus; ++c) {
    at = (at + ps - 1) / ps * ps;
    cpu_offsets[c] = at;
    put<uint64_t>(h, at);
    put<uint64_t>(h, cpu_bytes[c]);
    at += cpu_bytes[c];
  }
  return h;
}

Result<std::unique_ptr<TraceDatWriter>> TraceDatWriter::create(const std::string &path, TraceDatOptions options) {
  if (options.file_version != 6)
    return Error("trace.dat version " + std::to_string(options.file_version) + " is not supported yet",
                 "use --file-version 6 (every reader opens it)");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error("cannot create " + path + ": " + std::strerror(errno));
  return std::unique_ptr<TraceDatWriter>(new TraceDatWriter(path, fd, options));
}

TraceDatWriter::~TraceDatWriter() {
  for (int fd : cpu_fds_)
    if (fd >= 0) ::close(fd);
  if (out_fd_ >= 0) ::close(out_fd_);
}

Status TraceDatWriter::on_start(const StreamInfo &info) {
  info_ = info;
  if (Status st = tracedat::read_formats(info_, meta_); !st) return st;
  std::string dir = dir_of(path_);
  cpu_fds_.assign(static_cast<size_t>(info_.cpus), -1);
  cpu_bytes_.assign(static_cast<size_t>(info_.cpus), 0);
  for (int &fd : cpu_fds_) {
    fd = open_temp(dir);
    if (fd < 0) return Error("cannot create a temporary file for trace data in " + dir + ": " + std::strerror(errno));
  }
  started_ = true;
  return Ok{};
}

Status TraceDatWriter::on_page(int cpu, std::span<const uint8_t> page) {
  if (!started_ || cpu < 0 || cpu >= static_cast<int>(cpu_fds_.size()))
    return Error("trace.dat writer got a page for cpu" + std::to_string(cpu) + " it did not expect");
  if (static_cast<int>(page.size()) != info_.page_size)
    return Error("trace.dat writer got a page of " + std::to_string(page.size()) + " bytes, expected " +
                 std::to_string(info_.page_size));
  Status st = write_all(cpu_fds_[static_cast<size_t>(cpu)], reinterpret_cast<const char *>(page.data()), page.size(),
                        "trace data for " + path_);
  if (!st) return st;
  cpu_bytes_[static_cast<size_t>(cpu)] += page.size();
  ++pages_;
  return Ok{};
}

Status TraceDatWriter::write_file() {
  if (!started_) return Error("nothing was recorded into " + path_ + " (the stream never started)");
  if (Status st = tracedat::read_late_metadata(info_, options_.with_kallsyms, meta_); !st) return st;
  std::vector<uint64_t> offsets;
  std::string head = build_tracedat_v6_head(meta_, info_.page_size, cpu_bytes_, offsets);
  if (Status st = write_all(out_fd_, head.data(), head.size(), path_); !st) return st;
  uint64_t at = head.size();
  for (size_t c = 0; c < cpu_fds_.size(); ++c) {
    if (offsets[c] > at) {
      std::string pad(offsets[c] - at, '\0');
      if (Status st = write_all(out_fd_, pad.data(), pad.size(), path_); !st) return st;
      at = offsets[c];
    }
    if (Status st = copy_block(cpu_fds_[c], out_fd_, cpu_bytes_[c], path_); !st) return st;
    at += cpu_bytes_[c];
  }
  if (fsync(out_fd_) != 0 && errno != EINVAL) return Error("cannot sync " + path_ + ": " + std::strerror(errno));
  return Ok{};
}

Status TraceDatWriter::finish() {
  if (!finished_) {
    finished_ = true;
    result_ = std::make_unique<Status>(write_file());
    for (int &fd : cpu_fds_)
      if (fd >= 0) ::close(fd), fd = -1;
    ::close(out_fd_);
    out_fd_ = -1;
  }
  return *result_;
}

}  // namespace kpp
