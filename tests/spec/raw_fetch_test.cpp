// Two things users paste into a spec from elsewhere: perf's raw fetch args
// (`+0(%di):string`, `$stack1`, `$arg2`), and C++ names as -F, c++filt and
// perf print them (`std::__throw_length_error(char const*)`, with spaces).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/spec/probe_spec.h"
#include "src/spec/raw_fetch.h"
#include "tests/spec/spec_builders.h"

namespace kpp {
namespace {

using test::arrow;
using test::meaning;
using test::reg;
using test::sym;
using test::var;

ProbeArg raw(std::string text, std::string type = {}, std::string name = {}) {
  ProbeArg a;
  a.kind = ProbeArg::Kind::Raw;
  a.base = std::move(text);
  a.type = std::move(type);
  a.name = std::move(name);
  return a;
}

struct Case {
  std::string text;
  ProbeSpec expected;
};

std::vector<Case> cases() {
  return {
      // The kernel's fetch-arg syntax, as perf passes it through.
      {"f +0(%di):string", {.point = {.function = "f"}, .args = {raw("+0(%di)", "string")}}},
      {"pg_parse_query q=+0(%di):string", {.point = {.function = "pg_parse_query"}, .args = {raw("+0(%di)", "string", "q")}}},
      {"f -16(%bp):s32 +u8(+0(%si)):u64",
       {.point = {.function = "f"}, .args = {raw("-16(%bp)", "s32"), raw("+u8(+0(%si))", "u64")}}},
      {"f $stack $stack3 $arg2:x32", {.point = {.function = "f"}, .args = {raw("$stack"), raw("$stack3"), raw("$arg2", "x32")}}},
      {"f @0x4020:s64 @g_calls+8", {.point = {.function = "f"}, .args = {raw("@0x4020", "s64"), raw("@g_calls+8")}}},
      {"f @g->next @h-1",
       {.point = {.function = "f"}, .args = {sym("g", {arrow("next")}), raw("@h-1")}}},
      {"f%return +0($retval):string", {.point = {.function = "f", .is_return = true}, .args = {raw("+0($retval)", "string")}}},
      // C++ names as printed: spaces in brackets, return types, qualifiers, operators.
      {"std::__throw_length_error(char const*)", {.point = {.function = "std::__throw_length_error(char const*)"}}},
      {"std::__throw_length_error(char const*) %di",
       {.point = {.function = "std::__throw_length_error(char const*)"}, .args = {reg("di")}}},
      {"'std::__throw_length_error(char const*)' %di",
       {.point = {.function = "std::__throw_length_error(char const*)"}, .args = {reg("di")}}},
      {"int shapes::biggest<int>(int, int) a", {.point = {.function = "shapes::biggest<int>(int, int)"}, .args = {var("a")}}},
      {"ev=unsigned long ns::f<char>(char)%return",
       {.event = "ev", .point = {.function = "ns::f<char>(char)", .is_return = true}}},
      {"shapes::Box::area(int) const scale", {.point = {.function = "shapes::Box::area(int)const"}, .args = {var("scale")}}},
      {"std::vector<int, std::allocator<int> >::push_back(int const&):3",
       {.point = {.function = "std::vector<int, std::allocator<int> >::push_back(int const&)", .line = 3}}},
      {"std::operator<<(std::ostream&, char const*)", {.point = {.function = "std::operator<<(std::ostream&, char const*)"}}},
      {"ns::V::operator+=(int)%return", {.point = {.function = "ns::V::operator+=(int)", .is_return = true}}},
      {"ns::V::operator()(int) x", {.point = {.function = "ns::V::operator()(int)"}, .args = {var("x")}}},
      {"bool ns::operator< <int>(ns::A<int> const&)", {.point = {.function = "ns::operator<<int>(ns::A<int> const&)"}}},
      {"operator new(unsigned long)", {.point = {.function = "operatornew(unsigned long)"}}},
      // Conversions to types of several words: the type is the name's, up to its parameter list.
      {"ns::M::operator unsigned long() const", {.point = {.function = "ns::M::operatorunsignedlong()const"}}},
      {"ns::M::operator char const*() const %di",
       {.point = {.function = "ns::M::operatorcharconst*()const"}, .args = {reg("di")}}},
      {"ns::P<int, long>::operator long long() const%return",
       {.point = {.function = "ns::P<int, long>::operatorlonglong()const", .is_return = true}}},
      {"ns::M::operator bool x", {.point = {.function = "ns::M::operatorbool"}, .args = {var("x")}}},
      {"ns::S::str() const & %di", {.point = {.function = "ns::S::str()const&"}, .args = {reg("di")}}},
      {"f(int,   long)", {.point = {.function = "f(int,   long)"}}},
      // Names libstdc++'s -F prints: ABI tags, return types with brackets or
      // spaces, operator templates, lambdas and local classes (their quotes
      // are taken off: the matcher ignores them), literal operators, thunks.
      {"std::locale::name[abi:cxx11]() const", {.point = {.function = "std::locale::name[abi:cxx11]()const"}}},
      {"decltype(fp.base() - fp0.base()) ns::operator-<char const*, char*>(ns::It<char*> const&) %di",
       {.point = {.function = "ns::operator-<char const*, char*>(ns::It<char*> const&)"}, .args = {reg("di")}}},
      {"bool ns::operator!=<char*, int>(int const&, int const&) x",
       {.point = {.function = "ns::operator!=<char*, int>(int const&, int const&)"}, .args = {var("x")}}},
      {"std::ostream&& std::operator<<<std::ostream, char*>(std::ostream&&, char* const&)",
       {.point = {.function = "std::operator<<<std::ostream, char*>(std::ostream&&, char* const&)"}}},
      {"std::tuple_element<1ul, std::tuple<char*, (anonymous namespace)::D>>::type& std::get<1ul>(std::tuple<char*>&)",
       {.point = {.function = "std::get<1ul>(std::tuple<char*>&)"}}},
      {"auto f(int)::'lambda'(auto const&)::operator()<stat>(auto const&) const",
       {.point = {.function = "f(int)::lambda(auto const&)::operator()<stat>(auto const&)const"}}},
      {"void g()::'lambda'(int)::operator()(int) const::'lambda'()::operator()() const%return",
       {.point = {.function = "g()::lambda(int)::operator()(int)const::lambda()::operator()()const", .is_return = true}}},
      {"bool std::chrono::operator<<long, std::ratio<1l, 1l>>(std::chrono::duration<long> const&)",
       {.point = {.function = "std::chrono::operator<<long, std::ratio<1l, 1l>>(std::chrono::duration<long> const&)"}}},
      {"std::locale::operator==(std::locale const&) const", {.point = {.function = "std::locale::operator==(std::locale const&)const"}}},
      {"ev=std::locale::operator==(std::locale const&) const x",
       {.event = "ev", .point = {.function = "std::locale::operator==(std::locale const&)const"}, .args = {var("x")}}},
      {"auto f(int)::_UCvt::~_UCvt() x", {.point = {.function = "f(int)::_UCvt::~_UCvt()"}, .args = {var("x")}}},
      {"non-virtual thunk to std::S::~S()", {.point = {.function = "std::S::~S()"}}},
      {"std::operator\"\" sv(char const*, unsigned long)", {.point = {.function = "std::operator\"\"sv(char const*, unsigned long)"}}},
      // What is no C++ name stays as it was.
      {"walk;truth_walk(p,* i", {.point = {.function = "walk", .lazy_pattern = "truth_walk(p,*"}, .args = {var("i")}}},
      {"walk p x=+0(%di)", {.point = {.function = "walk"}, .args = {var("p"), raw("+0(%di)", "", "x")}}},
      {"main argc argv", {.point = {.function = "main"}, .args = {var("argc"), var("argv")}}},
  };
}

class PastedSpec : public testing::TestWithParam<Case> {};

TEST_P(PastedSpec, Parses) {
  auto parsed = parse_probe_spec(GetParam().text);
  ASSERT_TRUE(parsed) << GetParam().text << ": " << parsed.error().message;
  EXPECT_EQ(meaning(*parsed), GetParam().expected) << GetParam().text;
}

TEST_P(PastedSpec, FormatsToTextThatParsesBack) {
  std::string formatted = format_probe_spec(GetParam().expected);
  auto again = parse_probe_spec(formatted);
  ASSERT_TRUE(again) << "'" << formatted << "': " << again.error().message;
  EXPECT_EQ(meaning(*again), GetParam().expected) << "formatted as '" << formatted << "'";
}

INSTANTIATE_TEST_SUITE_P(RawAndCxx, PastedSpec, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case> &info) { return "case" + std::to_string(info.index); });

struct ErrorCase {
  std::string text;
  std::string message;
  Span span;
};

class PastedSpecError : public testing::TestWithParam<ErrorCase> {};

TEST_P(PastedSpecError, SaysWhatAndWhere) {
  auto parsed = parse_probe_spec(GetParam().text);
  ASSERT_FALSE(parsed) << GetParam().text;
  EXPECT_EQ(parsed.error().message, GetParam().message) << GetParam().text;
  ASSERT_TRUE(parsed.error().span);
  EXPECT_EQ(*parsed.error().span, GetParam().span) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    RawFetch, PastedSpecError,
    testing::Values(ErrorCase{"f +8%di", "expected '(' after the load's offset", {4, 5}},
                    ErrorCase{"f +(%di)", "a load is written +OFF(FETCHARG): expected a number after '+'", {2, 4}},
                    ErrorCase{"f +8(%di", "expected ')' to close a load", {7, 8}},
                    ErrorCase{"f +8(p)", "'p' cannot be loaded from: a load takes %REG, $stackN, $argN, @ADDR, @SYM or another load",
                              {5, 6}},
                    ErrorCase{"f $arg0", "'$arg0': expected $argN, N from 1 to 128", {2, 7}},
                    ErrorCase{"f $arg129", "'$arg129': expected $argN, N from 1 to 128", {2, 9}},
                    ErrorCase{"f +0($foo)",
                              "unknown special variable '$foo': expected $retval, $params, $vars, $comm, $stack, $stackN or $argN",
                              {5, 9}},
                    ErrorCase{"f +0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))", "more than 8 nested loads", {26, 41}}),
    [](const testing::TestParamInfo<ErrorCase> &info) { return "case" + std::to_string(info.index); });

// A '*' of a C++ type is no glob: in a parameter list, template arguments, an operator's name.
TEST(FunctionGlob, OnlyOutsideTypes) {
  for (const char *glob : {"wal*", "vfs_?ead", "ns::*", "std::vector<int>::*"}) EXPECT_TRUE(is_function_glob(glob)) << glob;
  for (const char *name : {"walk", "std::__throw_length_error(charconst*)", "f<char*>", "ns::M::operatorcharconst*()const",
                           "ns::M::operator*(int)", "ns::M::operator*=(int)", "ns::M::operatordelete(void*)", "ops::call(int(*)(int),int)"})
    EXPECT_FALSE(is_function_glob(name)) << name;
}

TEST(RawFetch, LoadsOutermostFirst) {
  auto fetch = parse_raw_fetch("+8(-16(+u0(%si)))");
  ASSERT_TRUE(fetch) << fetch.error().message;
  EXPECT_EQ(fetch->base, RawFetch::Base::Register);
  EXPECT_EQ(fetch->name, "si");
  ASSERT_EQ(fetch->loads.size(), 3u);
  EXPECT_EQ(fetch->loads[0], (RawFetch::Load{8, false}));
  EXPECT_EQ(fetch->loads[1], (RawFetch::Load{-16, false}));
  EXPECT_EQ(fetch->loads[2], (RawFetch::Load{0, true}));
  EXPECT_EQ(wrap_raw_loads(*fetch, "%di"), "+8(-16(+u0(%di)))");
}

TEST(RawFetch, BasesAndNumbers) {
  auto arg = parse_raw_fetch("$arg6");
  ASSERT_TRUE(arg);
  EXPECT_EQ(arg->base, RawFetch::Base::Arg);
  EXPECT_EQ(arg->number, 6u);
  auto symbol = parse_raw_fetch("+0(@counter-8)");
  ASSERT_TRUE(symbol);
  EXPECT_EQ(symbol->base, RawFetch::Base::Symbol);
  EXPECT_EQ(symbol->name, "counter");
  EXPECT_EQ(symbol->offset, -8);
  auto address = parse_raw_fetch("@0x601040");
  ASSERT_TRUE(address);
  EXPECT_EQ(address->base, RawFetch::Base::Address);
  EXPECT_EQ(address->number, 0x601040u);
}

}  // namespace
}  // namespace kpp
