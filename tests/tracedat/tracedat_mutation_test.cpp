// Damaged trace.dat files never crash `report` (issue 30 item 8): real
// recordings of the fixture's uprobe (version 6, and version 7 with zstd
// sections), each mutated 500 ways with a fixed seed (bytes flipped, words
// set to boundary values, cuts, chunks dropped or repeated, the header region
// favoured: that is where libtracecmd's open reads sizes and offsets), are
// read by the real binary. In both files each event carries a user stack in
// the user-stacks option (user_stack_table.h), which the mutants damage too.
// With the option's bytes before the version 6 file's pages, one of these
// mutants damages a ring-buffer page's commit word so that libtraceevent's
// kbuffer_load_subbuffer reads far past the page and dies as the events
// are iterated: report reads each file once in a child first
// (src/tracedat/trial_read.h), which names the file as damaged instead.
// Every run must end with status 0 or an error --
// no signal, no "crashed" from the supervisor -- within 10 s.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>

#include "tests/common/run_program.h"
#include "tests/tracedat/recording_test.h"

namespace kpp {
namespace {

constexpr int kMutantsPerFile = 500;

std::string mutate(const std::string &file, std::mt19937_64 &rng) {
  std::string m = file;
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  // Half the damage in the first 8 KiB: headers, formats, options, CPU offsets.
  auto where = [&](size_t width) {
    size_t limit = m.size() > width ? m.size() - width : 1;
    return (rng() & 1) ? pick(std::min<size_t>(limit, 8192)) : pick(limit);
  };
  switch (rng() % 6) {
    case 0:  // a few bytes flipped
      for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n; ++i) m[where(1)] ^= static_cast<char>(1 + rng() % 255);
      break;
    case 1: {  // a 4- or 8-byte field set to a boundary value
      static const uint64_t values[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffffffffffull,
                                        0x7fffffffffffffffull, 4096, 65536};
      uint64_t v = values[rng() % std::size(values)];
      size_t width = (rng() & 1) ? 8 : 4;
      if (m.size() > width) std::memcpy(&m[where(width) & ~(width - 1)], &v, width);
      break;
    }
    case 2: m.resize(pick(m.size())); break;  // cut
    case 3: {  // a chunk dropped
      size_t at = where(1), n = 1 + pick(512);
      m.erase(at, n);
      break;
    }
    case 4: {  // a chunk repeated
      size_t at = where(1), n = 1 + pick(512);
      m.insert(at, m.substr(at, n));
      break;
    }
    default:  // a run of bytes zeroed
      { size_t at = where(1); m.replace(at, std::min<size_t>(1 + pick(64), m.size() - at), std::min<size_t>(1 + pick(64), m.size() - at), '\0'); }
  }
  return m;
}

class TraceDatMutationTest : public test::RecordingTest, public ::testing::WithParamInterface<TraceDatOptions> {};

TEST_P(TraceDatMutationTest, DamagedFilesEndInAnErrorNeverACrash) {
  std::vector<test::Hit> truth = record_fixture_calls(200, GetParam());
  ASSERT_EQ(truth.size(), 200u);
  const std::string original = test::read_file(base_ + ".dat");
  if (GetParam().user_stacks) {
    // The file carries the user-stacks option (the mutants damage it too): its report shows them.
    run_result whole = run_program({KPP_BINARY, "report", "--json", base_ + ".dat"});
    ASSERT_EQ(whole.status, 0) << whole.err;
    ASSERT_NE(whole.out.find("\"stack\":[{"), std::string::npos) << whole.out.substr(0, 600);
  }
  std::mt19937_64 rng(0x6b7070 + static_cast<uint64_t>(GetParam().file_version));
  const std::string path = base_ + "-mutant.dat";
  int ok = 0, refused = 0, child_died = 0;
  for (int i = 0; i < kMutantsPerFile; ++i) {
    std::string mutant = mutate(original, rng);
    { std::ofstream(path, std::ios::binary | std::ios::trunc) << mutant; }
    run_options opt;
    opt.signal = SIGKILL;  // a hang ends as a failure, not as a stuck test
    opt.signal_after_s = 10;
    run_result r = run_program({KPP_BINARY, "report", path}, opt);
    bool crashed = r.signaled || r.err.find("crashed") != std::string::npos || r.err.find("killed by") != std::string::npos;
    if (crashed) {
      std::string keep = base_ + "-crash-" + std::to_string(i) + ".dat";
      std::rename(path.c_str(), keep.c_str());
      ADD_FAILURE() << "mutant " << i << " (kept as " << keep << ") status " << r.status << ": " << r.err.substr(0, 600);
      continue;
    }
    (r.status == 0 ? ok : refused)++;
    if (r.err.find("libtracecmd died of") != std::string::npos) ++child_died;  // caught by the trial read
    if (r.status != 0) {
      EXPECT_NE(r.err.find(path), std::string::npos) << "mutant " << i << ": the error names no file: " << r.err;
    }
  }
  std::remove(path.c_str());
  std::printf("%d mutants: %d read, %d refused with an error (%d where libtracecmd died in the trial read), "
              "none crashed\n", kMutantsPerFile, ok, refused, child_died);
}

// The first ring-buffer page of a version 6 file: the first CPU with data
// in the flyrecord table ("flyrecord\0", then per CPU an 8-byte offset and
// an 8-byte size) that follows the options.
size_t first_page(const std::string &file) {
  size_t table = file.find(std::string("flyrecord\0", 10));
  if (table == std::string::npos) return 0;
  for (size_t at = table + 10; at + 16 <= file.size(); at += 16) {
    uint64_t offset, size;
    std::memcpy(&offset, &file[at], 8);
    std::memcpy(&size, &file[at + 8], 8);
    if (size > 0) return offset % 4096 == 0 && offset + 4096 <= file.size() ? offset : 0;
  }
  return 0;
}

using DamagedPageTest = test::RecordingTest;

// A page whose commit word says it stores a lost-events count at 128 MB
// past its start: libtraceevent reads it there and dies -- in libtracecmd's
// open when it is a CPU's first page (the open loads those), as the events
// are read when it is a later one. report says the file is damaged, and
// where, and does not crash.
TEST_F(DamagedPageTest, ACommitWordFarPastThePageIsAnErrorNotACrash) {
  ASSERT_EQ(record_fixture_calls(1000, TraceDatOptions{true, 6, "", false}).size(), 1000u);
  const std::string original = test::read_file(base_ + ".dat");
  size_t first = first_page(original);
  ASSERT_NE(first, 0u) << "no page found in the flyrecord table";
  const uint64_t commit = (1ull << 31) | (1ull << 30) | ((1ull << 27) - 1);  // missed events, stored; longest size
  const struct {
    size_t page;
    std::string said;
  } cases[] = {{first, "opening it"}, {first + 4096, "reading its events, after "}};
  for (const auto &c : cases) {
    std::string file = original;
    ASSERT_LE(c.page + 4096, file.size());
    std::memcpy(&file[c.page + 8], &commit, 8);
    { std::ofstream(base_ + ".dat", std::ios::binary | std::ios::trunc) << file; }
    run_result r = run_program({KPP_BINARY, "report", base_ + ".dat"});
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(r.err.find("crashed"), std::string::npos) << r.err;
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find(base_ + ".dat is damaged: libtracecmd died of SIGSEGV " + c.said), std::string::npos)
        << r.err;
  }
}

// An event whose length runs past its page: kbuffer hands it out with that
// length, and decoding it would read past the page. report leaves it out,
// says so, and shows the events of the other pages.
TEST_F(DamagedPageTest, AnEventLongerThanItsPageIsLeftOutWithAWarning) {
  ASSERT_EQ(record_fixture_calls(50, TraceDatOptions{true, 6, "", false}).size(), 50u);
  run_result whole = run_program({KPP_BINARY, "report", "--json", base_ + ".dat"});
  ASSERT_EQ(whole.status, 0) << whole.err;
  const auto events = std::count(whole.out.begin(), whole.out.end(), '\n');
  std::string file = test::read_file(base_ + ".dat");
  size_t page = first_page(file);
  ASSERT_NE(page, 0u) << "no page found in the flyrecord table";
  // The first event (after the 16-byte header): type_len 0, its length in
  // the next word: a whole page.
  uint32_t header, length = 4096;
  std::memcpy(&header, &file[page + 16], 4);
  ASSERT_LE(header & 0x1f, 28u) << "the page does not start with a data event";
  header &= ~0x1fu;
  std::memcpy(&file[page + 16], &header, 4);
  std::memcpy(&file[page + 20], &length, 4);
  { std::ofstream(base_ + ".dat", std::ios::binary | std::ios::trunc) << file; }
  run_result r = run_program({KPP_BINARY, "report", "--json", base_ + ".dat"});
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(base_ + ".dat is damaged: 1 event left out, longer than the rest of its ring-buffer page"),
            std::string::npos) << r.err;
  // The damaged event and the rest of its page are gone; no event is made up.
  EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), events);
}

INSTANTIATE_TEST_SUITE_P(Versions, TraceDatMutationTest,
                         ::testing::Values(TraceDatOptions{true, 6, "", true}, TraceDatOptions{true, 7, "zstd", true}),
                         [](const auto &info) { return "v" + std::to_string(info.param.file_version); });

}  // namespace
}  // namespace kpp
