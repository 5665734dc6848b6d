#include "dwarf/source/debuginfod_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace kpp::dwarf {

namespace {

constexpr std::chrono::seconds kDefaultRetryAfter{600};  // elfutils' cache_miss_s default
constexpr size_t kMaxName = 200;                         // below NAME_MAX, with room for the prefixes

std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

// The seconds a failure is remembered: the cache's cache_miss_s file, as
// elfutils' client reads it, else 600.
std::chrono::seconds retry_after() {
  std::ifstream in(debuginfod_cache_dir() + "/cache_miss_s");
  long long s = -1;
  if (in >> s && s >= 0) return std::chrono::seconds(s);
  return kDefaultRetryAfter;
}

// A source path as one file name: '/' becomes '#' as in elfutils' cache;
// a name too long for the file system keeps its tail and a hash of the whole.
std::string source_name(const std::string &path) {
  std::string name = "source";
  for (char c : path) name += c == '/' ? '#' : c;
  if (name.size() <= kMaxName) return name;
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : path) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return "source-" + std::string(hex) + "-" + name.substr(name.size() - (kMaxName - 24));
}

Status make_directory(const std::string &path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return Ok{};
  return Error("cannot create '" + path + "': " + std::strerror(errno));
}

}  // namespace

std::string debuginfod_cache_dir() {
  if (std::string p = env("DEBUGINFOD_CACHE_PATH"); !p.empty()) return p;
  if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) return x + "/debuginfod_client";
  return env("HOME") + "/.cache/debuginfod_client";
}

CacheEntry cache_entry(const std::string &build_id, const std::string &kind, const std::string &source_path) {
  return CacheEntry{debuginfod_cache_dir() + "/" + build_id, kind == "source" ? source_name(source_path) : kind};
}

std::optional<RememberedFailure> remembered_failure(const CacheEntry &entry, const std::string &urls) {
  struct stat st {};
  if (::stat(entry.failure_path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 64 * 1024)
    return std::nullopt;
  RememberedFailure f;
  f.retry_after = retry_after();
  f.age = std::chrono::seconds(std::max<long long>(0, std::time(nullptr) - st.st_mtime));
  if (f.age >= f.retry_after) return std::nullopt;
  std::ifstream in(entry.failure_path());
  std::string asked;
  std::getline(in, asked);
  if (asked != urls) return std::nullopt;  // other servers: they are asked
  std::getline(in, f.reason);
  return f;
}

void remember_failure(const CacheEntry &entry, const std::string &urls, const std::string &reason) {
  if (!make_directory(debuginfod_cache_dir()) || !make_directory(entry.dir)) return;  // not remembered: asked again
  std::string tmp = entry.failure_path() + "." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    std::string one_line = reason;
    for (char &c : one_line)
      if (c == '\n') c = ' ';
    out << urls << "\n" << one_line << "\n";
    if (!out) return;
  }
  if (std::rename(tmp.c_str(), entry.failure_path().c_str()) != 0) std::remove(tmp.c_str());
}

void forget_failure(const CacheEntry &entry) { std::remove(entry.failure_path().c_str()); }

Result<PendingFile> PendingFile::create(const CacheEntry &entry) {
  if (Status made = make_directory(debuginfod_cache_dir()); !made) return std::move(made).error();
  if (Status made = make_directory(entry.dir); !made) return std::move(made).error();
  int fd = ::open(entry.dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return Error("cannot write in '" + entry.dir + "': " + std::strerror(errno));
  return PendingFile(entry, UniqueFd(fd));
}

Status PendingFile::restart() {
  if (::ftruncate(fd_.get(), 0) != 0 || ::lseek(fd_.get(), 0, SEEK_SET) != 0)
    return Error("cannot write in '" + entry_.dir + "': " + std::strerror(errno));
  return Ok{};
}

Status PendingFile::commit() {
  // Named under a temporary name first, then renamed over the entry: a
  // reader sees the old file or the new one, never a part.
  std::string named = entry_.dir + "/.kpp-new-" + std::to_string(::getpid()) + "-" + entry_.name;
  std::remove(named.c_str());
  if (::linkat(AT_FDCWD, proc_path().c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0)
    return Error("cannot keep the file in '" + entry_.dir + "': " + std::strerror(errno));
  if (std::rename(named.c_str(), entry_.path().c_str()) != 0) {
    int err = errno;
    std::remove(named.c_str());
    return Error("cannot keep the file as '" + entry_.path() + "': " + std::strerror(err));
  }
  forget_failure(entry_);
  return Ok{};
}

}  // namespace kpp::dwarf
