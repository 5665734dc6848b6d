// Options given to DebugInfo::open() hold for that file alone, for its whole
// life (no process-wide defaults): --no-demangle and --no-cache reach each
// file opened, and dwarf::OpenedFiles opens each path once with its options.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "dwarf/debug_info.h"
#include "dwarf/opened_files.h"

namespace kpp {
namespace {

namespace fs = std::filesystem;

// A fresh directory for cache files, removed with the test.
struct CacheDirectory {
  CacheDirectory() {
    char pattern[] = "/tmp/kpp-opened-files-XXXXXX";
    path = mkdtemp(pattern);
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::replace);
  }
  ~CacheDirectory() { fs::remove_all(path); }
  size_t files() const { return std::distance(fs::directory_iterator(path), fs::directory_iterator()); }
  std::string path;
};

TEST(OpenOptions, DemanglingIsTheOpenedFilesOwnChoice) {
  auto plain = dwarf::DebugInfo::open(KPP_WHOLE_FIXTURE);
  auto mangled = dwarf::DebugInfo::open(KPP_WHOLE_FIXTURE, {.demangle = false});
  ASSERT_TRUE(plain && mangled);
  EXPECT_EQ((*plain)->display_symbol("_ZN2ns5twiceEi"), "ns::twice(int)");
  EXPECT_EQ((*mangled)->display_symbol("_ZN2ns5twiceEi"), "_ZN2ns5twiceEi");
  // Opening one file without demangling changes no other file's names.
  EXPECT_EQ((*plain)->display_symbol("_ZN2ns5twiceEi"), "ns::twice(int)");
}

TEST(OpenOptions, NoCacheWritesNoCacheFileAndTheCacheDoes) {
  CacheDirectory uncached, cached;
  for (auto [directory, use_cache] : {std::pair{&uncached, false}, std::pair{&cached, true}}) {
    auto info = dwarf::DebugInfo::open(KPP_WHOLE_FIXTURE, {.use_cache = use_cache, .cache_directory = directory->path});
    ASSERT_TRUE(info) << info.error().message;
    // Inlined copies need the whole file's index: the query that caches one.
    EXPECT_EQ((*info)->find_functions("twice", "", dwarf::InlineCopies::Include).size(), 1u);
  }
  EXPECT_EQ(uncached.files(), 0u);
  EXPECT_GT(cached.files(), 0u);
}

TEST(OpenedFiles, OpensEachPathOnceAndRemembersFailures) {
  dwarf::OpenedFiles files({.demangle = false});
  dwarf::DebugInfo *first = files.get(KPP_WHOLE_FIXTURE);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(files.get(KPP_WHOLE_FIXTURE), first);
  EXPECT_EQ(first->display_symbol("_Z1fv"), "_Z1fv") << "opened with the set's options";
  EXPECT_EQ(files.get("/nonexistent/kpp-program"), nullptr);
  EXPECT_EQ(files.get("/nonexistent/kpp-program"), nullptr);
}

TEST(OpenedFiles, ABoundClosesThemAllAndOpensAgain) {
  dwarf::OpenedFiles files({}, 1);
  ASSERT_NE(files.get(KPP_WHOLE_FIXTURE), nullptr);
  EXPECT_EQ(files.get("/nonexistent/kpp-program"), nullptr);  // the second: the first is closed
  EXPECT_NE(files.get(KPP_WHOLE_FIXTURE), nullptr) << "opened again after the bound closed it";
}

}  // namespace
}  // namespace kpp
