// create_output_file (issue 12 item 2): root writing record -o's trace.dat
// into a directory another user can write must never write through what
// that user planted there.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "util/output_file.h"

namespace fs = std::filesystem;

namespace {

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kpp_output_file_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    victim_ = (dir_ / "victim").string();
    write(victim_, "secret\n");
    chmod(victim_.c_str(), 0600);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const std::string &path, const std::string &text) { std::ofstream(path) << text; }
  static std::string read(const std::string &path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static void put(int fd, const std::string &text) { ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size())); }
  // Nothing but the names expected: no temporary file left behind.
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }

  fs::path dir_;
  std::string victim_;
};

TEST_F(OutputFile, CreatesANewFileWithTraceCmdsMode) {
  mode_t old = umask(022);
  std::string path = (dir_ / "trace.dat").string();
  auto fd = kpp::create_output_file(path);
  umask(old);
  ASSERT_TRUE(fd) << fd.error().message;
  put(fd->get(), "data");
  struct stat st {};
  ASSERT_EQ(lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(read(path), "data");
  EXPECT_EQ(entries(), 2u) << "the victim and trace.dat only";
}

TEST_F(OutputFile, ASymlinkIsRefusedAndItsTargetUntouched) {
  std::string path = (dir_ / "trace.dat").string();
  fs::create_symlink(victim_, path);
  auto fd = kpp::create_output_file(path);
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message.find("is a symbolic link"), std::string::npos) << fd.error().message;
  EXPECT_NE(fd.error().message.find(path), std::string::npos) << "the message names the file";
  EXPECT_EQ(read(victim_), "secret\n");
  EXPECT_TRUE(fs::is_symlink(path));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(OutputFile, AHardLinkIsReplacedNotWrittenThrough) {
  std::string path = (dir_ / "trace.dat").string();
  ASSERT_EQ(link(victim_.c_str(), path.c_str()), 0);
  auto fd = kpp::create_output_file(path);
  ASSERT_TRUE(fd) << fd.error().message;
  put(fd->get(), "trace data");
  EXPECT_EQ(read(victim_), "secret\n") << "the other name's file keeps its bytes";
  EXPECT_EQ(read(path), "trace data");
  struct stat a {}, b {};
  ASSERT_EQ(stat(victim_.c_str(), &a), 0);
  ASSERT_EQ(stat(path.c_str(), &b), 0);
  EXPECT_NE(a.st_ino, b.st_ino);
  EXPECT_EQ(a.st_mode & 07777, 0600u);
}

TEST_F(OutputFile, AnOldFileIsReplacedWhole) {
  std::string path = (dir_ / "trace.dat").string();
  write(path, "an older, longer recording");
  auto fd = kpp::create_output_file(path);
  ASSERT_TRUE(fd) << fd.error().message;
  put(fd->get(), "new");
  EXPECT_EQ(read(path), "new");
}

TEST_F(OutputFile, FifosDevicesAndDirectoriesAreRefusedAtOnce) {
  std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = kpp::create_output_file(fifo);  // must not wait for a reader
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("is a FIFO"), std::string::npos) << f.error().message;
  auto d = kpp::create_output_file("/dev/null");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("is a device"), std::string::npos) << d.error().message;
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is still a device";
  auto dir = kpp::create_output_file(dir_.string());
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message.find("is a directory"), std::string::npos) << dir.error().message;
  EXPECT_EQ(entries(), 2u) << "nothing created by the refusals";
}

}  // namespace
