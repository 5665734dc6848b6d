#include "src/tracedat/tracedat_v7.h"

#include <algorithm>
#include <map>

#include "src/tracedat/tracedat_io.h"
#include "src/tracedat/tracedat_layout.h"

namespace kpp::tracedat {

namespace {

constexpr uint16_t kFlagCompressed = 1;
constexpr uint64_t kSectionHeaderSize = 16;

// The section names, stored once in the strings section; a name's id is its offset.
class Strings {
 public:
  uint32_t id(const std::string &s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    uint32_t at = static_cast<uint32_t>(blob_.size());
    put_cstr(blob_, s);
    ids_.emplace(s, at);
    return at;
  }
  const std::string &blob() const { return blob_; }

 private:
  std::map<std::string, uint32_t> ids_;
  std::string blob_;
};

std::string section_header(uint16_t id, uint16_t flags, uint32_t name, uint64_t size) {
  std::string h;
  put<uint16_t>(h, id);
  put<uint16_t>(h, flags);
  put<uint32_t>(h, name);
  put<uint64_t>(h, size);
  return h;
}

// A whole section: header and body, the body compressed when asked.
Result<std::string> section(uint16_t id, const std::string &name, const std::string &body, Compression c,
                            Strings &strings) {
  if (c == Compression::None) return section_header(id, 0, strings.id(name), body.size()) + body;
  auto z = compress_block(c, body);
  if (!z) return std::move(z).error();
  std::string payload;
  put<uint32_t>(payload, static_cast<uint32_t>(z->size()));
  put<uint32_t>(payload, static_cast<uint32_t>(body.size()));
  payload += *z;
  return section_header(id, kFlagCompressed, strings.id(name), payload.size()) + payload;
}

// The bracketed clock of a trace_clock file ("local [mono] boot" -> "mono").
std::string selected_clock(const std::string &trace_clock) {
  auto open = trace_clock.find('[');
  auto close = trace_clock.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "local";
  return trace_clock.substr(open + 1, close - open - 1);
}

Status pad_to(int fd, uint64_t &at, uint64_t target, const std::string &what) {
  if (target <= at) return Ok{};
  std::string zeros(target - at, '\0');
  at = target;
  return write_all(fd, zeros, what);
}

// Writes CPU data as compressed chunks; returns the bytes written.
// `release`: each chunk's bytes of `in` are given back once written (a full
// disk: the temporary files and the output share it).
Result<uint64_t> write_compressed_cpu(int in, uint64_t len, int out, int page_size, Compression c,
                                      const std::string &what, bool release) {
  const uint64_t chunk = static_cast<uint64_t>(page_size) * kPagesPerChunk;
  const uint64_t chunks = (len + chunk - 1) / chunk;
  std::string head;
  put<uint32_t>(head, static_cast<uint32_t>(chunks));
  if (Status st = write_all(out, head, what); !st) return std::move(st).error();
  uint64_t written = head.size();
  std::string raw;
  for (uint64_t at = 0; at < len; at += chunk) {
    raw.resize(static_cast<size_t>(std::min(chunk, len - at)));
    if (Status st = pread_all(in, raw.data(), raw.size(), at); !st) return std::move(st).error();
    auto z = compress_block(c, raw);
    if (!z) return std::move(z).error();
    std::string h;
    put<uint32_t>(h, static_cast<uint32_t>(z->size()));
    put<uint32_t>(h, static_cast<uint32_t>(raw.size()));
    if (Status st = write_all(out, h + *z, what); !st) return std::move(st).error();
    written += h.size() + z->size();
    if (release) release_bytes(in, at, raw.size());
  }
  return written;
}

// The file's head: the initial header, the compression, a placeholder for
// the options section's offset (at `options_offset_at`) and the metadata
// sections, each remembered as an option in `options`.
Result<std::string> head_and_metadata(const Metadata &meta, int page_size, Compression c, Strings &strings,
                                      std::string &options, uint64_t &options_offset_at) {
  std::string head = initial_header(7, page_size);
  put_cstr(head, compression_name(c));
  put_cstr(head, compression_version(c));
  options_offset_at = head.size();
  put<uint64_t>(head, 0);  // filled in at the end

  struct Meta {
    uint16_t id;
    const char *name;
    std::string body;
  };
  const Meta metas[] = {
      {kOptionHeaderInfo, "headers", header_info_body(meta)},
      {kOptionFtraceEvents, "ftrace events", ftrace_formats_body(meta)},
      {kOptionEventFormats, "events format", event_formats_body(meta)},
      {kOptionKallsyms, "kallsyms", kallsyms_body(meta)},
      {kOptionPrintk, "printk", printk_body(meta)},
      {kOptionCmdlines, "command lines", cmdlines_body(meta)},
  };
  for (const Meta &m : metas) {
    auto s = section(m.id, m.name, m.body, c, strings);
    if (!s) return std::move(s).error();
    std::string offset;
    put<uint64_t>(offset, head.size());
    put_option(options, m.id, offset);
    head += *s;
  }
  return head;
}

// Where one CPU's data lies in the file.
struct CpuData {
  uint64_t offset = 0, size = 0;
};

// The flyrecord section at `at` (advanced past it): each CPU's data on a
// page of its own; the section's size is written once the data is in.
Result<std::vector<CpuData>> write_flyrecord(int out_fd, const std::string &what, uint64_t &at, int page_size,
                                             const std::vector<int> &cpu_fds, const std::vector<uint64_t> &cpu_bytes,
                                             Compression c, bool release, Strings &strings) {
  const uint64_t fly_at = at;
  const uint16_t fly_flags = c == Compression::None ? 0 : kFlagCompressed;
  if (Status st = write_all(out_fd, section_header(kOptionBuffer, fly_flags, strings.id("buffer flyrecord "), 0), what); !st)
    return std::move(st).error();
  at += kSectionHeaderSize;
  const uint64_t ps = static_cast<uint64_t>(page_size);
  std::vector<CpuData> cpus(cpu_fds.size());
  for (size_t cpu = 0; cpu < cpu_fds.size(); ++cpu) {
    if (Status st = pad_to(out_fd, at, (at + ps - 1) / ps * ps, what); !st) return std::move(st).error();
    cpus[cpu].offset = at;
    if (c == Compression::None) {
      if (Status st = copy_block(cpu_fds[cpu], out_fd, cpu_bytes[cpu], what, release); !st) return std::move(st).error();
      cpus[cpu].size = cpu_bytes[cpu];
    } else {
      auto n = write_compressed_cpu(cpu_fds[cpu], cpu_bytes[cpu], out_fd, page_size, c, what, release);
      if (!n) return std::move(n).error();
      cpus[cpu].size = *n;
    }
    at += cpus[cpu].size;
  }
  std::string fly_size;
  put<uint64_t>(fly_size, at - fly_at - kSectionHeaderSize);
  if (Status st = pwrite_all(out_fd, fly_size, fly_at + 8, what); !st) return std::move(st).error();
  return cpus;
}

// The options that describe the recording: clock, uname, CPUs and their
// statistics, the top instance's buffer (its CPU data at `cpus`), done.
void put_recording_options(std::string &options, const Metadata &meta, int page_size, uint64_t fly_at,
                           const std::vector<CpuData> &cpus) {
  put_option(options, kOptionTraceClock, meta.trace_clock + '\0');
  if (!meta.uname.empty()) put_option(options, kOptionUname, meta.uname + '\0');
  std::string count;
  put<uint32_t>(count, static_cast<uint32_t>(cpus.size()));
  put_option(options, kOptionCpuCount, count);
  put_cpu_stats(options, meta);
  put_own_options(options, meta);
  std::string buffer;
  put<uint64_t>(buffer, fly_at);
  put_cstr(buffer, "");  // the top instance: readers show its events without a buffer name
  put_cstr(buffer, selected_clock(meta.trace_clock));
  put<uint32_t>(buffer, static_cast<uint32_t>(page_size));
  put<uint32_t>(buffer, static_cast<uint32_t>(cpus.size()));
  for (size_t cpu = 0; cpu < cpus.size(); ++cpu) {
    put<uint32_t>(buffer, static_cast<uint32_t>(cpu));
    put<uint64_t>(buffer, cpus[cpu].offset);
    put<uint64_t>(buffer, cpus[cpu].size);
  }
  put_option(options, kOptionBuffer, buffer);
  std::string done;
  put<uint64_t>(done, 0);
  put_option(options, kOptionDone, done);
}

}  // namespace

Status write_v7(int out_fd, const std::string &what, const Metadata &meta, int page_size,
                const std::vector<int> &cpu_fds, const std::vector<uint64_t> &cpu_bytes, Compression c, bool release) {
  Strings strings;
  std::string options;
  uint64_t options_offset_at = 0;
  auto head = head_and_metadata(meta, page_size, c, strings, options, options_offset_at);
  if (!head) return std::move(head).error();
  if (Status st = write_all(out_fd, *head, what); !st) return st;
  uint64_t at = head->size();

  const uint64_t fly_at = at;
  auto cpus = write_flyrecord(out_fd, what, at, page_size, cpu_fds, cpu_bytes, c, release, strings);
  if (!cpus) return std::move(cpus).error();
  put_recording_options(options, meta, page_size, fly_at, *cpus);

  // The options section, then the strings; then the head learns where the options are.
  const uint64_t options_at = at;
  const uint32_t options_name = strings.id("options");
  strings.id("strings");
  std::string tail = section_header(0, 0, options_name, options.size()) + options;
  auto str = section(kOptionStrings, "strings", strings.blob(), Compression::None, strings);
  if (!str) return std::move(str).error();
  tail += *str;
  if (Status st = write_all(out_fd, tail, what); !st) return st;
  std::string options_offset;
  put<uint64_t>(options_offset, options_at);
  return pwrite_all(out_fd, options_offset, options_offset_at, what);
}

}  // namespace kpp::tracedat
