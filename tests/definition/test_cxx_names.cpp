// C++ names as users write them, matched against demangled linkage names.
// The demangled forms expected here are c++filt's (binutils) for the same
// mangled names.
#include <gtest/gtest.h>

#include "dwarf/cxx_names.h"

namespace kpp {
namespace {

using dwarf::cxx_name_matches;
using dwarf::demangle_for_display;
using dwarf::demangle_function;
using dwarf::is_cxx_query;
using dwarf::parse_cxx_query;

bool matches(const std::string &query, const std::string &mangled) {
  auto have = demangle_function(mangled);
  EXPECT_TRUE(have) << mangled << " does not demangle";
  return have && cxx_name_matches(parse_cxx_query(query), *have);
}

TEST(CxxQuery, SplitsAtTopLevelScopes) {
  auto q = parse_cxx_query("std::vector<int, std::allocator<int> >::at(unsigned long)");
  EXPECT_EQ(q.scopes, (std::vector<std::string>{"std", "vector<int,std::allocator<int>>"}));
  EXPECT_EQ(q.base, "at");
  EXPECT_EQ(q.params, "(unsignedlong)");
  EXPECT_EQ(parse_cxx_query("Box::area(int) const").params, "(int)");
}

TEST(CxxQuery, OnlyCxxLookingNamesAreQueries) {
  EXPECT_TRUE(is_cxx_query("ns::f"));
  EXPECT_TRUE(is_cxx_query("max<int>"));
  EXPECT_TRUE(is_cxx_query("twice(long)"));
  EXPECT_FALSE(is_cxx_query("vfs_read"));
  EXPECT_FALSE(is_cxx_query("walk.isra.0"));
}

TEST(CxxDemangle, QualifiedNameAndParameters) {
  auto d = demangle_function("_ZNK6shapes3Box4areaEi.isra.0");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->qualified, "shapes::Box::area");
  EXPECT_EQ(d->params, "(int)");
  EXPECT_FALSE(demangle_function("main"));
  EXPECT_EQ(demangle_for_display("_ZNK6shapes3Box4areaEi"), "shapes::Box::area(int) const");
  EXPECT_EQ(demangle_for_display("_ZN6shapes7biggestIiEET_S1_S1_"), "int shapes::biggest<int>(int, int)");
  EXPECT_EQ(demangle_for_display("vfs_read"), "vfs_read");
}

TEST(CxxMatch, TrailingScopesMatch) {
  EXPECT_TRUE(matches("shapes::Box::area", "_ZNK6shapes3Box4areaEi"));
  EXPECT_TRUE(matches("Box::area", "_ZNK6shapes3Box4areaEi"));
  EXPECT_FALSE(matches("ox::area", "_ZNK6shapes3Box4areaEi")) << "scopes are whole components";
  EXPECT_FALSE(matches("other::Box::area", "_ZNK6shapes3Box4areaEi"));
  EXPECT_TRUE(matches("(anonymous namespace)::foo", "_ZN12_GLOBAL__N_13fooEv"));
}

TEST(CxxMatch, TemplatesByInstanceOrAll) {
  EXPECT_TRUE(matches("shapes::biggest<int>", "_ZN6shapes7biggestIiEET_S1_S1_"));
  EXPECT_FALSE(matches("shapes::biggest<long>", "_ZN6shapes7biggestIiEET_S1_S1_"));
  EXPECT_TRUE(matches("shapes::biggest", "_ZN6shapes7biggestIiEET_S1_S1_")) << "no arguments: every instance";
  EXPECT_FALSE(matches("shapes::big", "_ZN6shapes7biggestIiEET_S1_S1_"));
  EXPECT_TRUE(matches("std::vector<int,std::allocator<int> >::at", "_ZNSt6vectorIiSaIiEE2atEm"));
  EXPECT_TRUE(matches("vector<int, std::allocator<int>>::at", "_ZNSt6vectorIiSaIiEE2atEm"));
}

TEST(CxxMatch, ParametersPickAnOverload) {
  EXPECT_TRUE(matches("shapes::twice(long)", "_ZN6shapes5twiceEl"));
  EXPECT_FALSE(matches("shapes::twice(int)", "_ZN6shapes5twiceEl"));
  EXPECT_TRUE(matches("twice", "_ZN6shapes5twiceEl"));
  EXPECT_TRUE(matches("Box::area(int)const", "_ZNK6shapes3Box4areaEi"));
}

}  // namespace
}  // namespace kpp
