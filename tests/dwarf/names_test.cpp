// Name matching without DWARF: compiler-made symbols back to source names
// (perf cuts C symbols at the first '.' or '@', REFERENCE.md 1.2), path
// suffixes on component boundaries, and "did you mean" candidates.
#include <gtest/gtest.h>

#include <algorithm>

#include "dwarf/names.h"

namespace kpp {
namespace {

using dwarf::closest_names;
using dwarf::path_ends_with;
using dwarf::source_name_of_symbol;

TEST(SourceNameOfSymbol, CutsCompilerSuffixes) {
  EXPECT_EQ(source_name_of_symbol("walk.isra.0"), "walk");
  EXPECT_EQ(source_name_of_symbol("walk.constprop.1"), "walk");
  EXPECT_EQ(source_name_of_symbol("walk.part.0"), "walk");
  EXPECT_EQ(source_name_of_symbol("walk.cold"), "walk");
  EXPECT_EQ(source_name_of_symbol("walk.llvm.1234567890"), "walk");
  EXPECT_EQ(source_name_of_symbol("walk.constprop.0.isra.0"), "walk");
}

TEST(SourceNameOfSymbol, CutsSymbolVersions) {
  EXPECT_EQ(source_name_of_symbol("memcpy@GLIBC_2.2.5"), "memcpy");
  EXPECT_EQ(source_name_of_symbol("memcpy@@GLIBC_2.14"), "memcpy");
}

TEST(SourceNameOfSymbol, KeepsGoNames) {
  // What `go tool nm` prints is the name: none of its '.' starts a compiler's
  // suffix ("part" of gcc's always has its number).
  for (std::string_view go : {"main.Price", "main.(*Shop).Restock", "main.Max[go.shape.int_0]", "main.main.func1",
                              "main.main.func1.1", "runtime.memmove.abi0", "main.part"})
    EXPECT_EQ(source_name_of_symbol(go), go);
  // A C name's number is cut after a plain name; Rust's ".llvm.N" too.
  EXPECT_EQ(source_name_of_symbol("inner.0"), "inner");
  EXPECT_EQ(source_name_of_symbol("_ZN5names5price17h021f572b3b89d46aE.llvm.2292929102706952096"),
            "_ZN5names5price17h021f572b3b89d46aE");
}

TEST(SourceNameOfSymbol, KeepsPlainNames) {
  EXPECT_EQ(source_name_of_symbol("walk"), "walk");
  EXPECT_EQ(source_name_of_symbol("do_sys_open"), "do_sys_open");
  EXPECT_EQ(source_name_of_symbol(""), "");
}

TEST(PathEndsWith, OnComponentBoundaries) {
  EXPECT_TRUE(path_ends_with("src/app/prog.c", "prog.c"));
  EXPECT_TRUE(path_ends_with("src/app/prog.c", "app/prog.c"));
  EXPECT_TRUE(path_ends_with("src/app/prog.c", "src/app/prog.c"));
  EXPECT_TRUE(path_ends_with("/build/src/app/prog.c", "/build/src/app/prog.c"));
  EXPECT_TRUE(path_ends_with("prog.c", "prog.c"));
  EXPECT_FALSE(path_ends_with("src/app/prog.c", "og.c"));
  EXPECT_FALSE(path_ends_with("src/app/prog.c", "pp/prog.c"));
  EXPECT_FALSE(path_ends_with("src/app/myprog.c", "prog.c"));
  EXPECT_FALSE(path_ends_with("prog.c", "app/prog.c"));
  EXPECT_FALSE(path_ends_with("src/app/prog.c", "prog.h"));
  EXPECT_FALSE(path_ends_with("src/app/prog.c", ""));
}

TEST(PathEndsWith, SuffixStartingWithSlashIsItsOwnBoundary) {
  EXPECT_TRUE(path_ends_with("/build/src/app/prog.c", "/app/prog.c"));
  EXPECT_FALSE(path_ends_with("/build/src/myapp/prog.c", "/app/prog.c"));
}

TEST(LexicallyNormal, TakesOutDotAndDotDotComponents) {
  using dwarf::lexically_normal;
  EXPECT_EQ(lexically_normal("./build-static/../Python/ceval.c"), "Python/ceval.c");
  EXPECT_EQ(lexically_normal("/build/pkg/build-static/../Python/ceval.c"), "/build/pkg/Python/ceval.c");
  EXPECT_EQ(lexically_normal("../Python//ceval.c"), "../Python/ceval.c");
  EXPECT_EQ(lexically_normal("a/b/../../../c.c"), "../c.c");
  EXPECT_EQ(lexically_normal("/../c.c"), "/c.c");
  EXPECT_EQ(lexically_normal("/"), "/");
  EXPECT_EQ(lexically_normal(""), "");
}

// Python 3.11's LTO units name ceval.c from another directory than the
// unit it was compiled in (Debian's python3.11-dbg, issue 14).
TEST(SameSourceFile, ComparesUnitsNamesOfOneFile) {
  using dwarf::same_source_file;
  EXPECT_TRUE(same_source_file("./build-static/../Python/ceval.c",
                               "/build/reproducible-path/python3.11-3.11.2/build-static/../Python/ceval.c"));
  EXPECT_TRUE(same_source_file("/build/reproducible-path/python3.11-3.11.2/build-static/../Python/ceval.c",
                               "./build-static/../Python/ceval.c"));
  EXPECT_TRUE(same_source_file("../Python/ceval.c", "/src/Python/ceval.c"));
  EXPECT_TRUE(same_source_file("/src/a/./x.c", "/src/a/x.c"));
  EXPECT_FALSE(same_source_file("./build-static/../Python/ceval.c", "/src/Objects/ceval.c"));
  EXPECT_FALSE(same_source_file("/src/a/x.c", "/other/a/x.c"));  // two absolute paths: the same only when equal
  EXPECT_FALSE(same_source_file("x.c", "/src/ax.c"));              // whole components only
  EXPECT_FALSE(same_source_file("..", "/src/x.c"));
  EXPECT_FALSE(same_source_file("", "/src/x.c"));
}

TEST(ClosestNames, FindsAOneLetterTypoFirst) {
  std::vector<std::string> functions{"walk_tree_all", "main", "walk_tree", "free_tree", "usage"};
  auto names = closest_names("walk_tre", functions, 5);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "walk_tree");
  EXPECT_NE(std::find(names.begin(), names.end(), "walk_tree_all"), names.end());  // contains what was typed
  EXPECT_EQ(std::find(names.begin(), names.end(), "main"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "usage"), names.end());
}

TEST(ClosestNames, SubstitutionAndTransposition) {
  std::vector<std::string> functions{"do_sys_open", "vfs_read", "vfs_write", "ksys_read"};
  auto names = closest_names("vfs_raed", functions, 3);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "vfs_read");
  names = closest_names("vfs_reed", functions, 3);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "vfs_read");
}

TEST(ClosestNames, AtMostMaxAndNothingForUnrelatedNames) {
  std::vector<std::string> functions{"walk1", "walk2", "walk3", "walk4"};
  EXPECT_EQ(closest_names("walk", functions, 2).size(), 2u);
  EXPECT_TRUE(closest_names("zzzzzzzz", functions, 5).empty());
  EXPECT_TRUE(closest_names("walk", {}, 5).empty());
}

}  // namespace
}  // namespace kpp
