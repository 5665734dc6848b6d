// The note a working process leaves for its supervisor (util/crash_note.h):
// written in a child that then dies, read in the parent.
#include "util/crash_note.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

TEST(CrashNote, TheParentReadsTheLastFilesTheDeadChildOpenedOldestFirst) {
  ASSERT_TRUE(kpp::share_crash_note());
  EXPECT_TRUE(kpp::noted_files().empty());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (const char *path : {"/a", "/b", "/b", "/c", "/d", "/e"}) kpp::note_file_opened(path);
    kpp::note_file_opened(std::string(5000, 'x'));  // cut to what a slot holds
    raise(SIGKILL);  // dies without a core file
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::vector<std::string> files = kpp::noted_files();
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0], "/c");
  EXPECT_EQ(files[1], "/d");
  EXPECT_EQ(files[2], "/e");
  EXPECT_EQ(files[3], std::string(999, 'x'));
  EXPECT_FALSE(kpp::noted_tracefs_changed());

  child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    kpp::note_tracefs_changed();
    _exit(0);
  }
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(kpp::noted_tracefs_changed());
}

}  // namespace
