#include "src/tracedat/tracedat_options.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "src/tracedat/tracedat_io.h"
#include "util/unique_fd.h"

namespace kpp::tracedat {

namespace {

// Bounds of the walks: more than any file trace-cmd or we write has.
constexpr int kMaxOptionSections = 64;
constexpr size_t kMaxName = 4096;        // a system name, a compression name
constexpr uint64_t kMaxPayload = 1ull << 32;  // an option's size is 4 bytes

// A position in the file; every read is checked against the file's end.
class Cursor {
 public:
  Cursor(int fd, uint64_t end) : fd_(fd), end_(end) {}
  uint64_t at() const { return at_; }
  bool seek(uint64_t to) {
    if (to > end_) return false;
    at_ = to;
    return true;
  }
  bool skip(uint64_t n) { return n <= end_ - at_ && seek(at_ + n); }
  template <class T>
  bool get(T &v) {
    if (sizeof v > end_ - at_ || !pread_all(fd_, reinterpret_cast<char *>(&v), sizeof v, at_)) return false;
    at_ += sizeof v;
    return true;
  }
  bool bytes(uint64_t n, std::string &out) {
    if (n > end_ - at_ || n > kMaxPayload) return false;
    out.resize(n);
    if (n && !pread_all(fd_, out.data(), n, at_)) return false;
    at_ += n;
    return true;
  }
  // A NUL-terminated string of at most kMaxName bytes.
  bool cstr(std::string &out) {
    out.clear();
    for (char c = 0; out.size() <= kMaxName;) {
      if (!get(c)) return false;
      if (c == '\0') return true;
      out += c;
    }
    return false;
  }
  // A block: its size (a T), then that many bytes, skipped.
  template <class T>
  bool skip_sized() {
    T size = 0;
    return get(size) && skip(size);
  }
  bool literal(const char *text, size_t n) {
    std::string got;
    return bytes(n, got) && std::memcmp(got.data(), text, n) == 0;
  }

 private:
  int fd_;
  uint64_t end_, at_ = 0;
};

// Walks one options list (each "2-byte id, 4-byte size, payload") to `id`.
// `next`: in version 7, the offset DONE's payload gives (0: the last section).
bool walk_options(Cursor &in, uint64_t end, uint16_t id, int version, std::optional<std::string> &found,
                  uint64_t &next) {
  next = 0;
  while (in.at() < end) {
    uint16_t option = 0;
    uint32_t size = 0;
    if (!in.get(option)) return false;
    if (option == 0 && version == 6) return true;  // v6: DONE has no size
    if (!in.get(size) || size > end - in.at()) return false;
    if (option == 0) return size >= 8 && in.get(next);
    if (option != id) {
      if (!in.skip(size)) return false;
      continue;
    }
    std::string payload;
    if (!in.bytes(size, payload)) return false;
    found = std::move(payload);
    return true;
  }
  return version == 7;  // a section's end without DONE: no further section
}

// Version 6: the head's blocks in their order, then "options  " and the list.
bool find_v6(Cursor &in, uint16_t id, std::optional<std::string> &found) {
  std::string name;
  if (!in.cstr(name) || name != "header_page" || !in.skip_sized<uint64_t>()) return false;
  if (!in.cstr(name) || name != "header_event" || !in.skip_sized<uint64_t>()) return false;
  uint32_t count = 0;
  if (!in.get(count)) return false;
  for (uint32_t i = 0; i < count; ++i)  // each step moves 8 bytes at least: bounded by the file
    if (!in.skip_sized<uint64_t>()) return false;
  uint32_t systems = 0;
  if (!in.get(systems)) return false;
  for (uint32_t s = 0; s < systems; ++s) {
    if (!in.cstr(name) || !in.get(count)) return false;
    for (uint32_t i = 0; i < count; ++i)
      if (!in.skip_sized<uint64_t>()) return false;
  }
  if (!in.skip_sized<uint32_t>() || !in.skip_sized<uint32_t>() || !in.skip_sized<uint64_t>()) return false;
  uint32_t cpus = 0;
  if (!in.get(cpus)) return false;
  uint64_t after_cpus = in.at();
  if (!in.literal("options  \0", 10)) return in.seek(after_cpus);  // "flyrecord" or "latency": no options
  uint64_t next = 0;
  return walk_options(in, ~uint64_t{0}, id, 6, found, next);
}

// Version 7: the chain of options sections from the head's offset.
bool find_v7(Cursor &in, uint16_t id, std::optional<std::string> &found) {
  std::string compression;
  uint64_t next = 0;
  if (!in.cstr(compression) || !in.cstr(compression) || !in.get(next)) return false;
  for (int i = 0; i < kMaxOptionSections && next && !found; ++i) {
    uint16_t section = 0, flags = 0;
    uint32_t string_id = 0;
    uint64_t size = 0;
    if (!in.seek(next) || !in.get(section) || !in.get(flags) || !in.get(string_id) || !in.get(size)) return false;
    if (section != 0) return false;
    if (flags & 1) return true;  // compressed options: never ours
    uint64_t end = in.at() + size;
    if (end < in.at()) return false;
    if (!walk_options(in, end, id, 7, found, next)) return false;
  }
  return true;
}

}  // namespace

Result<std::optional<std::string>> find_tracedat_option(const std::string &path, uint16_t id) {
  // A file that cannot be opened, or is no trace.dat, has no option: the
  // trace.dat reader says what is wrong with it.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::optional<std::string>();
  auto end = file_end(fd.get(), path);
  if (!end) return std::move(end).error();
  Cursor in(fd.get(), *end);
  std::string version;
  uint8_t endian = 0, long_size = 0;
  uint32_t page_size = 0;
  if (!in.literal("\x17\x08\x44tracing", 10) || !in.cstr(version) || !in.get(endian) || !in.get(long_size) ||
      !in.get(page_size))
    return std::optional<std::string>();
  std::optional<std::string> found;
  bool walked = version == "6" ? find_v6(in, id, found) : version == "7" ? find_v7(in, id, found) : true;
  if (!walked)
    return Error("its head cannot be walked to its options: a size or an offset in it points past the file's end");
  return found;
}

}  // namespace kpp::tracedat
