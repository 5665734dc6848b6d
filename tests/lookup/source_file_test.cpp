// Finding sources: where DWARF says, else under -s DIR by ever shorter tails
// of the recorded path; every path tried is named when none is found.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "src/lookup/source_file.h"

namespace fs = std::filesystem;

class SourceFile : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kpp-source-test-" + std::to_string(getpid()));
    fs::create_directories(root_ / "tree/fs");
    std::ofstream(root_ / "tree/fs/read_write.c") << "line one\nline two\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(SourceFile, ReadsTheRecordedPath) {
  auto text = kpp::read_source((root_ / "tree/fs/read_write.c").string(), "");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->lines, (std::vector<std::string>{"line one", "line two"}));
}

TEST_F(SourceFile, FindsAMovedTreeUnderSourceDir) {
  auto text = kpp::read_source("/build/linux-6.1/fs/read_write.c", (root_ / "tree").string());
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->path, (root_ / "tree/fs/read_write.c").string());
}

TEST_F(SourceFile, NamesEveryPathTried) {
  auto text = kpp::read_source("/build/x/fs/nope.c", (root_ / "tree").string());
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find((root_ / "tree/fs/nope.c").string()), std::string::npos);
  EXPECT_NE(text.error().message.find("/build/x/fs/nope.c"), std::string::npos);
  EXPECT_EQ(text.error().hint, "give the source tree with -s DIR");
}
