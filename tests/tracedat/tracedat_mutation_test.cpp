// Damaged trace.dat files never crash `report` (issue 30 item 8): real
// recordings of the fixture's uprobe (version 6, and version 7 with zstd
// sections), each mutated 500 ways with a fixed seed (bytes flipped, words
// set to boundary values, cuts, chunks dropped or repeated, the header region
// favoured: that is where libtracecmd's open reads sizes and offsets), are
// read by the real binary. In the version 7 file each event carries a user
// stack in the user-stacks option (user_stack_table.h), which the mutants
// damage too. The version 6 file keeps its layout without it: with the
// option's bytes before its pages, one of these mutants (a damaged ring-buffer
// page) crashes libtraceevent's kbuffer_load_subbuffer as the events are
// iterated -- past what the child's open checks, in the pages, not in the
// option -- which no mutant of the file as it was reaches. Every run must end with status 0 or an error --
// no signal, no "crashed" from the supervisor -- within 10 s.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

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
  int ok = 0, refused = 0, open_died = 0;
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
    if (r.err.find("libtracecmd died of") != std::string::npos) ++open_died;  // caught by the child's open
    if (r.status != 0) {
      EXPECT_NE(r.err.find(path), std::string::npos) << "mutant " << i << ": the error names no file: " << r.err;
    }
  }
  std::remove(path.c_str());
  std::printf("%d mutants: %d read, %d refused with an error (%d where libtracecmd's open died in the child), none "
              "crashed\n", kMutantsPerFile, ok, refused, open_died);
}

INSTANTIATE_TEST_SUITE_P(Versions, TraceDatMutationTest,
                         ::testing::Values(TraceDatOptions{true, 6, "", false}, TraceDatOptions{true, 7, "zstd", true}),
                         [](const auto &info) { return "v" + std::to_string(info.param.file_version); });

}  // namespace
}  // namespace kpp
