// context()'s check of every unit's DIEs (dwarf/die_stream_check.h), done
// once per file: on a vmlinux it reads all 160 MB of .debug_info (~0.4 s of
// CPU), which a query that reads one unit would otherwise pay on every run.
// The verdict "every unit read whole" is kept in the cache under the file's
// identity and its inode, size, modification and change times: a file
// changed since (even with its mtime put back: the change time cannot be)
// is checked again. Without the cache (--no-cache) every run checks.
#include <sys/stat.h>

#include <string>

#include "dwarf/die_stream_check.h"
#include "dwarf/index_cache.h"
#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

namespace {

// What names this very file: a cached verdict of another file (or of this
// path before it was replaced) must not stand for it.
std::string file_state(const std::string &path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

constexpr std::string_view kVerdict = "every unit's DIEs lie inside their unit";

}  // namespace

void LlvmDebugInfo::refuse_damaged_dwarf() {
  std::string path = debug_path(), state = file_state(path);
  auto home = state.empty() ? std::nullopt : cache_home(path);
  std::string file;
  if (home) {
    home->key.identity += " die check v1 " + state;
    file = cache_file(home->directory, home->key, ".dies");
    if (auto cached = load_cached(file, home->key); cached && cached->bytes == kVerdict) return;
  }
  refuse_damaged_dies(*context_, path, [this](std::string_view unit) { drop_pages(dwarf_mapping(), unit); });
  if (!file.empty()) (void)store_cached(file, home->key, kVerdict, home->max_bytes);
}

}  // namespace kpp::dwarf
