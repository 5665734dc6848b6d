// Definition lines as kprobe_events / uprobe_events take and list them.
// Syntax from the kernel's Documentation/trace/kprobetrace.rst:
//   p[:[GRP/][EVENT]] [MOD:]SYM[+offs]|MEMADDR [FETCHARGS]
//   r[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[+0] [FETCHARGS]
// and Documentation/trace/uprobetracer.rst:
//   p[:[GRP/][EVENT]] PATH:OFFSET [FETCHARGS]
//   r[:[GRP/][EVENT]] PATH:OFFSET [FETCHARGS]
// with FETCHARGS NAME=FETCHARG[:TYPE] separated by spaces. The kernel lists
// uprobes with "%s:0x%0*lx" (the offset zero-padded to 16 digits,
// trace_uprobe.c probes_seq_show) and kprobes as SYM or SYM+OFFS (trace_kprobe.c).
#include <gtest/gtest.h>

#include <string>

#include "src/definition/trace_definition.h"

namespace kpp {

// gtest prints a failed comparison as the line the kernel would get.
void PrintTo(const TraceDefinition &d, std::ostream *os) { *os << "'" << format_definition(d) << "'"; }

namespace {

using Kind = TraceDefinition::Kind;

// A definition of `kind` at `where` (a kprobe's [MOD:]SYM or a uprobe's PATH) + `offset`.
TraceDefinition definition(Kind kind, std::string group, std::string event, std::string where, uint64_t offset,
                           std::vector<FetchArg> args) {
  TraceDefinition d;
  d.kind = kind;
  d.group = std::move(group);
  d.event = std::move(event);
  (kind == Kind::Kprobe ? d.symbol : d.path) = std::move(where);
  d.offset = offset;
  d.args = std::move(args);
  return d;
}

TraceDefinition kprobe(std::string group, std::string event, std::string symbol, uint64_t offset,
                       std::vector<FetchArg> args = {}) {
  return definition(Kind::Kprobe, std::move(group), std::move(event), std::move(symbol), offset, std::move(args));
}

TraceDefinition uprobe(std::string group, std::string event, std::string path, uint64_t offset,
                       std::vector<FetchArg> args = {}) {
  return definition(Kind::Uprobe, std::move(group), std::move(event), std::move(path), offset, std::move(args));
}

TraceDefinition returning(TraceDefinition d, std::optional<unsigned> maxactive = std::nullopt) {
  d.is_return = true;
  d.maxactive = maxactive;
  return d;
}

struct FormatCase {
  const char *what;
  TraceDefinition definition;
  std::string line;
};

void PrintTo(const FormatCase &c, std::ostream *os) { *os << c.what; }

std::vector<FormatCase> format_cases() {
  return {
      {"kprobe_entry", kprobe("probe", "vfs_read", "vfs_read", 0, {{"count", "%dx", "u64"}}),
       "p:probe/vfs_read vfs_read+0 count=%dx:u64"},
      {"kprobe_offset", kprobe("probe", "vfs_read_L3", "vfs_read", 28, {{"file", "%di", "x64"}}),
       "p:probe/vfs_read_L3 vfs_read+28 file=%di:x64"},
      {"kprobe_module", kprobe("probe", "ext4_sync_file", "ext4:ext4_sync_file", 0),
       "p:probe/ext4_sync_file ext4:ext4_sync_file+0"},
      {"kprobe_no_args", kprobe("probe", "do_sys_open", "do_sys_open", 0), "p:probe/do_sys_open do_sys_open+0"},
      {"kretprobe", returning(kprobe("probe", "vfs_read__return", "vfs_read", 0, {{"arg1", "$retval", "s64"}})),
       "r:probe/vfs_read__return vfs_read+0 arg1=$retval:s64"},
      {"kretprobe_maxactive",
       returning(kprobe("probe", "vfs_read__return", "vfs_read", 0, {{"arg1", "$retval", "s64"}}), 16),
       "r16:probe/vfs_read__return vfs_read+0 arg1=$retval:s64"},
      {"kprobe_several_typed_args",
       kprobe("probe", "do_sys_open", "do_sys_open", 0,
              {{"dfd", "%di", "s32"},
               {"filename", "+0(%si)", "string"},
               {"flags", "%dx", "x32"},
               {"mode", "%cx", "u16"},
               {"comm", "$comm", "string"}}),
       "p:probe/do_sys_open do_sys_open+0 dfd=%di:s32 filename=+0(%si):string flags=%dx:x32 mode=%cx:u16 "
       "comm=$comm:string"},
      {"uprobe", uprobe("probe_prog", "walk_L5", "/usr/bin/prog", 0x1169, {{"name", "+0(+0(-24(%bp)))", "string"}}),
       "p:probe_prog/walk_L5 /usr/bin/prog:0x1169 name=+0(+0(-24(%bp))):string"},
      {"uprobe_no_args", uprobe("probe_libc", "malloc", "/usr/lib64/libc.so.6", 0xa5060),
       "p:probe_libc/malloc /usr/lib64/libc.so.6:0xa5060"},
      {"uprobe_global_and_bitfield",
       uprobe("probe_prog", "walk", "/usr/bin/prog", 0x1139,
              {{"counter", "@+0x4028", "u32"}, {"flag", "+8(%di)", "b3@2/32"}, {"c", "\\7", "u8"}}),
       "p:probe_prog/walk /usr/bin/prog:0x1139 counter=@+0x4028:u32 flag=+8(%di):b3@2/32 c=\\7:u8"},
      {"uretprobe", returning(uprobe("probe_prog", "walk__return", "/usr/bin/prog", 0x1139, {{"arg1", "$retval", "s32"}})),
       "r:probe_prog/walk__return /usr/bin/prog:0x1139 arg1=$retval:s32"},
  };
}

class Format : public testing::TestWithParam<FormatCase> {};

TEST_P(Format, WritesTheKernelSyntax) { EXPECT_EQ(format_definition(GetParam().definition), GetParam().line); }

TEST_P(Format, ReadsBackWhatItWrote) {
  const FormatCase &c = GetParam();
  auto parsed = parse_definition(format_definition(c.definition));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, c.definition) << format_definition(*parsed);
}

INSTANTIATE_TEST_SUITE_P(Definition, Format, testing::ValuesIn(format_cases()),
                         [](const testing::TestParamInfo<FormatCase> &info) { return std::string(info.param.what); });

TEST(FormatFetchArgs, SpaceSeparatedNameFetchType) {
  EXPECT_EQ(format_fetch_args({}), "");
  EXPECT_EQ(format_fetch_args({{"count", "%dx", "u64"}}), "count=%dx:u64");
  EXPECT_EQ(format_fetch_args({{"p", "+8(%di)", ""}, {"s", "+0(%si)", "string"}}), "p=+8(%di) s=+0(%si):string");
  EXPECT_EQ(format_fetch_args({{"", "%ax", ""}}), "%ax");  // the kernel names it arg1
}

// Lines as the kernel lists them in uprobe_events / kprobe_events.
TEST(ParseListing, UprobeWithZeroPaddedOffset) {
  auto d = parse_definition("p:probe_prog/walk_L5 /usr/bin/prog:0x0000000000001169 name=+0(+0(-24(%bp))):string");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, uprobe("probe_prog", "walk_L5", "/usr/bin/prog", 0x1169, {{"name", "+0(+0(-24(%bp)))", "string"}}));
  // Written back in our (unpadded) form, which the kernel takes as the same offset.
  EXPECT_EQ(format_definition(*d), "p:probe_prog/walk_L5 /usr/bin/prog:0x1169 name=+0(+0(-24(%bp))):string");
}

TEST(ParseListing, UretprobeWithZeroPaddedOffset) {
  // As read from uprobe_events: with its newline.
  auto d = parse_definition("r:probe_prog/walk__return /usr/bin/prog:0x0000000000001139 arg1=$retval:s32\n");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, returning(uprobe("probe_prog", "walk__return", "/usr/bin/prog", 0x1139, {{"arg1", "$retval", "s32"}})));
}

TEST(ParseListing, UprobeWithRefCounterOffset) {
  // PATH:OFFSET(REF_CTR_OFFSET), listed as "(0x%lx)" after the offset (SDT semaphores).
  auto d = parse_definition("p:sdt_prog/start /usr/bin/prog:0x0000000000001169(0x4010)");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->kind, Kind::Uprobe);
  EXPECT_EQ(d->path, "/usr/bin/prog");
  EXPECT_EQ(d->offset, 0x1169u);
  EXPECT_EQ(d->ref_ctr_offset, 0x4010u);
  // Written back as perf writes it (perf 6.1 -D on python3.11's markers).
  EXPECT_EQ(format_definition(*d), "p:sdt_prog/start /usr/bin/prog:0x1169(0x4010)");
}

TEST(ParseListing, UprobeReturnWrittenAsPercentReturn) {
  auto d = parse_definition("p:probe_prog/walk__return /usr/bin/prog:0x1139%return arg1=$retval:s32");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->path, "/usr/bin/prog");
  EXPECT_EQ(d->offset, 0x1139u);
  ASSERT_EQ(d->args.size(), 1u);
  EXPECT_EQ(d->args[0], (FetchArg{"arg1", "$retval", "s32"}));
}

TEST(ParseListing, KprobeWithOffsetZero) {
  auto d = parse_definition("p:probe/vfs_read vfs_read+0 count=%dx:u64");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, kprobe("probe", "vfs_read", "vfs_read", 0, {{"count", "%dx", "u64"}}));
}

TEST(ParseListing, KprobeWithoutOffset) {
  // Newer kernels print a zero offset as the bare symbol.
  auto d = parse_definition("p:probe/vfs_read vfs_read count=%dx:u64");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, kprobe("probe", "vfs_read", "vfs_read", 0, {{"count", "%dx", "u64"}}));
}

TEST(ParseListing, KprobeWithOffset) {
  auto d = parse_definition("p:probe/vfs_read_L3 vfs_read+28 file=%di:x64");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, kprobe("probe", "vfs_read_L3", "vfs_read", 28, {{"file", "%di", "x64"}}));
}

TEST(ParseListing, KretprobeWithMaxactive) {
  auto d = parse_definition("r16:probe/vfs_read__return vfs_read+0 arg1=$retval:s64");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, returning(kprobe("probe", "vfs_read__return", "vfs_read", 0, {{"arg1", "$retval", "s64"}}), 16));
}

TEST(ParseListing, KprobeOnAModuleSymbol) {
  auto d = parse_definition("p:probe/ext4_sync_file ext4:ext4_sync_file+4");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(*d, kprobe("probe", "ext4_sync_file", "ext4:ext4_sync_file", 4));
}

TEST(ParseListing, KprobeOnAnAddress) {
  auto d = parse_definition("p:kprobes/p_0 0xffffffff81234560");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->kind, Kind::Kprobe);
  EXPECT_EQ(d->symbol, "");
  EXPECT_EQ(d->offset, 0xffffffff81234560u);
  EXPECT_EQ(format_definition(*d), "p:kprobes/p_0 0xffffffff81234560");
}

TEST(ParseListing, TypeIsAfterTheLastColonOutsideParentheses) {
  auto d = parse_definition("p:probe_prog/walk /usr/bin/prog:0x1139 flag=+8(%di):b3@2/32 arr=+0(%si):u8[4] raw=%ax");
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_EQ(d->args.size(), 3u);
  EXPECT_EQ(d->args[0], (FetchArg{"flag", "+8(%di)", "b3@2/32"}));
  EXPECT_EQ(d->args[1], (FetchArg{"arr", "+0(%si)", "u8[4]"}));
  EXPECT_EQ(d->args[2], (FetchArg{"raw", "%ax", ""}));
}

TEST(ParseListing, RefusesWhatIsNotADefinition) {
  EXPECT_FALSE(parse_definition(""));
  EXPECT_FALSE(parse_definition("p:probe/vfs_read"));            // no place
  EXPECT_FALSE(parse_definition("-:probe/vfs_read vfs_read"));   // a removal, not a probe
  EXPECT_FALSE(parse_definition("x:probe/vfs_read vfs_read+0"));
  auto no_group = parse_definition("p:vfs_read vfs_read+0");
  ASSERT_FALSE(no_group);
  EXPECT_NE(no_group.error().message.find("group"), std::string::npos) << no_group.error().message;
}

// Found by fuzz_definition (tests/fuzz/regressions/fuzz_definition): such
// lines wrote lines that read back as other definitions. The kernel lists none.
TEST(ParseListing, RefusesControlCharactersAndEmptyNames) {
  using namespace std::string_literals;
  EXPECT_FALSE(parse_definition("p:probe/ev\0il /bin/true:0x10"s));    // a NUL in the event name
  EXPECT_FALSE(parse_definition("p:pro\x01" "be/evil /bin/true:0x10"));   // a control byte in the group
  EXPECT_FALSE(parse_definition("p:probe/ev\x7fil vfs_read+0"));
  EXPECT_FALSE(parse_definition("p:/evil vfs_read+0"));                 // an empty group
  EXPECT_FALSE(parse_definition("p:probe/ vfs_read+0"));                // an empty event
  auto nothing = parse_definition("p:probe/ev vfs_read+0 %di :u8");     // ":u8" fetches nothing
  ASSERT_FALSE(nothing);
  EXPECT_NE(nothing.error().message.find("fetches nothing"), std::string::npos) << nothing.error().message;
  EXPECT_TRUE(parse_definition("p:probe/ev vfs_read+0 %di x=+0(%si):u8"));
}

}  // namespace
}  // namespace kpp
