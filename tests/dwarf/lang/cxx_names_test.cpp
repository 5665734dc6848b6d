// C++ names as users write them, matched against demangled linkage names.
// The demangled forms expected here are c++filt's (binutils) for the same
// mangled names.
#include <gtest/gtest.h>

#include "dwarf/lang/cxx_names.h"

namespace kpp {
namespace {

using dwarf::cxx_name_matches;
using dwarf::demangle_for_display;
using dwarf::demangle_function;
using dwarf::is_cxx_query;
using dwarf::is_scoped_path;
using dwarf::parse_cxx_query;
using dwarf::printed_key;
using dwarf::printed_name_matches;

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

// A name as -F prints it (LLVM's demangling) is matched whole, the words
// before the name (a return type) aside; c++filt's lambda spelling too.
// A path is looked up by its last component: no DIE's name is a path.
TEST(CxxQuery, PathsAreTopLevelScopesOutsideOperators) {
  EXPECT_TRUE(is_scoped_path("names::price"));
  EXPECT_TRUE(is_scoped_path("ns::Cls::f(int)"));
  EXPECT_TRUE(is_scoped_path("<names::Shop as names::Describe>::describe"));
  EXPECT_FALSE(is_scoped_path("max<ns::T>"));  // a DIE's name: gcc's "max<ns::T>"
  EXPECT_FALSE(is_scoped_path("f(ns::T)"));
  EXPECT_FALSE(is_scoped_path("operator std::string"));  // gcc's name for a conversion operator
  EXPECT_FALSE(is_scoped_path("main.(*Shop).Restock"));
  EXPECT_FALSE(is_scoped_path("vfs_read"));
}

TEST(CxxPrinted, WholeNameAfterItsReturnType) {
  const std::string lambda = "auto std::filesystem::file_size(std::filesystem::path const&, std::error_code&)"
                             "::'lambda'(auto const&)::operator()<stat>(auto const&) const";
  EXPECT_TRUE(printed_name_matches(printed_key(lambda), lambda));
  // The spec's parser drops the return type and the quotes.
  EXPECT_TRUE(printed_name_matches(
      printed_key("std::filesystem::file_size(std::filesystem::path const&, std::error_code&)::lambda(auto const&)"
                  "::operator()<stat>(auto const&)const"),
      lambda));
  // c++filt's spelling: {lambda(...)#1} is 'lambda', #2 is 'lambda0'.
  const std::string second = "f(int)::'lambda0'(int)::operator()(int) const";
  EXPECT_TRUE(printed_name_matches(printed_key("f(int)::{lambda(int)#2}::operator()(int) const"), second));
  EXPECT_FALSE(printed_name_matches(printed_key("f(int)::{lambda(int)#1}::operator()(int) const"), second));
  // Only whole names: not the end of a longer scope, not a thunk's target.
  EXPECT_FALSE(printed_name_matches(printed_key("operator()(int) const"), second));
  EXPECT_FALSE(printed_name_matches(printed_key("b::f()"), "int a::b::f()"));
  EXPECT_TRUE(printed_name_matches(printed_key("a::b::f()"), "int a::b::f()"));
  EXPECT_FALSE(printed_name_matches(printed_key("S::~S()"), "non-virtual thunk to S::~S()"));
  EXPECT_FALSE(printed_name_matches("", "f()"));
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

// Whether a query finds the function behind a mangled name.
struct MatchCase {
  const char *query, *mangled;
  bool found;
  const char *why;
};

class CxxMatch : public testing::TestWithParam<MatchCase> {};

TEST_P(CxxMatch, FindsWhatTheQueryNames) {
  const MatchCase &c = GetParam();
  auto have = demangle_function(c.mangled);
  ASSERT_TRUE(have) << c.mangled << " does not demangle";
  EXPECT_EQ(cxx_name_matches(parse_cxx_query(c.query), *have), c.found) << c.why << ": " << c.query << " vs " << c.mangled;
  // The lookup demangles only symbols that have the query's verbatim word.
  std::optional<std::string> word = verbatim_word(parse_cxx_query(c.query));
  if (c.found && word) EXPECT_NE(std::string_view(c.mangled).find(*word), std::string_view::npos) << *word;
}

// The word a matching symbol has as it is, or none where a mangling may
// spell the name otherwise.
TEST(CxxQuery, VerbatimWordOfTheBase) {
  auto word = [](const char *q) { return verbatim_word(parse_cxx_query(q)); };
  EXPECT_EQ(word("names::price"), "price");
  EXPECT_EQ(word("names::price::h5aa9d4832e5a8522"), "price");
  EXPECT_EQ(word("shapes::biggest<int>"), "biggest");
  EXPECT_EQ(word("shapes::twice(long)"), "twice");
  EXPECT_EQ(word("Box::Box"), "Box");
  EXPECT_EQ(word("Box::~Box"), std::nullopt);                  // D1/D2
  EXPECT_EQ(word("Box::operator+"), std::nullopt);             // "pl"
  EXPECT_EQ(word("operator new"), std::nullopt);               // "nw"
  EXPECT_EQ(word("Box::operator int"), std::nullopt);          // "cvi"
  EXPECT_EQ(word("std::allocator<int>::allocator"), std::nullopt);  // "Sa...C2"
  EXPECT_EQ(word("names::main::{{closure}}"), std::nullopt);   // legacy Rust escapes the braces
}

INSTANTIATE_TEST_SUITE_P(
    Names, CxxMatch,
    testing::Values(
        MatchCase{"shapes::Box::area", "_ZNK6shapes3Box4areaEi", true, "fully qualified"},
        MatchCase{"Box::area", "_ZNK6shapes3Box4areaEi", true, "the last scopes"},
        MatchCase{"ox::area", "_ZNK6shapes3Box4areaEi", false, "scopes are whole components"},
        MatchCase{"other::Box::area", "_ZNK6shapes3Box4areaEi", false, "another namespace"},
        MatchCase{"(anonymous namespace)::foo", "_ZN12_GLOBAL__N_13fooEv", true, "an anonymous namespace"},
        MatchCase{"shapes::biggest<int>", "_ZN6shapes7biggestIiEET_S1_S1_", true, "a template instance"},
        MatchCase{"shapes::biggest<long>", "_ZN6shapes7biggestIiEET_S1_S1_", false, "another instance"},
        MatchCase{"shapes::biggest", "_ZN6shapes7biggestIiEET_S1_S1_", true, "no arguments: every instance"},
        MatchCase{"shapes::big", "_ZN6shapes7biggestIiEET_S1_S1_", false, "a prefix is no name"},
        MatchCase{"std::vector<int,std::allocator<int> >::at", "_ZNSt6vectorIiSaIiEE2atEm", true, "a template scope"},
        MatchCase{"vector<int, std::allocator<int>>::at", "_ZNSt6vectorIiSaIiEE2atEm", true, "spaces do not matter"},
        MatchCase{"shapes::twice(long)", "_ZN6shapes5twiceEl", true, "the overload's parameters"},
        MatchCase{"shapes::twice(int)", "_ZN6shapes5twiceEl", false, "another overload"},
        MatchCase{"twice", "_ZN6shapes5twiceEl", true, "no parameters: every overload"},
        MatchCase{"Box::area(int)const", "_ZNK6shapes3Box4areaEi", true, "a const method"},
        MatchCase{"std::allocator<int>::allocator", "_ZNSaIiEC2Ev", true, "an abbreviated class's constructor"},
        MatchCase{"names::price", "_ZN5names5price17h5aa9d4832e5a8522E", true, "legacy Rust"},
        MatchCase{"names::price", "_RNvCs1234_5names5price", true, "Rust v0"}));

}  // namespace
}  // namespace kpp
