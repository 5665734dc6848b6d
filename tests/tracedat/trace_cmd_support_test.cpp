// The warning `record --compression` gives when the installed trace-cmd
// cannot read the file, checked against what `trace-cmd list -c` says.
#include <gtest/gtest.h>

#include <unistd.h>

#include "src/tracedat/trace_cmd_support.h"
#include "src/tracedat/tracedat_writer.h"
#include "tests/common/run_command.h"
#include "tests/stream/uprobe_helper.h"

namespace kpp {
namespace {

TEST(TraceCmdSupport, ZlibWarnsExactlyWhenTheInstalledTraceCmdDoesNotListIt) {
  test::CommandRun list = test::run_command("trace-cmd list -c 2>/dev/null");
  const std::string &listed = list.out;
  if (list.status != 0) GTEST_SKIP() << "trace-cmd is not installed or 'trace-cmd list -c' fails";
  for (const std::string name : {"zlib", "zstd"}) {
    const bool readable = listed.find("\t" + name + ",") != std::string::npos;
    std::string warning = tracedat::unreadable_compression_warning(name);
    EXPECT_EQ(warning.empty(), readable) << name << ": 'trace-cmd list -c' says\n" << listed << "warning: " << warning;
    if (!readable) {
      EXPECT_NE(warning.find(name + "-compressed"), std::string::npos) << warning;
    }
  }
  EXPECT_EQ(tracedat::unreadable_compression_warning("none"), "");

  // The writer passes it on for the record command to print.
  const std::string path = "/tmp/kpp-tracecmd-support-" + std::to_string(getpid()) + ".dat";
  auto writer = TraceDatWriter::create(path, TraceDatOptions{true, 7, "zlib"});
  ASSERT_TRUE(writer) << writer.error().message;
  const bool zlib_readable = listed.find("\tzlib,") != std::string::npos;
  EXPECT_EQ((*writer)->warnings().empty(), zlib_readable);
  writer->reset();
  unlink(path.c_str());
}

}  // namespace
}  // namespace kpp
