#include "src/tracedat/tracedat_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/tracedat/trace_cmd_support.h"
#include "src/tracedat/tracedat_io.h"
#include "src/tracedat/tracedat_layout.h"
#include "src/tracedat/tracedat_v7.h"
#include "util/output_file.h"

namespace kpp {

namespace {

using tracedat::put;
using tracedat::put_option;
using tracedat::write_all;

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
  using namespace tracedat;
  std::string h = initial_header(6, page_size);
  h += header_info_body(meta);
  h += ftrace_formats_body(meta);
  h += event_formats_body(meta);
  h += kallsyms_body(meta);
  h += printk_body(meta);
  h += cmdlines_body(meta);

  const uint32_t cpus = static_cast<uint32_t>(cpu_bytes.size());
  put<uint32_t>(h, cpus);

  h.append("options  \0", 10);
  put_option(h, kOptionTraceClock, meta.trace_clock);
  if (!meta.uname.empty()) put_option(h, kOptionUname, meta.uname + '\0');
  std::string count;
  put<uint32_t>(count, cpus);
  put_option(h, kOptionCpuCount, count);
  put_cpu_stats(h, meta);
  put_own_options(h, meta);
  put<uint16_t>(h, kOptionDone);  // v6: DONE has no size and no payload

  h.append("flyrecord\0", 10);
  // The table of CPU blocks, then the trace clock (8-byte size and the
  // trace_clock text, what `trace-cmd dump --clock` shows); each CPU block
  // starts on a page boundary after them.
  std::string clock;
  put<uint64_t>(clock, meta.trace_clock.size());
  clock += meta.trace_clock;
  uint64_t at = h.size() + 16ull * cpus + clock.size();
  const uint64_t ps = static_cast<uint64_t>(page_size);
  cpu_offsets.assign(cpus, 0);
  for (uint32_t c = 0; c < cpus; ++c) {
    at = (at + ps - 1) / ps * ps;
    cpu_offsets[c] = at;
    put<uint64_t>(h, at);
    put<uint64_t>(h, cpu_bytes[c]);
    at += cpu_bytes[c];
  }
  h += clock;
  return h;
}

Result<std::unique_ptr<TraceDatWriter>> TraceDatWriter::create(const std::string &path, TraceDatOptions options) {
  if (options.file_version != 6 && options.file_version != 7)
    return Error("trace.dat version " + std::to_string(options.file_version) + " does not exist",
                 "use --file-version 6 (every reader opens it) or 7");
  auto compression = tracedat::compression_from_name(options.compression);
  if (!compression) return std::move(compression).error();
  if (*compression != tracedat::Compression::None && options.file_version != 7)
    return Error("trace.dat version 6 cannot be compressed", "add --file-version 7 to compress");
  auto file = create_output_file(path);  // never through a link someone planted (util/output_file.h)
  if (!file) return std::move(file).error();
  std::unique_ptr<TraceDatWriter> writer(new TraceDatWriter(path, file->release(), options));
  if (std::string w = tracedat::unreadable_compression_warning(options.compression); !w.empty())
    writer->warnings_.push_back(w + "; --compression none writes a file every reader opens");
  return writer;
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

Status TraceDatWriter::on_event(const Event &event) {
  if (options_.user_stacks && !event.stack.empty()) user_stacks_.add(event);
  return Ok{};
}

Status TraceDatWriter::on_page(int cpu, std::span<const uint8_t> page) {
  if (!started_ || cpu < 0 || cpu >= static_cast<int>(cpu_fds_.size()))
    return Error("trace.dat writer got a page for cpu" + std::to_string(cpu) + " it did not expect");
  if (static_cast<int>(page.size()) != info_.page_size)
    return Error("trace.dat writer got a page of " + std::to_string(page.size()) + " bytes, expected " +
                 std::to_string(info_.page_size));
  if (write_error_) return *write_error_;  // recording stopped at the first failed write
  int fd = cpu_fds_[static_cast<size_t>(cpu)];
  Status st = write_all(fd, reinterpret_cast<const char *>(page.data()), page.size(), "trace data to " + path_);
  if (!st) {
    // ENOSPC, EIO: keep the complete pages, stop recording (finish() still
    // writes the file from them; see make_room()).
    (void)!ftruncate(fd, static_cast<off_t>(cpu_bytes_[static_cast<size_t>(cpu)]));
    write_error_ = std::make_unique<Status>(st);
    return st;
  }
  cpu_bytes_[static_cast<size_t>(cpu)] += page.size();
  ++pages_;
  return Ok{};
}

// After a failed write the disk is full (or failing): the file (version 6
// or 7) is still written from the pages kept, with the room it needs made first. No
// kallsyms (probes on programs do not need them), and the latest pages of
// the CPU with the most are dropped until the head, the page padding and
// one chunk of copying fit in what is free; copying then releases each
// chunk of the temporary files as it goes (copy_block(release)).
void TraceDatWriter::make_room() {
  const uint64_t ps = static_cast<uint64_t>(info_.page_size);
  std::vector<uint64_t> offsets;
  // Version 7 holds the same metadata (uncompressed at worst) in sections,
  // with their headers, a strings section and the options after the data.
  constexpr uint64_t kV7Sections = 4096;
  uint64_t head = build_tracedat_v6_head(meta_, info_.page_size, cpu_bytes_, offsets).size() +
                  (options_.file_version == 7 ? kV7Sections : 0);
  uint64_t need = head + ps * (cpu_bytes_.size() + 1) + tracedat::kReleaseChunk;
  for (;;) {
    struct statvfs vfs;
    if (fstatvfs(out_fd_, &vfs) != 0) return;
    uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (free_bytes >= need) return;
    size_t biggest = 0;
    for (size_t c = 1; c < cpu_bytes_.size(); ++c)
      if (cpu_bytes_[c] > cpu_bytes_[biggest]) biggest = c;
    if (cpu_bytes_.empty() || cpu_bytes_[biggest] == 0) return;
    uint64_t drop = std::min<uint64_t>(cpu_bytes_[biggest], std::max<uint64_t>(ps, (need - free_bytes + ps - 1) / ps * ps));
    cpu_bytes_[biggest] -= drop;
    dropped_pages_ += drop / ps;
    (void)!ftruncate(cpu_fds_[biggest], static_cast<off_t>(cpu_bytes_[biggest]));
  }
}

Status TraceDatWriter::write_file() {
  if (!started_) return Error("nothing was recorded into " + path_ + " (the stream never started)");
  bool salvage = write_error_ != nullptr;
  if (salvage) options_.with_kallsyms = false;
  if (Status st = tracedat::read_late_metadata(info_, options_.with_kallsyms, meta_); !st) return st;
  meta_.user_stacks = user_stacks_.encode_if_any();
  if (salvage) make_room();
  if (options_.file_version == 7) {
    auto compression = tracedat::compression_from_name(options_.compression);
    if (!compression) return std::move(compression).error();
    if (Status st = tracedat::write_v7(out_fd_, path_, meta_, info_.page_size, cpu_fds_, cpu_bytes_, *compression,
                                       salvage);
        !st)
      return st;
    return sync_output();
  }
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
    if (Status st = tracedat::copy_block(cpu_fds_[c], out_fd_, cpu_bytes_[c], path_, salvage); !st) return st;
    at += cpu_bytes_[c];
  }
  return sync_output();
}

Status TraceDatWriter::sync_output() {
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
