// record --stack's DWARF user stacks in the trace.dat, without a kernel:
// the table round-trips, each event gets its own stack by (time, cpu,
// thread) and once only, the option is found in v6 and v7 files, and a
// damaged table or head is refused, never read past.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>

#include "src/tracedat/tracedat_compress.h"
#include "src/tracedat/tracedat_options.h"
#include "src/tracedat/tracedat_v7.h"
#include "src/tracedat/tracedat_writer.h"
#include "src/tracedat/user_stack_table.h"

namespace kpp {
namespace {

StackFrame frame(uint64_t ip, const std::string &sym, int line, bool inlined = false) {
  StackFrame f;
  f.ip = ip;
  f.user = true;
  f.sym = sym;
  f.off = inlined ? 0 : 4;
  f.file = "fixture.c";
  f.line = line;
  f.inlined = inlined;
  f.object = "/tmp/fixture";
  return f;
}

Event event(uint64_t time_ns, int cpu, int pid, std::vector<StackFrame> stack) {
  Event e;
  e.time_ns = time_ns;
  e.cpu = cpu;
  e.pid = pid;
  e.system = "grp";
  e.name = "leaf";
  e.stack = std::move(stack);
  return e;
}

const std::vector<StackFrame> kLeaf = {frame(0x1000, "leaf", 15), frame(0x1100, "helper", 20, true),
                                       frame(0x1100, "middle", 25), frame(0x1200, "main", 31)};
const std::vector<StackFrame> kOther = {frame(0x1000, "leaf", 15), frame(0x1300, "main", 33)};

UserStackTable sample_table() {
  UserStackTable t;
  t.add(event(100, 0, 7, kLeaf));
  t.add(event(200, 1, 7, kOther));
  t.add(event(100, 1, 8, kLeaf));  // the same time on another CPU
  StackFrame kernel = frame(0xffffffff81000000ull, "vfs_read", 0);
  kernel.user = false;
  t.add(event(300, 0, 9, {kernel}));  // kernel frames only: nothing kept
  return t;
}

TEST(UserStackTable, RoundTripsAndGivesEachEventItsOwnStackOnce) {
  UserStackTable written = sample_table();
  EXPECT_EQ(written.events(), 3u);
  auto read = UserStackTable::decode(written.encode());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->take(event(200, 1, 7, {})), kOther);
  EXPECT_EQ(read->take(event(100, 1, 8, {})), kLeaf);
  EXPECT_EQ(read->take(event(100, 0, 7, {})), kLeaf);
  EXPECT_EQ(read->take(event(100, 0, 7, {})), std::nullopt);  // taken already
  EXPECT_EQ(read->take(event(300, 0, 9, {})), std::nullopt);
  EXPECT_EQ(read->take(event(100, 0, 8, {})), std::nullopt);  // another thread at that time
}

TEST(UserStackTable, RepeatedStacksAreStoredOnce) {
  UserStackTable one, many;
  one.add(event(1, 0, 7, kLeaf));
  for (uint64_t t = 1; t <= 1000; ++t) many.add(event(t, 0, 7, kLeaf));
  // Each further event costs its key and a stack id, not its frames.
  EXPECT_EQ(many.encode().size() - one.encode().size(), 999u * 20);
}

TEST(UserStackTable, EveryCutAndManyDamagedTablesAreRefusedOrReadNeverReadPast) {
  const std::string good = sample_table().encode();
  for (size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(UserStackTable::decode(good.substr(0, n))) << "cut at " << n;
  EXPECT_FALSE(UserStackTable::decode(good + "x"));
  std::mt19937_64 rng(29);
  for (int i = 0; i < 5000; ++i) {
    std::string bad = good;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    auto t = UserStackTable::decode(bad);  // under ASan/valgrind: no read past the payload
    if (t) (void)t->take(event(100, 0, 7, {}));
  }
  // A count that claims more than the payload holds allocates nothing.
  std::string huge = good;
  uint32_t lots = 0xffffffffu;
  std::memcpy(&huge[16], &lots, 4);  // the string count
  auto t = UserStackTable::decode(huge);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("past its end"), std::string::npos) << t.error().message;
}

tracedat::Metadata metadata_with_stacks() {
  tracedat::Metadata m;
  m.header_page = "hp";
  m.header_event = "he";
  m.ftrace_formats = {{"print", "fmt1"}, {"kernel_stack", "fmt3"}};
  m.systems = {{"kpptest", {{"hit", "fmt2"}}}, {"other", {}}};
  m.kallsyms = "ks";
  m.cmdlines = "1 init\n";
  m.trace_clock = "local [mono]\n";
  m.uname = "Linux h 6 #1 x86_64";
  m.user_stacks = sample_table().encode();
  return m;
}

std::string write_temp(const std::string &bytes) {
  char path[] = "/tmp/kpp-ustack-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fd);
  return path;
}

TEST(TraceDatOptions, TheUserStacksOptionIsFoundInAVersion6Head) {
  tracedat::Metadata m = metadata_with_stacks();
  std::vector<uint64_t> offsets;
  std::string head = build_tracedat_v6_head(m, 4096, {0, 0}, offsets);
  std::string path = write_temp(head);
  auto found = tracedat::find_tracedat_option(path, tracedat::kOptionUserStacks);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(*found);
  EXPECT_EQ(**found, m.user_stacks);
  auto absent = tracedat::find_tracedat_option(path, 0x4b51);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);
  // Every cut of the head: found, absent or refused, never read past.
  for (size_t n = 0; n < head.size(); n += 7) {
    std::string cut = write_temp(head.substr(0, n));
    auto r = tracedat::find_tracedat_option(cut, tracedat::kOptionUserStacks);
    if (r && *r) EXPECT_EQ(**r, m.user_stacks);
    std::remove(cut.c_str());
  }
  std::remove(path.c_str());
}

TEST(TraceDatOptions, TheUserStacksOptionIsFoundInAVersion7File) {
  tracedat::Metadata m = metadata_with_stacks();
  FILE *cpu0 = std::tmpfile(), *out = std::tmpfile();
  ASSERT_TRUE(cpu0 && out);
  Status st = tracedat::write_v7(fileno(out), "test", m, 4096, {fileno(cpu0)}, {0}, tracedat::Compression::Zstd);
  ASSERT_TRUE(st) << st.error().message;
  std::string path = "/proc/self/fd/" + std::to_string(fileno(out));
  auto found = tracedat::find_tracedat_option(path, tracedat::kOptionUserStacks);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_TRUE(*found);
  EXPECT_EQ(**found, m.user_stacks);
  std::fclose(cpu0);
  std::fclose(out);
}

TEST(TraceDatOptions, NoTraceDatHasNoOptionAndAWildOffsetIsRefused) {
  std::string junk = write_temp("not a trace.dat at all");
  auto none = tracedat::find_tracedat_option(junk, tracedat::kOptionUserStacks);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  std::remove(junk.c_str());
  // A v6 head whose header_page size points far past the end.
  tracedat::Metadata m = metadata_with_stacks();
  std::vector<uint64_t> offsets;
  std::string head = build_tracedat_v6_head(m, 4096, {0}, offsets);
  uint64_t wild = 1ull << 60;
  std::memcpy(&head[30], &wild, 8);
  std::string path = write_temp(head);
  auto refused = tracedat::find_tracedat_option(path, tracedat::kOptionUserStacks);
  EXPECT_FALSE(refused);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kpp
