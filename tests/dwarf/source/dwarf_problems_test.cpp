// LLVM's recoverable DWARF problems reach -v (dwarf/source/dwarf_problems.h): on a
// program whose line-table prologue the build damaged, the library keeps
// LLVM's warning, `-D -v` prints it, and without -v (or on the undamaged
// program) nothing is said. The probe is still placed, as LLVM reads on.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dwarf/debug_info.h"
#include "tests/common/run_command.h"

namespace kpp {
namespace {

constexpr const char *kWarning = "unknown data in line table prologue";

using test::CommandRun;

// kprobe-probe with `args`: its output, and its error output apart.
CommandRun run(const std::string &args) {
  return test::run_command(std::string(KPP_BIN) + " " + args, test::Stderr::Apart);
}

TEST(DwarfProblems, TheLibraryKeepsLlvmsWarningAboutADamagedLineTable) {
  auto info = dwarf::DebugInfo::open(KPP_DAMAGED_FIXTURE);
  ASSERT_TRUE(info) << info.error().message;
  auto fns = (*info)->find_functions("twice", "", dwarf::InlineCopies::Exclude);
  ASSERT_EQ(fns.size(), 1u);
  // A line query reads the line table, where the damage is.
  EXPECT_FALSE((*info)->line_sites_in(fns[0], fns[0].decl_line + 2).empty()) << "LLVM reads on past the damage";
  auto problems = (*info)->provenance().dwarf_problems();
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find(kWarning), std::string::npos) << problems[0];
  EXPECT_EQ(problems[0].rfind(KPP_DAMAGED_FIXTURE, 0), 0u) << "names the file: " << problems[0];
}

TEST(DwarfProblems, VerboseShowsThemAndQuietDoesNot) {
  CommandRun verbose = run("-v --no-cache -x " + std::string(KPP_DAMAGED_FIXTURE) + " -D 'twice:2 x'");
  EXPECT_EQ(verbose.status, 0) << verbose.err;
  EXPECT_NE(verbose.out.find("twice_L2"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.err.find(std::string("kprobe-probe: DWARF: ") + KPP_DAMAGED_FIXTURE + ": " + kWarning),
            std::string::npos)
      << verbose.err;

  CommandRun plain = run("--no-cache -x " + std::string(KPP_DAMAGED_FIXTURE) + " -D 'twice:2 x'");
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.err.find("DWARF:"), std::string::npos) << plain.err;
  // The same probe as on the undamaged build: the damage was read past.
  CommandRun whole = run("-v --no-cache -x " + std::string(KPP_WHOLE_FIXTURE) + " -D 'twice:2 x'");
  EXPECT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(whole.err.find("DWARF:"), std::string::npos) << whole.err;
  // "FILE:0xOFFSET ARGS": the same offset and fetch-args as on the undamaged build.
  auto placed = [](const std::string &out) { return out.substr(std::min(out.find(":0x"), out.size())); };
  EXPECT_FALSE(placed(plain.out).empty()) << plain.out;
  EXPECT_EQ(placed(plain.out), placed(whole.out));
}

// kprobe-probe on the fuzz_dwarf input `input` with `command` (under a
// bound of 20 s): refused with exit 1 and `message`, not a crash.
void expect_refused(const std::string &input, const std::string &command, const std::string &message) {
  std::string file = std::string(KPP_FUZZ_DWARF_REGRESSIONS) + "/" + input;
  CommandRun refused = test::run_command("timeout 20 " + std::string(KPP_BIN) + " --no-cache -x " + file + " " + command,
                                         test::Stderr::Apart);
  EXPECT_EQ(refused.status, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find(message), std::string::npos) << refused.err;
}

// Not every damage is LLVM's to report: its line-table prologue parser
// crashes on a form DWARF 5 does not allow for files, also in a table whose
// length runs past the section (fuzz_dwarf found one; llvm-dwarfdump-19
// crashes on it too). The file is refused before LLVM reads it, naming
// the table.
TEST(DwarfProblems, ABadFormInALineTableCutShortIsRefusedBeforeLlvmReadsIt) {
  expect_refused("cut_line_table_prologue_form_segv", "-L main",
                 "(.debug_line): the line table at 0 describes its files with form 29");
}

// An 18 KB file whose .gnu.version_r claims 2^31 entries, each the next of
// the one before at offset 0: LLVM read them all, 24 GB and a minute. The
// claim is checked against the section first (fuzz_dwarf found it).
TEST(DwarfProblems, VersionEntriesThatRepeatAreRefusedBeforeLlvmReadsThem) {
  expect_refused("verneed_entries_repeat_oom", "-F", "(.gnu.version_r) claims 2013265921 version entries");
}

// An empty .rela.dyn whose entries are 0 bytes: LLVM divides the section's
// size by that (SIGFPE, 0/0), also for an empty one, which the check of
// relocation entry sizes skipped (fuzz_dwarf found it).
TEST(DwarfProblems, AnEmptyRelocationSectionOfZeroByteEntriesIsRefused) {
  expect_refused("empty_rela_section_of_entry_size_0_sigfpe", "-L main",
                 "section 10 (.rela.dyn) holds relocations of 0 bytes (they are 24)");
}

// Anonymous members whose types lead back to their own struct: looking a
// member up, and listing the members for the hint, went round the cycle
// until the stack overflowed (SIGSEGV; fuzz_dwarf found it). Both walks are
// one, bounded in depth and in DIEs read.
TEST(DwarfProblems, AMemberChainThatCyclesEndsInAnError) {
  expect_refused("anonymous_member_cycle_stack_overflow", "-D 'main a.x'", "has no member 'x'");
}

// A relocatable file (a kernel module's kind) finds the unit of an address
// by the units' own ranges, which are in their unit DIEs; reading them read
// every DIE of each unit, before the DIE check, and LLVM ran past the
// section on a damaged one (SIGSEGV; fuzz_dwarf found it). The unit DIEs
// alone are read there now, and the unit found is checked as any other.
TEST(DwarfProblems, ARelocatableFilesUnitIsCheckedBeforeLlvmReadsItsDies) {
  expect_refused("relocatable_units_read_whole_before_the_check_segv", "-D main",
                 "the DIE at 0x132: its DW_AT_location (DW_FORM_exprloc) runs past the unit's end at 0x28e");
}

// A relocation section whose symbol table (sh_link) is section 65542 of 37:
// LLVM looks it up for a relocatable file's DWARF and aborts (fuzz_dwarf
// found it). The index is checked with the section headers.
TEST(DwarfProblems, ARelocationSectionNamingASectionPastTheTableIsRefused) {
  expect_refused("relocation_section_link_past_the_table_abort", "-D main",
                 "section 10 (.rela.dyn) names section 65542 as its symbol table, of 37");
}

}  // namespace
}  // namespace kpp
