// Finding sources: where DWARF says, else under -s DIR by ever shorter tails
// of the recorded path; every path tried is named when none is found.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
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
  EXPECT_NE(text.error().hint.find("-s DIR"), std::string::npos) << text.error().hint;
  EXPECT_NE(text.error().hint.find("--prefix-map"), std::string::npos) << text.error().hint;
}

// --prefix-map OLD=NEW: the build tree moved from OLD to NEW.
TEST_F(SourceFile, PrefixMapFindsAMovedTree) {
  auto text = kpp::read_source("/build/x/fs/read_write.c", "", {{"/build/x", (root_ / "tree").string()}});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->path, (root_ / "tree/fs/read_write.c").string());
}

TEST_F(SourceFile, PrefixMapMatchesWholeDirectories) {
  EXPECT_EQ(kpp::mapped_paths("/build/ab/x.c", {{"/build/a", "/src"}}), std::vector<std::string>{});
  EXPECT_EQ(kpp::mapped_paths("/build/a/x.c", {{"/build/a/", "/src"}}), std::vector<std::string>{"/src/x.c"});
  EXPECT_EQ(kpp::mapped_paths("/build/a/x.c", {{"/build", "/b1"}, {"/build/a", "/b2"}}),
            (std::vector<std::string>{"/b1/a/x.c", "/b2/x.c"}));
}

TEST_F(SourceFile, PrefixMapPathsAreAmongThoseTried) {
  auto text = kpp::read_source("/build/x/fs/nope.c", (root_ / "tree").string(), {{"/build/x", "/elsewhere"}});
  ASSERT_FALSE(text);
  for (std::string tried : {std::string("/elsewhere/fs/nope.c"), (root_ / "tree/fs/nope.c").string(),
                            std::string("/build/x/fs/nope.c")})
    EXPECT_NE(text.error().message.find(tried), std::string::npos) << tried << " in " << text.error().message;
}

// The recorded path comes from the DWARF, which may be hostile: a FIFO would
// block -L for ever and /dev/zero never end. Neither is read, at once.
TEST_F(SourceFile, OnlyRegularFilesAreRead) {
  fs::path fifo = root_ / "fifo.c";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = kpp::read_source(fifo.string(), "");
  ASSERT_FALSE(from_fifo);
  EXPECT_NE(from_fifo.error().message.find(fifo.string() + " (not a regular file)"), std::string::npos)
      << from_fifo.error().message;
  auto from_device = kpp::read_source("/dev/zero", "");
  ASSERT_FALSE(from_device);
  EXPECT_NE(from_device.error().message.find("/dev/zero (not a regular file)"), std::string::npos)
      << from_device.error().message;
}
