// A function's return type read raw from its unit (dwarf/query/return_type.cpp,
// for FUNC%return $retval) is what LLVM describes, on fixtures built here.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "dwarf/debug_info.h"

namespace kpp::dwarf {
namespace {

namespace fs = std::filesystem;

const char *const kFunctions[] = {"ret_int",   "ret_uchar",    "ret_schar",  "ret_char",  "ret_bool",
                                  "ret_enum",  "ret_small_enum", "ret_typedef", "ret_pointer", "ret_void",
                                  "ret_struct", "ret_double",  "ret_ull",    "ret_short", "main"};

TEST(ReturnType, RawScalarsAreWhatLlvmDescribes) {
  int fixtures = 0;
  for (const char *name : {"return_types_gcc_O2", "return_types_gcc_O0_dwarf4", "return_types_clang_O2_dwarf4"}) {
    std::string path = std::string(KPP_INDEX_FIXTURE_DIR) + "/" + name;
    if (!fs::exists(path)) continue;
    ++fixtures;
    SCOPED_TRACE(name);
    auto debug = DebugInfo::open(path, OpenOptions{false, ""});
    ASSERT_TRUE(debug) << debug.error().message;
    int raw = 0;
    for (const char *function : kFunctions) {
      SCOPED_TRACE(function);
      auto symbols = (*debug)->function_symbols(function);
      auto bodies = (*debug)->find_functions(function, "", InlineCopies::Exclude);
      ASSERT_EQ(symbols.size(), 1u);
      ASSERT_EQ(bodies.size(), 1u);
      TypeInfo llvm = (*debug)->describe((*debug)->return_type(bodies[0]));
      // From a symbol alone, and from the DIE find_functions gives.
      for (const Function &fn : {symbols[0], bodies[0]}) {
        auto scalar = (*debug)->scalar_return_type(fn);
        bool is_scalar = llvm.kind != TypeInfo::Kind::Struct && llvm.kind != TypeInfo::Kind::Union &&
                         llvm.kind != TypeInfo::Kind::Array && llvm.kind != TypeInfo::Kind::Other;
        ASSERT_EQ(scalar.has_value(), is_scalar) << llvm.name;
        if (!scalar) continue;
        ++raw;
        EXPECT_EQ(scalar->kind, llvm.kind) << llvm.name;
        EXPECT_EQ(scalar->size, llvm.size) << llvm.name;
        EXPECT_EQ(scalar->is_signed, llvm.is_signed) << llvm.name;
        EXPECT_EQ(scalar->is_reference, llvm.is_reference) << llvm.name;
      }
    }
    EXPECT_EQ(raw, 2 * 14) << "every scalar and void read raw";
  }
  EXPECT_GE(fixtures, 2);
}

}  // namespace
}  // namespace kpp::dwarf
