// The cache makes answers faster, never different (issue 12 item 3): every
// cache file type (.idx, .sym, .fn, .units, .dwarf) is damaged at random thousands
// of times, and each time the definitions, the functions found, the line
// sites and -F's list must be those --no-cache gives.
//
// "Damaged" is bit flips, a field overwritten with an edge value, a cut, or
// bytes appended: what bad luck does, and what the checksums catch.
// "Resealed" damage then recomputes the file's checksum (and size field),
// as someone crafting a file would: that is what the cache directory's
// ownership check (only the user can write there) and the layers below stand
// against. The .units file must be harmless even then (it only says where
// unit headers are); for the others the test counts and prints how many
// resealed files changed an answer (a crafted -F list is a different list;
// a crafted index or symbol copy can hide a function), and every definition
// still passes check_final_site() (src/definition/site_check.h).
//
// Rounds per type and fixture: KPP_CACHE_DAMAGE_ROUNDS (default 500, CI-sized:
// 1,000 per type over the two fixtures); KPP_CACHE_DAMAGE_SHOW=1 prints the
// answers a resealed file changed.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dwarf/debug_info.h"
#include "dwarf/index/name_index.h"
#include "dwarf/raw/die_stream_check.h"
#include "src/definition/probe_builder.h"
#include "src/definition/trace_definition.h"
#include "src/spec/probe_spec.h"

namespace kpp::dwarf {
namespace {

namespace fs = std::filesystem;

// Probes as a user would write them on the index fixtures: a function with
// its variables, a line, the inlined helper (found through the index),
// source lines, a return, and a lazy-free FUNC+0.
const char *const kSpecs[] = {"lookup $vars",   "index_mix $vars",      "sum_a:1 $vars", "index_helpers.h:6",
                              "index_b.c:14",   "lookup%return $retval", "main",          "sum_b+0"};

std::string answers(DebugInfo &debug);

// answers(), or the refusal of DWARF that LLVM must not read (a crafted
// .dwarf image whose DIEs leave their units): the command's outcome either way.
std::string outcome(DebugInfo &debug) {
  try {
    return answers(debug);
  } catch (const DamagedDwarf &refused) {
    return "refused: " + refused.error().message;
  }
}

std::string answers(DebugInfo &debug) {
  std::string out;
  for (const char *text : kSpecs) {
    out += std::string(text) + " =>";
    auto spec = parse_probe_spec(text);
    if (!spec) {
      out += " (no spec)\n";
      continue;
    }
    BuildOptions options;
    options.target_path = "/fixture";
    auto built = build_probe(*spec, debug, options);
    if (!built) {
      out += " error: " + built.error().message + "\n";
      continue;
    }
    for (const TraceDefinition &def : all_definitions({*built})) out += "\n  " + format_definition(def);
    out += "\n";
  }
  for (const Function &fn : debug.find_functions("index_mix", "", InlineCopies::Include))
    out += "inline copy at " + std::to_string(fn.entry) + "\n";
  for (std::string_view name : debug.function_names()) out += std::string(name) + ",";
  return out;
}

// The lines of `got` that `want` does not have, and those it lacks: what a damaged file changed.
std::string changed_lines(const std::string &got, const std::string &want) {
  auto lines = [](const std::string &text) {
    std::multiset<std::string> out;
    for (size_t at = 0; at < text.size();) {
      size_t end = std::min(text.find_first_of("\n,", at), text.size());
      out.insert(text.substr(at, end - at));
      at = end + 1;
    }
    return out;
  };
  std::multiset<std::string> g = lines(got), w = lines(want);
  std::string out;
  for (const std::string &line : g)
    if (w.count(line) < g.count(line)) out += "  + " + line + "\n";
  for (const std::string &line : w)
    if (g.count(line) < w.count(line)) out += "  - " + line + "\n";
  return out;
}

std::string slurp(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spill(const fs::path &path, const std::string &bytes) { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }

template <class T>
void poke(std::string &bytes, size_t at, T value) {
  if (at + sizeof value <= bytes.size()) std::memcpy(bytes.data() + at, &value, sizeof value);
}

// Where each type keeps its checksum, the size of what it sums, and where the summed bytes start.
struct Seal {
  size_t checksum_at, summed_from;
  std::optional<size_t> size_at;  // a "text size" field that must match what follows
  bool trailer = false;           // checksum_at and the summed size count from the end (a .dwarf file's trailer)
};
const std::map<std::string, Seal> kSeals = {
    {".idx", {64, NameIndex::kHeaderSize, std::nullopt}},  // the name index's header (dwarf/index/name_index.cpp)
    {".sym", {32, 232, 24}},                               // TextHeader (dwarf/index/index_cache.cpp)
    {".fn", {32, 232, 24}},
    {".units", {32, 232, 24}},
    {".dies", {32, 232, 24}},  // the DIE check's verdict (dwarf/source/unit_checks.h)
    // An inflated image (dwarf/elf/inflated_image.cpp): the ELF file, then magic, identity and the checksum of it all.
    {".dwarf", {8, 64, std::nullopt, true}},
};

void reseal(std::string &bytes, const Seal &seal) {
  if (seal.trailer) {
    if (bytes.size() < 24) return;
    poke<uint64_t>(bytes, bytes.size() - seal.checksum_at,
                   image_checksum(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size() - 24));
    return;
  }
  if (bytes.size() < seal.summed_from) return;
  size_t summed = bytes.size() - seal.summed_from;
  if (seal.size_at) poke<uint64_t>(bytes, *seal.size_at, summed);
  poke<uint64_t>(bytes, seal.checksum_at,
                 image_checksum(reinterpret_cast<const uint8_t *>(bytes.data()) + seal.summed_from, summed));
}

const uint64_t kEdges[] = {0, 1, 0x7f, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x100000000, ~uint64_t{0}, 1ull << 63};

// One random damage; the header is hit more often than its share.
void damage(std::string &bytes, std::mt19937_64 &rng, size_t header) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  auto where = [&]() { return rng() % 3 == 0 ? pick(std::min(header, bytes.size())) : pick(bytes.size()); };
  switch (rng() % 5) {
    case 0:
    case 1:
      for (size_t i = 0, n = 1 + pick(8); i < n && !bytes.empty(); ++i) bytes[where()] ^= static_cast<char>(1u << pick(8));
      break;
    case 2: {
      uint64_t v = kEdges[pick(std::size(kEdges))] + (rng() % 4 == 0 ? pick(64) : 0);
      size_t width = size_t{1} << pick(4), at = where() & ~(width - 1);
      if (at + width <= bytes.size()) std::memcpy(bytes.data() + at, &v, width);
      break;
    }
    case 3: bytes.resize(pick(bytes.size())); break;
    default:
      for (size_t i = 0, n = 1 + pick(64); i < n; ++i) bytes.push_back(static_cast<char>(rng()));
  }
}

std::string fixture(const char *name) {
  std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/" + name;
  return fs::exists(path) ? path : "";
}

std::unique_ptr<DebugInfo> open_with(const std::string &path, bool use_cache, const std::string &directory) {
  auto debug = DebugInfo::open(path, OpenOptions{use_cache, directory});
  return debug ? std::move(*debug) : nullptr;
}

class CacheDamage : public ::testing::TestWithParam<const char *> {};

TEST_P(CacheDamage, EveryDamagedCacheFileGivesTheAnswersOfNoCache) {
  std::string program = fixture(GetParam());
  if (program.empty()) GTEST_SKIP() << "fixture " << GetParam() << " was not built (no compiler for it)";
  int rounds = 500;
  if (const char *env = std::getenv("KPP_CACHE_DAMAGE_ROUNDS")) rounds = std::atoi(env);
  fs::path dir = fs::temp_directory_path() / ("kpp_cache_damage_" + std::to_string(getpid()) + "_" + GetParam());
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all);

  auto plain = open_with(program, false, "");
  ASSERT_TRUE(plain);
  const std::string want = answers(*plain);
  plain.reset();
  {
    auto cached = open_with(program, true, dir.string());
    ASSERT_TRUE(cached);
    ASSERT_EQ(answers(*cached), want) << "the first cached run";
  }
  {
    auto cached = open_with(program, true, dir.string());
    ASSERT_EQ(answers(*cached), want) << "the run that reads the cache";
  }
  std::map<std::string, fs::path> files;
  for (const auto &e : fs::directory_iterator(dir)) files[e.path().extension().string()] = e.path();
  // The compressed fixture's inflated copy is under 16 KiB, which LLVM reads
  // into memory instead of mapping: no unit headers to map alone, no .units.
  bool compressed = std::string(GetParam()).ends_with("_zlib");
  for (const char *type : {".idx", ".units", ".dwarf"})
    if (compressed ? std::string(type) != ".units" : std::string(type) != ".dwarf") {
      EXPECT_TRUE(files.count(type)) << "no " << type << " file was written: that type goes untested";
    }

  std::map<std::string, std::string> pristines;
  for (const auto &[type, path] : files) pristines[type] = slurp(path);
  std::mt19937_64 rng(12);
  auto start = std::chrono::steady_clock::now();
  for (const auto &[type, path] : files) {
    const std::string pristine = slurp(path);
    const Seal &seal = kSeals.at(type);
    int differed = 0, resealed_differed = 0;
    for (int round = 0; round < rounds; ++round) {
      std::string bytes = pristine;
      damage(bytes, rng, seal.summed_from);
      bool resealed = round % 2 == 1;
      if (resealed) reseal(bytes, seal);
      spill(path, bytes);
      auto debug = open_with(program, true, dir.string());
      ASSERT_TRUE(debug);
      std::string got = outcome(*debug);
      debug.reset();
      if (got != want) {
        ++(resealed ? resealed_differed : differed);
        if (!resealed || type != ".dwarf")
          ADD_FAILURE() << type << " round " << round << (resealed ? " (resealed)" : "") << " changed the answers:\n"
                        << got << "\nwanted:\n" << want;
        else if (std::getenv("KPP_CACHE_DAMAGE_SHOW"))  // what a crafted file changed, to look at
          std::printf("%s round %d (resealed) answered:\n%s\n", type.c_str(), round, changed_lines(got, want).c_str());
      }
      // A damaged .dwarf image can contradict the index, which is then
      // removed: every other file back as it was for the next round.
      for (const auto &[other_type, other] : files)
        if (other != path && !fs::exists(other)) spill(other, pristines.at(other_type));
    }
    spill(path, pristine);
    std::printf("%s: %d damaged files (%d resealed): %d changed an answer, %d of the resealed\n", type.c_str(), rounds,
                rounds / 2, differed, resealed_differed);
    RecordProperty(type.substr(1) + "_resealed_changed", resealed_differed);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu types x %d rounds in %.1f s\n", files.size(), rounds, seconds);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CacheDamage, ::testing::Values("index_gcc_O2", "index_clang_O2_splitdwp", "index_gcc_O2_zlib"));

}  // namespace
}  // namespace kpp::dwarf
