// check_definition_text(): what would make the kernel read a definition as
// anything but what it says is refused, naming the string.
#include <gtest/gtest.h>

#include "src/definition/definition_text.h"

namespace kpp {
namespace {

TraceDefinition uprobe(const std::string &path) {
  TraceDefinition d;
  d.kind = TraceDefinition::Kind::Uprobe;
  d.group = "g";
  d.event = "e";
  d.path = path;
  d.offset = 0x1139;
  return d;
}

std::string refusal(const TraceDefinition &d) {
  Status s = check_definition_text(d);
  return s ? "" : s.error().message;
}

TEST(DefinitionText, ThePathFromTheIssueIsRefused) {
  std::string injected = "/srv/d:0x1159\np:other/mid /path/victim:0x116a #/prog";
  std::string why = refusal(uprobe(injected));
  EXPECT_NE(why.find("newline"), std::string::npos) << why;
  EXPECT_NE(why.find("/srv/d:0x1159\\np:other/mid"), std::string::npos) << "names the path, escaped: " << why;
}

TEST(DefinitionText, EveryByteTheKernelSplitsOnIsRefused) {
  for (std::string bad : {" ", "\t", "\r", "\v", "\f", "#", "\x01", "\x7f", "\xa0"})
    EXPECT_NE(refusal(uprobe("/tmp/a" + bad + "b")), "") << "byte " << int(static_cast<unsigned char>(bad[0]));
  EXPECT_EQ(refusal(uprobe("/tmp/caf\xc3\xa9/prog:1")), "") << "UTF-8 without 0xa0, ':' in a path: fine";
  EXPECT_NE(refusal(uprobe("/tmp/\xc3\xa0/prog")).find("0xa0"), std::string::npos) << "'\xc3\xa0' holds 0xa0";
  EXPECT_NE(refusal(uprobe("relative/prog")), "");
  EXPECT_NE(refusal(uprobe("")), "");
}

TEST(DefinitionText, NamesArgsAndLengthAreChecked) {
  TraceDefinition d = uprobe("/bin/true");
  d.args.push_back({"a", "%di", "s32"});
  EXPECT_EQ(refusal(d), "");
  TraceDefinition bad_event = d;
  bad_event.event = "e\n-:other/x";
  EXPECT_NE(refusal(bad_event), "");
  TraceDefinition bad_group = d;
  bad_group.group = "9g";
  EXPECT_NE(refusal(bad_group), "");
  TraceDefinition bad_arg = d;
  bad_arg.args.push_back({"b c", "%si", "u64"});
  EXPECT_NE(refusal(bad_arg), "");
  TraceDefinition bad_fetch = d;
  bad_fetch.args.push_back({"b", "+0(%si) x=%dx", "u64"});
  EXPECT_NE(refusal(bad_fetch).find("space"), std::string::npos);
  TraceDefinition bad_type = d;
  bad_type.args.push_back({"b", "%si", "u64#"});
  EXPECT_NE(refusal(bad_type), "");
  TraceDefinition kernel;
  kernel.group = "g";
  kernel.event = "e";
  kernel.symbol = "vfs_read\np:x/y vfs_write";
  EXPECT_NE(refusal(kernel), "");
  TraceDefinition longest = d;
  for (int i = 0; i < 300; ++i) longest.args.push_back({"arg" + std::to_string(i), "+0(%di)", "u64"});
  EXPECT_NE(refusal(longest).find("at most 4094"), std::string::npos) << refusal(longest);
}

}  // namespace
}  // namespace kpp
