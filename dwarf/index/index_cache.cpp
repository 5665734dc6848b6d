#include "dwarf/index/index_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

namespace kpp::dwarf {

namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

// Removes the oldest index files until the directory fits in `max_bytes`.
// Temporary files of other runs are left alone unless they are an hour old
// (their writer died).
void trim(const std::string &directory, uint64_t max_bytes) {
  std::error_code ec;
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t size;
  };
  std::vector<Entry> files;
  uint64_t total = 0;
  auto now = fs::file_time_type::clock::now();
  for (const auto &e : fs::directory_iterator(directory, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string name = e.path().filename().string();
    auto time = e.last_write_time(ec);
    if (name.find(".tmp.") != std::string::npos) {
      if (now - time > std::chrono::hours(1)) fs::remove(e.path(), ec);
      continue;
    }
    std::string extension = e.path().extension().string();
    if (extension != ".idx" && extension != ".sym" && extension != ".fn" && extension != ".units" && extension != ".dwarf")
      continue;
    uint64_t size = e.file_size(ec);
    files.push_back({e.path(), time, size});
    total += size;
  }
  std::sort(files.begin(), files.end(), [](const Entry &a, const Entry &b) { return a.time < b.time; });
  for (const Entry &f : files) {
    if (total <= max_bytes) break;
    fs::remove(f.path, ec);
    total -= f.size;
  }
}

}  // namespace

std::string cache_directory(const CacheOptions &options) {
  if (!options.directory.empty()) return options.directory;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/kprobe-probe";
  if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/kprobe-probe";
  return {};
}

namespace {

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Whether another user could replace entries of the directory `st` describes.
std::optional<std::string> others_control(const std::string &directory, const struct stat &st) {
  if (st.st_uid != geteuid() && st.st_uid != 0)
    return "'" + directory + "' belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
           std::to_string(geteuid()) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    return "'" + directory + "' is writable by group or others (mode " + mode_text(st.st_mode) + ")";
  return std::nullopt;
}

}  // namespace

Result<std::string> usable_cache_directory(const CacheOptions &options) {
  std::string directory = cache_directory(options);
  if (directory.empty()) return Error("no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
  std::string parent = fs::path(directory).parent_path().string();
  struct stat st {};
  if (lstat(directory.c_str(), &st) != 0) {
    if (errno != ENOENT) return Error("cannot look at '" + directory + "': " + errno_text());
    std::error_code ec;
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
      return Error("cannot create '" + directory + "': " + errno_text());
    if (lstat(directory.c_str(), &st) != 0) return Error("cannot look at '" + directory + "': " + errno_text());
  }
  if (S_ISLNK(st.st_mode)) return Error("'" + directory + "' is a symbolic link");
  if (!S_ISDIR(st.st_mode)) return Error("'" + directory + "' is not a directory");
  if (st.st_uid != geteuid())
    return Error("'" + directory + "' belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                 std::to_string(geteuid()) + ")");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return Error("'" + directory + "' is writable by group or others (mode " + mode_text(st.st_mode) + ")");
  // Its parent: whoever may rename entries there may swap the directory for a link after this check.
  struct stat up {};
  if (!parent.empty() && stat(parent.c_str(), &up) == 0)
    if (auto why = others_control(parent, up)) return Error(*why);
  return directory;
}

Result<IndexKey> index_key(const std::string &path, const std::string &build_id) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Error("cannot stat '" + path + "': " + errno_text());
  IndexKey key;
  key.target_size = static_cast<uint64_t>(st.st_size);
  if (!build_id.empty()) {
    key.identity = "build-id:" + build_id;
  } else {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    key.identity = "file:" + (ec ? path : absolute.string()) + ":" + std::to_string(st.st_size) + ":" +
                   std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }
  return key;
}

std::string cache_file(const std::string &directory, const IndexKey &key, const char *extension) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key.identity)));
  return directory + "/" + name + extension;
}

namespace {

// A cache file opened for reading: not through a link, and without waiting
// on a FIFO (the caller then refuses anything but a regular file).
int open_cache_file(const std::string &file) { return ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); }

// The file mapped read-only, unmapped with its last owner.
std::optional<std::pair<std::shared_ptr<const void>, const uint8_t *>> map_file(int fd, size_t size) {
  void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;
  std::shared_ptr<const void> owner(map, [size](const void *p) { munmap(const_cast<void *>(p), size); });
  return std::make_pair(std::move(owner), static_cast<const uint8_t *>(map));
}

}  // namespace

std::optional<uint64_t> checksum_of_file(int fd, uint64_t offset, uint64_t size) {
  ImageChecksum sum(size);
  std::vector<uint8_t> chunk(std::min<uint64_t>(size, 256 << 10));
  for (uint64_t done = 0; done < size;) {
    ssize_t n = ::pread(fd, chunk.data(), std::min<uint64_t>(chunk.size(), size - done), static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    sum.update(chunk.data(), static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
  }
  return sum.finish();
}

Result<NameIndex> load_index(const std::string &file, const IndexKey &key) {
  int fd = open_cache_file(file);
  if (fd < 0) return Error(errno == ENOENT ? "no cache file" : "cannot open: " + errno_text());
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    ::close(fd);
    return Error("empty, unreadable or not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  std::optional<uint64_t> sum;
  if (size > NameIndex::kHeaderSize) sum = checksum_of_file(fd, NameIndex::kHeaderSize, size - NameIndex::kHeaderSize);
  auto mapped = map_file(fd, size);
  ::close(fd);  // the mapping keeps the file's pages
  if (!mapped) return Error("cannot map: " + errno_text());
  return NameIndex::adopt(std::move(mapped->first), mapped->second, size, key, sum);
}

namespace {

// The header of a cached text: what it must match, and its checksum.
struct TextHeader {
  char magic[8];
  uint32_t identity_size;
  uint32_t reserved;
  uint64_t target_size;
  uint64_t text_size;
  uint64_t checksum;
  char identity[192];
};
constexpr char kTextMagic[8] = {'K', 'P', 'P', 'T', 'E', 'X', 'T', '1'};

TextHeader text_header(const IndexKey &key, std::string_view text) {
  TextHeader h{};
  std::memcpy(h.magic, kTextMagic, sizeof h.magic);
  std::string_view id = std::string_view(key.identity).substr(0, sizeof h.identity - 1);
  h.identity_size = static_cast<uint32_t>(id.size());
  std::memcpy(h.identity, id.data(), id.size());
  h.target_size = key.target_size;
  h.text_size = text.size();
  h.checksum = image_checksum(reinterpret_cast<const uint8_t *>(text.data()), text.size());
  return h;
}

// Writes `bytes` to `file` through a temporary file renamed into place,
// then trims the directory to `max_bytes`.
Status store_atomically(const std::string &file, std::string_view bytes, uint64_t max_bytes) {
  return store_written(file, max_bytes, [&](int fd) -> Status {
    const char *p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Error("cannot write: " + errno_text());
      p += n;
      left -= static_cast<size_t>(n);
    }
    return Ok{};
  });
}

}  // namespace

Status store_written(const std::string &file, uint64_t max_bytes, const std::function<Status(int fd)> &write) {
  std::string directory = fs::path(file).parent_path().string();  // checked by usable_cache_directory()
  // A name no other run uses: pid and a random number.
  std::random_device random;
  std::string temp = file + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
  int fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error("cannot create '" + temp + "': " + errno_text());
  if (Status written = write(fd); !written) {
    ::close(fd);
    ::unlink(temp.c_str());
    return Error("'" + temp + "': " + written.error().message);
  }
  if (::close(fd) != 0 || ::rename(temp.c_str(), file.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(temp.c_str());
    return Error("cannot store '" + file + "': " + why);
  }
  trim(directory, max_bytes);
  return Ok{};
}

Status store_index(const std::string &file, const NameIndex &index, uint64_t max_bytes) {
  std::string_view bytes = index.bytes();
  if (bytes.size() > max_bytes) return Error("the index (" + std::to_string(bytes.size() >> 20) + " MB) is larger than the cache bound");
  return store_atomically(file, bytes, max_bytes);
}

Status store_cached(const std::string &file, const IndexKey &key, std::string_view text, uint64_t max_bytes) {
  TextHeader h = text_header(key, text);
  std::string bytes(reinterpret_cast<const char *>(&h), sizeof h);
  bytes += text;
  if (bytes.size() > max_bytes) return Error("the list is larger than the cache bound");
  return store_atomically(file, bytes, max_bytes);
}

Result<CachedBytes> load_cached(const std::string &file, const IndexKey &key) {
  int fd = open_cache_file(file);
  if (fd < 0) return Error(errno == ENOENT ? "no cache file" : "cannot open: " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return Error("not a regular file");
  if (static_cast<size_t>(st.st_size) < sizeof(TextHeader)) return Error("shorter than its header");
  size_t size = static_cast<size_t>(st.st_size);
  TextHeader have;
  if (::pread(fd, &have, sizeof have, 0) != static_cast<ssize_t>(sizeof have)) return Error("cannot read: " + errno_text());
  TextHeader want = text_header(key, {});
  if (std::memcmp(have.magic, kTextMagic, sizeof have.magic) != 0) return Error("not a cache file (bad magic)");
  if (have.identity_size != want.identity_size || std::memcmp(have.identity, want.identity, want.identity_size) != 0 ||
      have.target_size != want.target_size)
    return Error("made for another binary (stale)");
  if (have.text_size != size - sizeof(TextHeader)) return Error("truncated or padded");
  if (checksum_of_file(fd, sizeof(TextHeader), have.text_size) != have.checksum) return Error("damaged (checksum mismatch)");
  auto mapped = map_file(fd, size);
  if (!mapped) return Error("cannot map: " + errno_text());
  const char *bytes = reinterpret_cast<const char *>(mapped->second) + sizeof(TextHeader);
  return CachedBytes{std::move(mapped->first), std::string_view(bytes, have.text_size), sizeof(TextHeader)};
}

Result<ObtainedIndex> obtain_index(const CacheOptions &options, const IndexKey &key,
                                   const std::function<Result<NameIndex>()> &build) {
  auto directory = options.enabled ? usable_cache_directory(options) : Result<std::string>(Error("--no-cache"));
  std::string file = directory ? cache_file(*directory, key) : std::string();
  std::string note;
  if (!file.empty()) {
    auto cached = load_index(file, key);
    if (cached) return ObtainedIndex{std::move(*cached), IndexSource::Cache, "index: using " + file, file};
    note = "index: " + file + ": " + cached.error().message + "; rebuilt";
  } else {
    note = options.enabled ? "index: cache not used: " + directory.error().message + "; built in memory"
                           : "index: built in memory (--no-cache)";
  }
  auto built = build();
  if (!built) return std::move(built).error();
  if (!file.empty()) {
    // A cache that cannot be written costs time on the next run, not this answer.
    if (auto stored = store_index(file, *built, options.max_bytes); !stored) note += " (not stored: " + stored.error().message + ")";
  }
  return ObtainedIndex{std::move(*built), IndexSource::Built, note, file};
}

}  // namespace kpp::dwarf
