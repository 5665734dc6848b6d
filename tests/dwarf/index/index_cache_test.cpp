// The name index and its cache, on fixture programs built by tests/dwarf/index_test.cmake.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dwarf/debug_info.h"
#include "dwarf/index/index_cache.h"

namespace kpp::dwarf {
namespace {

namespace fs = std::filesystem;

const char *const kNames[] = {"index_mix", "lookup", "sum_a", "sum_b", "main", "no_such_function"};

std::vector<std::string> fixtures() {
  std::vector<std::string> found;
  for (const char *name : {"index_gcc_O2", "index_gcc_O2_dwarf4", "index_gcc_O0", "index_gcc_O2_lto", "index_clang_O2",
                           "index_gcc_O2_split", "index_gcc_O2_dwarf4_splitdwp", "index_clang_O2_splitdwp"}) {
    std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/" + name;
    if (fs::exists(path)) found.push_back(path);
  }
  return found;
}

// What a query answers, as comparable text: one line per function.
std::string answer(DebugInfo &debug, const std::string &name) {
  std::string out;
  for (const Function &fn : debug.find_functions(name, "", InlineCopies::Include)) {
    out += fn.name + " " + std::to_string(fn.entry) + (fn.inlined ? " inlined " : " body ") + fn.decl_file + ":" +
           std::to_string(fn.decl_line) + " symbol " + fn.symbol + " frame " + std::to_string(fn.frame_entry) + (fn.optimized ? " optimized" : "");
    for (const AddressRange &r : fn.ranges) out += " " + std::to_string(r.begin) + "-" + std::to_string(r.end);
    out += "\n";
  }
  return out;
}

// File:line places: the helper's body (inlined in both units), lines of
// each unit, by longer and shorter suffixes, and files no unit names.
const std::pair<const char *, int> kPlaces[] = {
    {"index_helpers.h", 6}, {"fixtures/index_helpers.h", 6}, {"index_a.c", 7}, {"fixtures/index_a.c", 15},
    {"index_b.c", 7}, {"index_b.c", 14}, {"x_index_b.c", 14}, {"no_such_file.c", 3}, {"index_a.c", 1000}};

std::string place_answer(DebugInfo &debug, const std::string &file, int line) {
  std::string out = file + ":" + std::to_string(line) + " in " + debug.find_source_file(file) + "\n";
  for (const auto &[site, fn] : debug.file_line_sites(file, line))
    out += "  " + std::to_string(site.address) + " " + fn.name + " " + std::to_string(fn.entry) + "\n";
  return out;
}

std::string all_answers(DebugInfo &debug) {
  std::string out;
  for (const char *name : kNames) out += std::string(name) + ":\n" + answer(debug, name);
  for (const auto &[file, line] : kPlaces) out += place_answer(debug, file, line);
  return out;
}

std::unique_ptr<DebugInfo> open_with(const std::string &path, bool use_cache, const std::string &directory) {
  auto debug = DebugInfo::open(path, OpenOptions{use_cache, directory});
  EXPECT_TRUE(debug) << (debug ? "" : debug.error().message);
  return debug ? std::move(*debug) : nullptr;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class IndexCache : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/kpp-index-test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    directory_ = pattern;
    ASSERT_FALSE(fixtures().empty()) << "no fixture in " << KPP_INDEX_FIXTURE_DIR;
  }
  void TearDown() override { fs::remove_all(directory_); }

  // How many files of that type the cache directory holds.
  size_t cache_files(const char *extension) {
    size_t n = 0;
    if (fs::exists(directory_))
      for (const auto &e : fs::directory_iterator(directory_)) n += e.path().extension() == extension;
    return n;
  }
  // The one index file the cache directory holds.
  std::string cache_file_path(const char *extension = ".idx") {
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(directory_))
      if (e.path().extension() == extension) files.push_back(e.path().string());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? std::string() : files[0];
  }

  // With an empty cache, `answer` (a run with the cache) writes the file
  // of `extension`; the next run answers the same from it; a byte flipped
  // `from_end` bytes before its end is noticed, and the file made again.
  void expect_cache_file_repaired(const char *extension, size_t from_end, const std::function<std::string()> &answer,
                                  const std::string &expected) {
    fs::remove_all(directory_);
    EXPECT_EQ(answer(), expected);
    std::string file = cache_file_path(extension);
    ASSERT_FALSE(file.empty());
    std::string good = read_file(file);
    EXPECT_EQ(answer(), expected);
    std::string bad = good;
    bad[bad.size() - from_end] ^= 0x41;
    write_file(file, bad);
    EXPECT_EQ(answer(), expected);
    EXPECT_EQ(read_file(file), good) << extension << ": the damaged file was not made again";
  }

  std::string directory_;
};

TEST_F(IndexCache, CachedAndUncachedPathsGiveTheSameFunctions) {
  for (const std::string &path : fixtures()) {
    SCOPED_TRACE(path);
    fs::remove_all(directory_);
    auto uncached = open_with(path, false, directory_);
    std::string expected = all_answers(*uncached);
    // Searched (dwarf/index/name_search.h), or built in memory where a search cannot answer.
    EXPECT_NE(uncached->provenance().index_source(), IndexSource::Cache);
    EXPECT_FALSE(fs::exists(directory_)) << "--no-cache wrote a file";

    auto building = open_with(path, true, directory_);
    EXPECT_EQ(all_answers(*building), expected);
    EXPECT_EQ(building->provenance().index_source(), IndexSource::Built);
    auto cached = open_with(path, true, directory_);
    EXPECT_EQ(all_answers(*cached), expected);
    EXPECT_EQ(cached->provenance().index_source(), IndexSource::Cache) << cached->provenance().index_note();
  }
}

// The index (functions by name, units by file), and the byte search that
// stands in for it without the cache, answer what a walk of every unit with
// LLVM answers, and the file lines are found at all.
TEST_F(IndexCache, IndexAnswersAsAWalkOfEveryUnit) {
  for (const std::string &path : fixtures()) {
    SCOPED_TRACE(path);
    fs::remove_all(directory_);
    OpenOptions walk{false, directory_};
    walk.use_index = false;
    auto without = DebugInfo::open(path, walk);
    ASSERT_TRUE(without);
    std::string expected = all_answers(**without);
    EXPECT_EQ((*without)->provenance().index_source(), IndexSource::None);
    auto with = open_with(path, true, directory_);
    EXPECT_EQ(all_answers(*with), expected);
    EXPECT_EQ(with->provenance().index_source(), IndexSource::Built);
    auto searched = open_with(path, false, directory_);
    EXPECT_EQ(all_answers(*searched), expected);
    // The helper's line has code in both units (it is inlined in each).
    EXPECT_GE(with->file_line_sites("index_helpers.h", 6).size(), 2u);
    EXPECT_FALSE(with->file_line_sites("index_b.c", 14).empty());
    EXPECT_TRUE(with->file_line_sites("x_index_b.c", 14).empty());
  }
}

// The index's inlined copies are read raw (dwarf/raw/raw_inlined_copy.h), not
// by LLVM (which reads every DIE of each copy's unit): on Debian's LTO
// python3.11, whose functions have copies in dozens of units, they are the
// Functions a walk of every unit by LLVM makes of them; glibc's copies,
// whose origins are in their own units, LLVM reads, and they stay as they were.
TEST_F(IndexCache, InlinedCopiesReadRawAreTheFunctionsLlvmMakesOnDebianBinaries) {
  const std::pair<const char *, std::vector<const char *>> binaries[] = {
      {"/usr/bin/python3.11", {"PyObject_Malloc", "PyUnicode_FromString", "PyList_Append", "PyTuple_New"}},
      {"/lib/x86_64-linux-gnu/libc.so.6", {"__libc_malloc", "tcache_put", "checked_request2size", "_IO_acquire_lock_fct"}}};
  int compared = 0;
  for (const auto &[path, names] : binaries) {
    SCOPED_TRACE(path);
    auto with = open_with(path, false, directory_);
    if (!with || !with->has_dwarf()) {
      std::cout << "skipped " << path << ": no DWARF for it (python3.11-dbg, libc6-dbg: scripts/install-deps.sh --tests)\n";
      continue;
    }
    OpenOptions walk{false, directory_};
    walk.use_index = false;
    auto without = DebugInfo::open(path, walk);
    ASSERT_TRUE(without);
    for (const char *name : names) {
      std::string expected = answer(**without, name);
      EXPECT_EQ(answer(*with, name), expected) << name;
      compared += expected.find(" inlined ") != std::string::npos;
    }
  }
  if (compared == 0) GTEST_SKIP() << "neither python3.11-dbg nor libc6-dbg is installed (scripts/install-deps.sh --tests)";
}

TEST_F(IndexCache, FindsInlinedCopiesAndSameNamedStatics) {
  std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/index_gcc_O2";
  auto debug = open_with(path, true, directory_);
  auto statics = debug->find_functions("lookup", "", InlineCopies::Exclude);
  ASSERT_EQ(statics.size(), 2u);
  EXPECT_NE(statics[0].decl_file, statics[1].decl_file);
  int inlined = 0;
  for (const Function &fn : debug->find_functions("index_mix", "", InlineCopies::Include)) inlined += fn.inlined;
  EXPECT_GE(inlined, 3);  // lookup and sum_a in a.c, lookup and sum_b in b.c (some may be merged)
  auto only_b = debug->find_functions("lookup", "index_b.c", InlineCopies::Exclude);
  ASSERT_EQ(only_b.size(), 1u);
}

TEST_F(IndexCache, SecondRunUsesTheFileWithoutRewritingIt) {
  std::string path = fixtures().front();
  auto first = open_with(path, true, directory_);
  answer(*first, "index_mix");
  ASSERT_EQ(first->provenance().index_source(), IndexSource::Built) << first->provenance().index_note();
  std::string file = cache_file_path();
  struct stat before {};
  ASSERT_EQ(stat(file.c_str(), &before), 0);

  auto second = open_with(path, true, directory_);
  answer(*second, "index_mix");
  EXPECT_EQ(second->provenance().index_source(), IndexSource::Cache);
  EXPECT_NE(second->provenance().index_note().find(file), std::string::npos) << second->provenance().index_note();
  struct stat after {};
  ASSERT_EQ(stat(file.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

// Without the cache a lookup by name reads only the units whose bytes name
// the function (dwarf/index/name_search.h), and answers as the whole index does
// (CachedAndUncachedPathsGiveTheSameFunctions compares every answer).
TEST_F(IndexCache, NoCacheLookupsReadOnlyTheUnitsThatNameTheFunction) {
  for (const char *fixture : {"index_gcc_O2", "index_gcc_O2_dwarf4", "index_gcc_O0"}) {
    SCOPED_TRACE(fixture);
    std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/" + fixture;
    auto debug = open_with(path, false, directory_);
    // sum_a is named in index_a.c alone; the helper and the statics in both units.
    EXPECT_EQ(debug->find_functions("sum_a", "", InlineCopies::Include).size(), 1u);
    EXPECT_NE(debug->provenance().index_note().find("'sum_a' looked for in the 1 of 2 units"), std::string::npos)
        << debug->provenance().index_note();
    EXPECT_EQ(debug->provenance().index_source(), IndexSource::None) << "the whole index was built";
    EXPECT_EQ(debug->find_functions("lookup", "", InlineCopies::Include).size(), 2u);
    EXPECT_NE(debug->provenance().index_note().find("'lookup' looked for in the 2 of 2 units"), std::string::npos)
        << debug->provenance().index_note();
    EXPECT_TRUE(debug->find_functions("no_such_function", "", InlineCopies::Include).empty());
    // SRC:ALN reads the line tables that name the file, found the same way.
    EXPECT_FALSE(debug->file_line_sites("index_b.c", 14).empty());
    EXPECT_NE(debug->provenance().index_note().find("the line tables of 1 of 2 units name 'index_b.c'"), std::string::npos)
        << debug->provenance().index_note();
    EXPECT_GE(debug->file_line_sites("fixtures/index_helpers.h", 6).size(), 2u);
    EXPECT_EQ(debug->provenance().index_source(), IndexSource::None) << "the whole index was built";
    // Past a dozen names, one scan of every unit costs less than more searches.
    for (int i = 0; i < 12; ++i) debug->find_functions("no_such_" + std::to_string(i), "", InlineCopies::Include);
    EXPECT_EQ(debug->provenance().index_source(), IndexSource::Built) << debug->provenance().index_note();
    EXPECT_EQ(debug->find_functions("lookup", "", InlineCopies::Include).size(), 2u);
  }
  // clang's DWARF 5 names functions by string index (DW_FORM_strx): a byte
  // search cannot see those, so every unit is read.
  std::string clang = std::string(KPP_INDEX_FIXTURE_DIR) + "/index_clang_O2";
  if (fs::exists(clang)) {
    auto debug = open_with(clang, false, directory_);
    EXPECT_FALSE(debug->find_functions("sum_a", "", InlineCopies::Include).empty());
    EXPECT_EQ(debug->provenance().index_note().find("looked for in the"), std::string::npos) << debug->provenance().index_note();
  }
}

// The symbol table answers the same by a walk of its entries (the first
// queries) and from its sorted copy (made once the walks add up).
TEST_F(IndexCache, SymbolWalksAndTheSortedTableAgree) {
  std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/index_gcc_O2";
  auto walked = open_with(path, false, directory_);
  auto sorted = open_with(path, false, directory_);
  std::vector<uint64_t> addresses;
  for (const char *name : {"main", "sum_a", "sum_b", "lookup"})
    for (const Function &fn : walked->find_functions(name, "", InlineCopies::Exclude))
      for (uint64_t a = fn.entry; a < fn.entry + 6; ++a) addresses.push_back(a);
  ASSERT_GE(addresses.size(), 20u);
  for (int i = 0; i < 64; ++i) sorted->elf().symbolize(addresses.front());  // past the walks: sorted from here on
  for (size_t i = 0; i < addresses.size() && i < 24; ++i) {
    auto walk = walked->elf().symbolize(addresses[i]);
    auto table = sorted->elf().symbolize(addresses[i]);
    ASSERT_TRUE(walk && table) << addresses[i];
    EXPECT_EQ(*walk, *table) << addresses[i];
  }
  EXPECT_EQ(walked->elf().function_symbol_addresses("lookup"), sorted->elf().function_symbol_addresses("lookup"));
  EXPECT_EQ(sorted->elf().function_symbol_addresses("lookup").size(), 2u);
  EXPECT_FALSE(walked->elf().symbolize(0).has_value());

  // With the cache: the same answers, and no sorted copy written (a
  // crafted one could hide a symbol: issue 12 item 3).
  auto answers = [&](DebugInfo &debug) {
    std::string out;
    for (size_t i = 0; i < addresses.size() && i < 24; ++i)
      if (auto sym = debug.elf().symbolize(addresses[i])) out += sym->first + "+" + std::to_string(sym->second) + " ";
    for (const char *name : {"lookup", "main", "sum_a", "no_such"})
      out += std::to_string(debug.elf().function_symbol_addresses(name).size()) + " ";
    for (const auto &[name, address] : debug.elf().symbol_addresses({"main", "sink_not_there", "_start"}))
      out += name + "=" + std::to_string(address) + " ";
    return out + (debug.elf().is_kernel() ? "kernel" : "program");
  };
  std::string expected = answers(*open_with(path, false, directory_));
  EXPECT_EQ(answers(*open_with(path, true, directory_)), expected);
  EXPECT_EQ(answers(*open_with(path, true, directory_)), expected);
  EXPECT_EQ(cache_files(".sym"), 0u);
}

// -F's list answers as the symbol table does, and is not cached: a
// crafted list would be another answer, and checking one costs what making
// it does (issue 12 item 3).
TEST_F(IndexCache, FunctionListIsNotCached) {
  std::string fixture = fixtures().front();
  fs::remove_all(directory_);
  auto names = [](DebugInfo &debug) {
    std::vector<std::string> out;
    for (std::string_view n : debug.function_names()) out.emplace_back(n);
    return out;
  };
  std::vector<std::string> expected = names(*open_with(fixture, false, directory_));
  EXPECT_FALSE(fs::exists(directory_)) << "--no-cache wrote a file";
  for (const char *want : {"main", "sum_a", "sum_b", "lookup"})
    EXPECT_NE(std::find(expected.begin(), expected.end(), want), expected.end()) << want;
  EXPECT_TRUE(std::is_sorted(expected.begin(), expected.end()));
  EXPECT_EQ(names(*open_with(fixture, true, directory_)), expected);
  EXPECT_EQ(names(*open_with(fixture, true, directory_)), expected);
  EXPECT_EQ(cache_files(".fn"), 0u);
}

// Where the units start is cached too (*.units): the next run maps their
// headers without reading them, and answers the same; a damaged file is
// made again, never trusted.
TEST_F(IndexCache, UnitStartsAreCachedAndChecked) {
  std::string fixture = fixtures().front();
  fs::remove_all(directory_);
  std::string expected = all_answers(*open_with(fixture, false, directory_));
  // A flipped byte of a unit's first word: the checksum tells.
  expect_cache_file_repaired(".units", 12, [&] { return all_answers(*open_with(fixture, true, directory_)); }, expected);
}

TEST_F(IndexCache, QueriesThatNeedNoScanBuildNoIndex) {
  auto debug = open_with(fixtures().front(), true, directory_);
  debug->find_functions("sum_a", "", InlineCopies::Exclude);  // the symbol table answers
  EXPECT_EQ(debug->provenance().index_source(), IndexSource::None);
  bool index_written = false;
  if (fs::exists(directory_))
    for (const auto &e : fs::directory_iterator(directory_)) index_written |= e.path().extension() == ".idx";
  EXPECT_FALSE(index_written);
}

// Damages the cache file with `damage`, then checks that the next run
// notices (`why` in its note), rebuilds, and answers as before.
void expect_rebuilt(const std::string &fixture, const std::string &directory, const std::function<void()> &damage,
                    const std::string &why) {
  auto reference = open_with(fixture, false, directory);
  std::string expected = all_answers(*reference);
  damage();
  auto debug = open_with(fixture, true, directory);
  EXPECT_EQ(all_answers(*debug), expected);
  EXPECT_EQ(debug->provenance().index_source(), IndexSource::Built);
  EXPECT_NE(debug->provenance().index_note().find(why), std::string::npos) << debug->provenance().index_note();
  // and the rebuilt file is good again
  auto again = open_with(fixture, true, directory);
  EXPECT_EQ(all_answers(*again), expected);
  EXPECT_EQ(again->provenance().index_source(), IndexSource::Cache) << again->provenance().index_note();
}

TEST_F(IndexCache, CorruptTruncatedAndStaleFilesAreRebuilt) {
  std::string fixture = fixtures().front();
  open_with(fixture, true, directory_)->find_functions("index_mix", "", InlineCopies::Include);
  std::string file = cache_file_path();
  std::string good = read_file(file);
  ASSERT_GT(good.size(), 300u);

  expect_rebuilt(fixture, directory_, [&] {
    std::string bad = good;
    bad[bad.size() - 3] ^= 0x5a;  // a name's byte: only the checksum can tell
    write_file(file, bad);
  }, "checksum");
  expect_rebuilt(fixture, directory_, [&] { write_file(file, good.substr(0, good.size() - 8)); }, "truncated");
  expect_rebuilt(fixture, directory_, [&] { write_file(file, good.substr(0, 20)); }, "shorter than its header");
  expect_rebuilt(fixture, directory_, [&] { write_file(file, std::string(good.size(), 'x')); }, "bad magic");
  expect_rebuilt(fixture, directory_, [&] { write_file(file, ""); }, "empty");

  // Stale: another binary's index under this binary's file name.
  std::string other = fixtures().back() == fixture ? std::string() : fixtures().back();
  if (!other.empty()) {
    std::string other_dir = directory_ + "-other";
    open_with(other, true, other_dir)->find_functions("index_mix", "", InlineCopies::Include);
    std::string other_bytes;
    for (const auto &e : fs::directory_iterator(other_dir))
      if (e.path().extension() == ".idx") other_bytes = read_file(e.path().string());
    fs::remove_all(other_dir);
    expect_rebuilt(fixture, directory_, [&] { write_file(file, other_bytes); }, "stale");
  }
}

TEST_F(IndexCache, ConcurrentRunsBuildingTheSameIndexBothSucceed) {
  std::string fixture = fixtures().front();
  auto reference = open_with(fixture, false, directory_);
  std::string expected = all_answers(*reference);
  for (int round = 0; round < 5; ++round) {
    fs::remove_all(directory_);
    std::vector<pid_t> children;
    for (int i = 0; i < 3; ++i) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        auto debug = DebugInfo::open(fixture, OpenOptions{true, directory_});
        _exit(debug && all_answers(**debug) == expected ? 0 : 1);
      }
      children.push_back(pid);
    }
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round;
    }
    // One whole file and no temporary left behind; the next run uses it.
    EXPECT_FALSE(cache_file_path().empty());
    auto after = open_with(fixture, true, directory_);
    EXPECT_EQ(all_answers(*after), expected);
    EXPECT_EQ(after->provenance().index_source(), IndexSource::Cache) << after->provenance().index_note();
  }
}

// Split DWARF: the index reads the units' DIEs from .dwo files or a .dwp
// package, and answers as it does for the same program built whole.
TEST_F(IndexCache, SplitProgramsAnswerAsTheirWholeBuilds) {
  const std::pair<const char *, const char *> pairs[] = {{"index_gcc_O2_split", "index_gcc_O2"},
                                                         {"index_gcc_O2_dwarf4_splitdwp", "index_gcc_O2_dwarf4"},
                                                         {"index_clang_O2_splitdwp", "index_clang_O2"},
                                                         {"index_clang_O2_dwarf4_split_inlining", "index_clang_O2"}};
  for (const auto &[split, whole] : pairs) {
    std::string split_path = std::string(KPP_INDEX_FIXTURE_DIR) + "/" + split;
    if (!fs::exists(split_path)) continue;
    SCOPED_TRACE(split);
    auto s = open_with(split_path, true, directory_);
    auto w = open_with(std::string(KPP_INDEX_FIXTURE_DIR) + "/" + whole, false, directory_);
    std::string expected = all_answers(*w);
    EXPECT_NE(expected.find(" inlined "), std::string::npos) << expected;
    EXPECT_EQ(all_answers(*s), expected);
    EXPECT_EQ(s->provenance().index_source(), IndexSource::Built) << s->provenance().index_note();
    EXPECT_TRUE(s->provenance().missing_split_dwarf().empty()) << s->provenance().missing_split_dwarf();
  }
}

// An index made while the split DWARF was missing is not used once it is
// there, nor the other way round.
TEST_F(IndexCache, ASplitProgramsIndexFollowsItsPackage) {
  std::string fixture = std::string(KPP_INDEX_FIXTURE_DIR) + "/index_gcc_O2_dwarf4_splitdwp";
  if (!fs::exists(fixture)) GTEST_SKIP() << "no llvm-dwp";
  std::string expected = all_answers(*open_with(fixture, false, directory_));
  std::string program = directory_ + "/prog", package = directory_ + "/prog.dwp", cache = directory_ + "/cache";
  fs::copy_file(fixture, program);
  fs::copy_file(fixture + ".dwp", package);
  EXPECT_EQ(all_answers(*open_with(program, true, cache)), expected);

  fs::rename(package, package + ".away");
  auto missing = open_with(program, true, cache);
  EXPECT_TRUE(missing->find_functions("index_mix", "", InlineCopies::Include).empty());
  EXPECT_EQ(missing->provenance().index_source(), IndexSource::Built) << missing->provenance().index_note();
  std::string why = missing->provenance().missing_split_dwarf();
  EXPECT_NE(why.find("2 of 2 units"), std::string::npos) << why;
  EXPECT_NE(why.find("index_gcc_O2_dwarf4_splitdwp-index_a.dwo"), std::string::npos) << why;
  EXPECT_NE(why.find(package), std::string::npos) << why;

  fs::rename(package + ".away", package);
  auto back = open_with(program, true, cache);
  EXPECT_EQ(all_answers(*back), expected);
  EXPECT_TRUE(back->provenance().missing_split_dwarf().empty());
}

TEST(NameIndexImage, LookupAndAdoptChecks) {
  std::string names = "alphabetagamma";
  ScanResult scanned;
  scanned.functions = {{std::string_view(names).substr(0, 5), 0x10, false},
                       {std::string_view(names).substr(5, 4), 0x20, true},
                       {std::string_view(names).substr(0, 5), 0x30, true}};
  scanned.units = {{0x0, {"a.c", "b.h"}, true}, {0x100, {}, false}, {0x200, {"b.h", "c.c"}, true}};
  IndexKey key{"build-id:abcd", 1234};
  NameIndex index = NameIndex::build(scanned, key);
  auto alpha = index.lookup("alpha");
  ASSERT_EQ(alpha.size(), 2u);
  EXPECT_EQ(alpha[0].die_offset, 0x10u);
  EXPECT_FALSE(alpha[0].inlined);
  EXPECT_EQ(alpha[1].die_offset, 0x30u);
  EXPECT_TRUE(alpha[1].inlined);
  EXPECT_TRUE(index.lookup("gamma").empty());
  EXPECT_TRUE(index.lookup("alph").empty());
  // Units by file: those that name it, and those whose file names could not be read.
  EXPECT_EQ(index.units_naming("include/b.h"), (std::vector<uint64_t>{0x0, 0x100, 0x200}));
  EXPECT_EQ(index.units_naming("c.c"), (std::vector<uint64_t>{0x100, 0x200}));
  EXPECT_EQ(index.units_naming("d.c"), (std::vector<uint64_t>{0x100}));
  EXPECT_FALSE(index.units_naming("dir/"));

  std::string bytes(index.bytes());
  auto adopt = [&](const std::string &b, const IndexKey &k) {
    auto owner = std::make_shared<std::string>(b);
    return NameIndex::adopt(owner, reinterpret_cast<const uint8_t *>(owner->data()), owner->size(), k);
  };
  auto same = adopt(bytes, key);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->lookup("beta").size(), 1u);
  EXPECT_FALSE(adopt(bytes, IndexKey{"build-id:abce", 1234}));
  EXPECT_FALSE(adopt(bytes, IndexKey{"build-id:abcd", 1235}));
  EXPECT_FALSE(adopt(bytes + "x", key));
  EXPECT_FALSE(adopt(bytes.substr(0, bytes.size() - 1), key));
}

// Keys are grouped first by where they start (merged strings share bytes):
// two names starting at one byte but of different lengths stay two names,
// and one name at two places is one.
TEST(NameIndexImage, NamesAreGroupedByTheirBytesNotWhereTheyStart) {
  std::string bytes = "vfs_read_iter vfs_read";
  std::string_view all(bytes);
  ScanResult scanned;
  scanned.functions = {{all.substr(0, 13), 0x10, false},   // vfs_read_iter
                       {all.substr(0, 8), 0x20, true},     // vfs_read, where vfs_read_iter starts
                       {all.substr(14, 8), 0x30, false},   // vfs_read elsewhere
                       {all.substr(0, 13), 0x40, true}};   // vfs_read_iter again
  NameIndex index = NameIndex::build(scanned, IndexKey{"build-id:ab", 1});
  EXPECT_EQ(index.name_count(), 2u);
  auto offsets = [&](std::string_view name) {
    std::vector<uint64_t> out;
    for (const IndexedDie &d : index.lookup(name)) out.push_back(d.die_offset);
    return out;
  };
  EXPECT_EQ(offsets("vfs_read"), (std::vector<uint64_t>{0x20, 0x30}));
  EXPECT_EQ(offsets("vfs_read_iter"), (std::vector<uint64_t>{0x10, 0x40}));
}

}  // namespace
}  // namespace kpp::dwarf
