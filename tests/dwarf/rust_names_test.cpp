// dwarf/lang/rust_names.cpp: Rust symbols demangled as rustfilt prints them
// (the expected names are rustfilt's and perf 6.1's for these symbols).
#include "dwarf/lang/rust_names.h"

#include <gtest/gtest.h>

#include "dwarf/cxx_names.h"

namespace kpp {
namespace {

using dwarf::demangle_rust;

TEST(RustNames, LegacyWithoutItsHash) {
  auto name = demangle_rust("_ZN5names5price17h021f572b3b89d46aE");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->path, "names::price");
  EXPECT_EQ(name->hash, "h021f572b3b89d46a");
}

TEST(RustNames, LegacyEscapes) {
  auto name = demangle_rust(
      "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$"
      "17h0b7c1f7c7b8a3b1cE");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->path, "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
  auto method = demangle_rust("_ZN47_$LT$names..Shop$u20$as$u20$names..Describe$GT$8describe17he7d8a128c7779cdfE");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->path, "<names::Shop as names::Describe>::describe");
}

TEST(RustNames, V0ByLlvm) {
  auto name = demangle_rust("_RNvCsbZShwAlgmsH_5names5price");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->path, "names::price");
  EXPECT_TRUE(name->hash.empty());
  auto generic = demangle_rust("_RINvCsbZShwAlgmsH_5names7largestlEB2_");
  ASSERT_TRUE(generic);
  EXPECT_EQ(generic->path, "names::largest::<i32>");
}

TEST(RustNames, NotRust) {
  EXPECT_FALSE(demangle_rust("_ZN6shapes3Box4areaEi"));      // C++: parameters after the name
  EXPECT_FALSE(demangle_rust("_ZN5names5priceE"));           // no hash
  EXPECT_FALSE(demangle_rust("_ZN5names5price17h021fE"));    // short element
  EXPECT_FALSE(demangle_rust("_ZN999999names17h021f572b3b89d46aE"));  // a length past the end
  EXPECT_FALSE(demangle_rust("_ZN5na$ZZ$s17h021f572b3b89d46aE"));    // an escape rustc does not write
  EXPECT_FALSE(demangle_rust("main.Price"));
  EXPECT_FALSE(demangle_rust("_R"));
}

TEST(RustNames, DisplayAndMatching) {
  EXPECT_EQ(dwarf::demangle_for_display("_ZN5names5price17h021f572b3b89d46aE"), "names::price");
  EXPECT_EQ(dwarf::demangle_for_display("_ZN5names5price17h021f572b3b89d46aE.llvm.123"), "names::price");
  EXPECT_EQ(dwarf::demangle_for_display("_ZN6shapes3Box4areaEi"), "shapes::Box::area(int)");
  auto legacy = dwarf::demangle_function("_ZN5names5price17h021f572b3b89d46aE");
  ASSERT_TRUE(legacy);
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("names::price"), *legacy));
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("price"), *legacy));
  // The hash spelling -F printed before, still accepted; another hash is another function.
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("names::price::h021f572b3b89d46a"), *legacy));
  EXPECT_FALSE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("names::price::h021f572b3b89d46b"), *legacy));
  auto generic = dwarf::demangle_function("_RINvCsbZShwAlgmsH_5names7largestlEB2_");
  ASSERT_TRUE(generic);
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("names::largest"), *generic));
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("largest<i32>"), *generic));
  auto method = dwarf::demangle_function("_RNvMCsbZShwAlgmsH_5namesNtB2_4Shop3add");  // <names::Shop>::add
  ASSERT_TRUE(method);
  EXPECT_TRUE(dwarf::cxx_name_matches(dwarf::parse_cxx_query("Shop::add"), *method));
}

}  // namespace
}  // namespace kpp
