// dwarf/expr/cfa.cpp against LLVM's parse of the whole section: for every address
// of every FDE (and just outside them) the CFA rule, "not covered" or error
// must be what the earlier frame_address computed from DWARFDebugFrame.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>
#include <llvm/Object/ObjectFile.h>

#include "dwarf/expr/cfa.h"
#include "dwarf/query/llvm_debug_info.h"

namespace {

using namespace kpp::dwarf;

enum class Kind { Rule, NotCovered, Error };
struct Answer {
  Kind kind = Kind::NotCovered;
  CfaRule rule;
};

std::string show(const Answer &a) {
  if (a.kind == Kind::NotCovered) return "not covered";
  if (a.kind == Kind::Error) return "error";
  return "reg " + std::to_string(a.rule.reg) + " + " + std::to_string(a.rule.offset);
}

// The whole-section parse, walked as frame_address did before dwarf/cfa.cpp.
class Oracle {
 public:
  explicit Oracle(const std::string &path) {
    auto binary = llvm::object::ObjectFile::createObjectFile(path);
    if (!binary) {
      error_ = llvm::toString(binary.takeError());
      return;
    }
    binary_ = std::move(*binary);
    context_ = llvm::DWARFContext::create(*binary_.getBinary());
    for (bool eh : {true, false}) {
      auto frames = eh ? context_->getEHFrame() : context_->getDebugFrame();
      if (!frames) {
        llvm::consumeError(frames.takeError());
        continue;
      }
      for (const llvm::dwarf::FrameEntry &entry : (*frames)->entries()) {
        const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry);
        if (!fde) continue;
        (eh ? eh_fdes : debug_fdes).push_back(fde);
      }
    }
  }
  const std::string &error() const { return error_; }

  Answer at(uint64_t pc) const {
    for (const auto *list : {&eh_fdes, &debug_fdes}) {
      for (const llvm::dwarf::FDE *fde : *list) {
        if (pc < fde->getInitialLocation() || pc >= fde->getInitialLocation() + fde->getAddressRange()) continue;
        auto table = llvm::dwarf::UnwindTable::create(fde);
        if (!table) {
          llvm::consumeError(table.takeError());
          return {Kind::Error, {}};
        }
        const llvm::dwarf::UnwindRow *found = nullptr;
        for (const llvm::dwarf::UnwindRow &row : *table)
          if (row.hasAddress() && row.getAddress() <= pc) found = &row;
        if (!found) break;
        const llvm::dwarf::UnwindLocation &cfa = found->getCFAValue();
        if (cfa.getLocation() != llvm::dwarf::UnwindLocation::RegPlusOffset) return {Kind::Error, {}};
        return {Kind::Rule, {static_cast<int>(cfa.getRegister()), cfa.getOffset()}};
      }
    }
    return {Kind::NotCovered, {}};
  }

  std::vector<const llvm::dwarf::FDE *> eh_fdes, debug_fdes;
  llvm::DWARFContext &context() { return *context_; }

 private:
  std::string error_;
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary_;
  std::unique_ptr<llvm::DWARFContext> context_;
};

Answer fast(LlvmDebugInfo &info, uint64_t pc) {
  auto rule = info.cfa_at(pc);
  if (rule) return {Kind::Rule, *rule};
  if (rule.error().message == "no call frame information covers this address") return {Kind::NotCovered, {}};
  return {Kind::Error, {}};
}

std::string fixture(const std::string &name) { return std::string(KPP_CFA_FIXTURE_DIR) + "/" + name; }

std::unique_ptr<kpp::dwarf::DebugInfo> open_or_fail(const std::string &path) {
  auto info = DebugInfo::open(path, OpenOptions{false, ""});
  if (!info) {
    ADD_FAILURE() << path << ": " << info.error().message;
    return nullptr;
  }
  return std::move(*info);
}

// Every address of every FDE, the byte before and after each, and a few far away.
size_t compare_everywhere(const std::string &path, size_t &eh_hits, size_t &debug_hits) {
  Oracle oracle(path);
  EXPECT_EQ(oracle.error(), "");
  auto info = open_or_fail(path);
  if (!info) return 0;
  auto &llvm_info = static_cast<LlvmDebugInfo &>(*info);
  size_t compared = 0;
  for (const auto *list : {&oracle.eh_fdes, &oracle.debug_fdes}) {
    for (const llvm::dwarf::FDE *fde : *list) {
      uint64_t begin = fde->getInitialLocation(), end = begin + fde->getAddressRange();
      for (uint64_t pc = begin - 1; pc <= end; ++pc) {
        Answer want = oracle.at(pc), got = fast(llvm_info, pc);
        EXPECT_EQ(show(got), show(want)) << path << " at 0x" << std::hex << pc;
        ++compared;
      }
      (list == &oracle.eh_fdes ? eh_hits : debug_hits) += 1;
    }
  }
  for (uint64_t pc : {uint64_t{0}, uint64_t{0x10}, ~uint64_t{0}}) {
    EXPECT_EQ(show(fast(llvm_info, pc)), show(oracle.at(pc))) << path;
    ++compared;
  }
  return compared;
}

struct Case {
  const char *name;
  bool expect_debug_frame;  // user functions described only in .debug_frame
};

class FixtureTest : public ::testing::TestWithParam<Case> {};

TEST_P(FixtureTest, AgreesWithWholeSectionParse) {
  std::string path = fixture(GetParam().name);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not built (no such compiler)";
  size_t eh = 0, debug = 0;
  size_t compared = compare_everywhere(path, eh, debug);
  RecordProperty("addresses", static_cast<int>(compared));
  RecordProperty("eh_fdes", static_cast<int>(eh));
  RecordProperty("debug_fdes", static_cast<int>(debug));
  EXPECT_GT(compared, 200u);
  EXPECT_GT(eh, 0u);  // the crt objects always bring .eh_frame entries
  if (GetParam().expect_debug_frame) {
    EXPECT_GT(debug, 4u);
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, FixtureTest,
                         ::testing::Values(Case{"frames_gcc_O0", false}, Case{"frames_gcc_O2", false},
                                           Case{"frames_gcc_debug_frame", true},
                                           Case{"frames_gcc_O0_debug_frame", true},
                                           Case{"frames_clang_O0", false}, Case{"frames_clang_O2", false},
                                           Case{"frames_clang_debug_frame", true},
                                           Case{"frames_clang_dwarf64", true}),
                         [](const auto &info) { return std::string(info.param.name); });

// The 64-bit fixture really has 64-bit entries (else the case above proves little).
TEST(Cfa, Dwarf64FixtureHas64BitLengths) {
  std::string path = fixture("frames_clang_dwarf64");
  if (!std::filesystem::exists(path)) GTEST_SKIP();
  Oracle oracle(path);
  ASSERT_FALSE(oracle.debug_fdes.empty());
  llvm::StringRef data = oracle.context().getDWARFObj().getFrameSection().Data;
  ASSERT_GE(data.size(), 4u);
  EXPECT_EQ(data.substr(0, 4), llvm::StringRef("\xff\xff\xff\xff", 4));  // the 64-bit length escape
}

// One query decodes one FDE: the point of not parsing the whole section.
TEST(Cfa, DecodesOnlyTheCoveringEntry) {
  std::string path = fixture("frames_gcc_debug_frame");
  Oracle oracle(path);
  ASSERT_GT(oracle.debug_fdes.size(), 3u);
  const llvm::DWARFObject &obj = oracle.context().getDWARFObj();
  const llvm::DWARFSection &section = obj.getFrameSection();
  FrameTable table(llvm::DWARFDataExtractor(obj, section, true, 8), section.Address, false,
                   oracle.context().getArch());
  EXPECT_EQ(table.fde_count(), oracle.debug_fdes.size());
  EXPECT_EQ(table.decoded_count(), 0u);
  const llvm::dwarf::FDE *fde = oracle.debug_fdes[2];
  for (uint64_t pc = fde->getInitialLocation(); pc < fde->getInitialLocation() + fde->getAddressRange(); ++pc) {
    auto rule = table.rule_at(pc);
    ASSERT_TRUE(rule) << rule.error().message;
  }
  EXPECT_EQ(table.decoded_count(), 1u);
}

// The kernel, when a DWARF vmlinux is at hand: random FDEs, at their first,
// middle and last bytes (the linear oracle is too slow for every address).
TEST(Cfa, VmlinuxSample) {
  const char *env = std::getenv("KPP_TEST_VMLINUX");
  std::string path = env ? env : "/var/tmp/kprobe-probe-guest/6.1.0-57-cloud-amd64/debug/vmlinux";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no vmlinux (set KPP_TEST_VMLINUX)";
  Oracle oracle(path);
  auto info = open_or_fail(path);
  ASSERT_TRUE(info);
  auto &llvm_info = static_cast<LlvmDebugInfo &>(*info);
  // The first query walks every entry header into the index: its cost.
  auto started = std::chrono::steady_clock::now();
  (void)llvm_info.cfa_at(0);
  RecordProperty("index_us", static_cast<int>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                  std::chrono::steady_clock::now() - started).count()));
  std::vector<const llvm::dwarf::FDE *> all = oracle.eh_fdes;
  all.insert(all.end(), oracle.debug_fdes.begin(), oracle.debug_fdes.end());
  ASSERT_GT(all.size(), 1000u);
  std::mt19937_64 random(42);
  size_t rules = 0;
  for (int i = 0; i < 300; ++i) {
    const llvm::dwarf::FDE *fde = all[random() % all.size()];
    uint64_t begin = fde->getInitialLocation(), range = fde->getAddressRange();
    for (uint64_t pc : {begin, begin + range / 2, begin + range - 1, begin + range}) {
      Answer want = oracle.at(pc), got = fast(llvm_info, pc);
      EXPECT_EQ(show(got), show(want)) << "vmlinux at 0x" << std::hex << pc;
      rules += want.kind == Kind::Rule;
    }
  }
  EXPECT_GT(rules, 600u);
}

}  // namespace
