// Libraries opened on first use (util/shared_library.h): functions are
// found by name, a library that is not there or lacks a function is an error
// that says what to install or what is missing.
#include "util/shared_library.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kpp {
namespace {

TEST(SharedLibrary, FindsFunctionsByName) {
  auto libm = SharedLibrary::open("libm.so.6", "the math library", "libc6");
  ASSERT_TRUE(libm) << libm.error().message;
  double (*cosine)(double) = nullptr;
  libm->get(cosine, "cos");
  ASSERT_NE(cosine, nullptr);
  EXPECT_EQ(cosine(0.0), 1.0);
  EXPECT_TRUE(libm->all_found());
}

TEST(SharedLibrary, AMissingLibrarySaysWhatToInstall) {
  auto none = SharedLibrary::open("libkpp-no-such-library.so.1", "the frobnicator library", "libfrob1");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("the frobnicator library cannot be loaded"), std::string::npos)
      << none.error().message;
  EXPECT_NE(none.error().message.find("libkpp-no-such-library.so.1"), std::string::npos) << none.error().message;
  EXPECT_EQ(none.error().hint, "install libfrob1");
}

TEST(SharedLibrary, AMissingFunctionIsNamed) {
  auto libm = SharedLibrary::open("libm.so.6", "the math library", "libc6");
  ASSERT_TRUE(libm) << libm.error().message;
  double (*cosine)(double) = nullptr;
  void (*missing)() = nullptr;
  libm->get(cosine, "cos");
  libm->get(missing, "kpp_no_such_function");
  EXPECT_EQ(missing, nullptr);
  Status found = libm->all_found();
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().message.find("the math library (libm.so.6) lacks functions this program calls: kpp_no_such_function"),
            std::string::npos)
      << found.error().message;
}

}  // namespace
}  // namespace kpp
