// Kernel-free decoder tests: a checked-in format file (golden/*.format, the
// first captured from this kernel's uprobe_events for the fixture probe) plus
// record bytes built field by field, in both byte orders, as libtraceevent's
// utest does.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

#include <traceevent/event-parse.h>

#include "event/json_format.h"
#include "event/text_format.h"
#include "src/stream/comm_cache.h"
#include "src/stream/event_decoder.h"
#include "src/stream/event_enums.h"

namespace kpp {
namespace {

std::string golden(const std::string &name) {
  std::ifstream in(std::string(KPP_TEST_GOLDEN_DIR) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Record bytes in a chosen byte order.
struct Bytes {
  bool big;
  std::vector<uint8_t> b;
  void put(uint64_t v, int size) {
    for (int k = 0; k < size; ++k) {
      int shift = big ? 8 * (size - 1 - k) : 8 * k;
      b.push_back(static_cast<uint8_t>(v >> shift));
    }
  }
  void put_str(const char *s, size_t n) { b.insert(b.end(), s, s + n); }
};

class DecoderTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    tep_ = tep_alloc();
    tep_set_file_bigendian(tep_, GetParam() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(tep_, TEP_LITTLE_ENDIAN);
    tep_set_long_size(tep_, 8);
    for (const char *f : {"uprobe_hit.format", "synthetic_arrays.format", "counted_values.format", "enum_values.format",
                          "optional_values.format", "char_arrays.format"}) {
      std::string text = golden(f);
      ASSERT_FALSE(text.empty()) << f;
      ASSERT_EQ(tep_parse_event(tep_, text.c_str(), text.size(), "kpptest"), 0) << f;
    }
    comms_.set(4242, "walker");
  }
  void TearDown() override { tep_free(tep_); }
  tep_handle *tep_ = nullptr;
  CommCache comms_;
};

TEST_P(DecoderTest, UprobeRecordDecodesToTypedFields) {
  Bytes r{GetParam(), {}};
  r.put(2326, 2);                // common_type: ID in uprobe_hit.format
  r.put(0, 1);                   // common_flags
  r.put(0, 1);                   // common_preempt_count
  r.put(4242, 4);                // common_pid
  r.put(0x5555555552a0ull, 8);   // __probe_ip
  r.put(static_cast<uint64_t>(-2), 8);  // i:s64 = -2
  r.put(9, 8);                   // sq:u64 = 9
  r.put((6u << 16) | 44u, 4);    // name: __data_loc, 6 bytes at offset 44
  r.put(0xdead0003ull, 8);       // tag:x64
  r.put_str("three", 6);         // offset 44: the string and its NUL
  ASSERT_EQ(r.b.size(), 50u);

  EventDecoder dec(tep_, &comms_);
  Event e;
  ASSERT_TRUE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 12000000345ull, 1, e));
  EXPECT_EQ(e.system, "kpptest");
  EXPECT_EQ(e.name, "hit");
  EXPECT_EQ(e.pid, 4242);
  EXPECT_EQ(e.comm, "walker");
  EXPECT_EQ(e.probe_ip, 0x5555555552a0ull);
  ASSERT_EQ(e.fields.size(), 4u);  // __probe_ip is not an argument
  EXPECT_EQ(e.fields[0].name, "i");
  EXPECT_EQ(e.fields[0].value.kind, FieldKind::Signed);
  EXPECT_EQ(e.fields[0].value.i, -2);
  EXPECT_EQ(e.fields[1].value.kind, FieldKind::Unsigned);
  EXPECT_EQ(e.fields[1].value.u, 9u);
  EXPECT_EQ(e.fields[2].value.kind, FieldKind::String);
  EXPECT_EQ(e.fields[2].value.text, "three");
  EXPECT_EQ(e.fields[3].value.kind, FieldKind::Hex);  // print fmt shows it 0x%Lx
  EXPECT_EQ(e.fields[3].value.u, 0xdead0003u);
  EXPECT_EQ(format_event_text(e), "    12.000000345 [001] walker-4242 kpptest:hit i=-2 sq=9 name=\"three\" tag=0xdead0003");
  EXPECT_EQ(dec.event_key(r.b.data(), static_cast<int>(r.b.size())), "kpptest:hit");
}

TEST_P(DecoderTest, ArraysAndFixedStringsAndSmallSignedValues) {
  Bytes r{GetParam(), {}};
  r.put(77, 2);                  // common_type: ID in synthetic_arrays.format
  r.put(0, 1);
  r.put(0, 1);
  r.put(7, 4);                   // common_pid 7 (unknown to the comm cache)
  r.put_str("kworker/0:1\0\0\0\0\0", 16);  // comm[16]
  r.put(static_cast<uint32_t>(-1), 4);    // delta[0] = -1
  r.put(2, 4);                            // delta[1] = 2
  r.put(static_cast<uint32_t>(-300), 4);  // delta[2] = -300
  r.put(0x81, 4);                // flags, shown %x
  r.put((6u << 16) | 48u, 4);    // vals: __data_loc, 6 bytes (3 x u16) at 48
  r.put(static_cast<uint16_t>(-5), 2);    // small = -5
  r.put(0, 2);                   // padding to 48
  r.put(1, 2);                   // vals[0]
  r.put(65535, 2);               // vals[1]
  r.put(3, 2);                   // vals[2]
  ASSERT_EQ(r.b.size(), 54u);

  CommCache no_proc;  // pid 7 may exist on the host; use a cache we seed
  no_proc.set(7, "seven");
  EventDecoder dec(tep_, &no_proc);
  Event e;
  ASSERT_TRUE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 5, 0, e));
  ASSERT_EQ(e.fields.size(), 5u);
  EXPECT_EQ(e.fields[0].value.kind, FieldKind::String);
  EXPECT_EQ(e.fields[0].value.text, "kworker/0:1");
  EXPECT_EQ(e.fields[1].value.kind, FieldKind::Array);
  ASSERT_EQ(e.fields[1].value.items.size(), 3u);
  EXPECT_EQ(static_cast<int64_t>(e.fields[1].value.items[0]), -1);
  EXPECT_EQ(static_cast<int64_t>(e.fields[1].value.items[2]), -300);
  EXPECT_EQ(e.fields[2].value.kind, FieldKind::Hex);
  EXPECT_EQ(e.fields[2].value.u, 0x81u);
  EXPECT_EQ(e.fields[3].value.kind, FieldKind::Array);
  EXPECT_EQ(e.fields[3].value.items, (std::vector<uint64_t>{1, 65535, 3}));
  EXPECT_EQ(e.fields[4].value.kind, FieldKind::Signed);
  EXPECT_EQ(e.fields[4].value.i, -5);
  EXPECT_EQ(format_event_short(e), "arrays: comm=\"kworker/0:1\" delta={-1,2,-300} flags=0x81 vals={1,65535,3} small=-5");
}

TEST_P(DecoderTest, TruncatedAndUnknownRecordsAreRejectedNotMisread) {
  EventDecoder dec(tep_, &comms_);
  Event e;
  Bytes r{GetParam(), {}};
  r.put(9999, 2);  // no such event id
  r.put(0, 2);
  r.put(1, 4);
  EXPECT_FALSE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 0, 0, e));
  EXPECT_EQ(e.system, "unknown");
  uint8_t tiny[2] = {0, 0};
  EXPECT_FALSE(dec.decode(tiny, 2, 0, 0, e));

  // A uprobe record cut after `i`: the fields past the end stay zero/empty.
  Bytes cut{GetParam(), {}};
  cut.put(2326, 2);
  cut.put(0, 2);
  cut.put(4242, 4);
  cut.put(0, 8);
  cut.put(5, 8);
  ASSERT_TRUE(dec.decode(cut.b.data(), static_cast<int>(cut.b.size()), 0, 0, e));
  EXPECT_EQ(e.field("i")->value.i, 5);
  EXPECT_EQ(e.field("name")->value.text, "");
}

// counted_values.format: the kernel's format of a uprobe event reading a
// Rust String (a 64-byte window plus its length), a Vec<i32> (8 elements
// plus its length) and an f64 (its bits), as kprobe-probe defines them.
std::vector<uint8_t> counted_record(bool big, const std::string &window, uint64_t text_length, uint64_t items_length,
                                    double unit) {
  Bytes r{big, {}};
  r.put(88, 2);
  r.put(0, 2);
  r.put(4242, 4);
  r.put(0x401000, 8);                                   // __probe_ip
  std::string bytes = window;
  bytes.resize(64, 'Z');                                // what lies past the string: never shown
  r.put_str(bytes.data(), 64);                          // name[]
  r.put(text_length, 8);                                // name__k1r1y: the length
  for (int i = 1; i <= 8; ++i) r.put(static_cast<uint32_t>(i == 2 ? -2 : i), 4);  // counts[]
  r.put(items_length, 8);                               // counts__k1r1z
  uint64_t bits = 0;
  std::memcpy(&bits, &unit, 8);
  r.put(bits, 8);                                       // unit__kg8
  return r.b;
}

TEST_P(DecoderTest, CountedTextIsCutAtItsLengthSequencesKeepTheirLengthFloatsAreNumbers) {
  EventDecoder dec(tep_, &comms_);
  Event e;
  auto r = counted_record(GetParam(), std::string("widget\0gadget", 13), 6, 12, 1.5);
  ASSERT_TRUE(dec.decode(r.data(), static_cast<int>(r.size()), 0, 0, e));
  ASSERT_EQ(e.fields.size(), 3u);  // the length terms are not shown
  EXPECT_EQ(e.fields[0].value.kind, FieldKind::String);
  EXPECT_EQ(e.fields[0].value.text, "widget");
  EXPECT_EQ(e.fields[1].value.kind, FieldKind::Array);
  EXPECT_EQ(e.fields[1].value.cut_from, 12u);
  EXPECT_EQ(e.fields[2].value.kind, FieldKind::Float);
  EXPECT_EQ(format_event_short(e), "counted: name=\"widget\" counts={1,-2,3,4,5,6,7,8}...(len=12) unit=1.5");

  // A NUL inside the length is part of the text; a length past the
  // window shows the window and the whole length; a short sequence is cut.
  r = counted_record(GetParam(), std::string("ab\0cd", 5), 5, 3, -0.1);
  ASSERT_TRUE(dec.decode(r.data(), static_cast<int>(r.size()), 0, 0, e));
  EXPECT_EQ(e.fields[0].value.text, std::string("ab\0cd", 5));
  EXPECT_EQ(format_event_short(e), "counted: name=\"ab\\x00cd\" counts={1,-2,3} unit=-0.10000000000000001");
  r = counted_record(GetParam(), "0123456789", 100, 0, 2.5);
  ASSERT_TRUE(dec.decode(r.data(), static_cast<int>(r.size()), 0, 0, e));
  EXPECT_EQ(e.fields[0].value.text.size(), 64u);
  EXPECT_EQ(e.fields[0].value.cut_from, 100u);
  EXPECT_EQ(e.fields[1].value.items.size(), 0u);
  EXPECT_EQ(format_event_json(e).find("\"cut\":{\"name\":100}") != std::string::npos, true) << format_event_json(e);
}

// char_arrays.format: a char[4] and an unsigned char[6] fetched as their own
// bytes (u8[N], l): text as gdb shows it, every byte up to the NULs that end
// it, a NUL inside shown; the kernel's string fetch read on past the array
// (char[4] "abcd" shown "abcdefg") or stopped at the first NUL ("").
TEST_P(DecoderTest, CharArraysAreTheTextOfTheirOwnBytes) {
  EventDecoder dec(tep_, &comms_);
  Event e;
  for (auto [name, raw, shown] :
       {std::tuple{std::string("abcd"), std::string("\0\1A\xff\0\0", 6), "labelled: name=\"abcd\" raw=\"\\x00\\x01A\xff\""},
        std::tuple{std::string("ef\0\0", 4), std::string(6, '\0'), "labelled: name=\"ef\" raw=\"\""},
        std::tuple{std::string("a\0b\0", 4), std::string("xyzuvw"), "labelled: name=\"a\\x00b\" raw=\"xyzuvw\""}}) {
    Bytes r{GetParam(), {}};
    r.put(91, 2);
    r.put(0, 2);
    r.put(4242, 4);
    r.put(0x401000, 8);
    r.put_str(name.data(), 4);
    r.put_str(raw.data(), 6);
    ASSERT_TRUE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 0, 0, e));
    ASSERT_EQ(e.fields.size(), 2u);
    EXPECT_EQ(e.fields[0].name, "name");
    EXPECT_EQ(e.fields[0].value.kind, FieldKind::String);
    EXPECT_EQ(e.fields[0].value.cut_from, 0u);
    EXPECT_EQ(format_event_short(e), shown);
  }
}

// optional_values.format: Rust's Option<i32>, its payload and (a term)
// its discriminant, Some when 1: Some(5), then None whatever the payload holds.
TEST_P(DecoderTest, OptionalValuesAreAbsentWhenTheirFlagSaysSo) {
  EventDecoder dec(tep_, &comms_);
  Event e;
  for (auto [payload, discr, shown, json] :
       {std::tuple{5u, 1u, "picked: count=Some(5)", "\"count\":5"},
        std::tuple{0x7fffu, 0u, "picked: count=None", "\"count\":null"}}) {
    Bytes r{GetParam(), {}};
    r.put(90, 2);
    r.put(0, 2);
    r.put(4242, 4);
    r.put(0x401000, 8);
    r.put(payload, 4);
    r.put(discr, 4);
    ASSERT_TRUE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 0, 0, e));
    ASSERT_EQ(e.fields.size(), 1u) << "the discriminant is a term, not shown";
    EXPECT_EQ(e.fields[0].value.optional, 2u);
    EXPECT_EQ(format_event_short(e), shown);
    EXPECT_NE(format_event_json(e).find(json), std::string::npos) << format_event_json(e);
  }
}

// enum_values.format: an enum fetched s32 whose enumerators are all
// positive (gdb reads it unsigned), and a one-byte flag enum.
TEST_P(DecoderTest, EnumsAreNumbersNamedByTheirEnumerators) {
  Bytes r{GetParam(), {}};
  r.put(89, 2);
  r.put(0, 2);
  r.put(4242, 4);
  r.put(0x401000, 8);
  r.put(static_cast<uint32_t>(-1), 4);  // c__kqd2: s32 -1
  r.put(3, 1);                          // p__kq30: u8 3
  EventDecoder dec(tep_, &comms_);
  Event e;
  ASSERT_TRUE(dec.decode(r.b.data(), static_cast<int>(r.b.size()), 0, 0, e));
  ASSERT_EQ(e.fields.size(), 2u);
  EXPECT_EQ(e.fields[0].name, "c");
  EXPECT_EQ(e.fields[0].value.kind, FieldKind::Enum);
  EXPECT_EQ(format_event_short(e), "painted: c=-1 p=3") << "no enumerators known: the numbers as fetched";
  EventEnums enums;
  enums.add("kpptest:painted", "c", Enumeration{{{0, "RED"}, {5, "GREEN"}}, 4, false, false});
  enums.add("kpptest:painted", "p", Enumeration{{{1, "shop::Size::Small"}, {2, "shop::Size::Large"}}, 1, false, true});
  enums.name(e);
  EXPECT_EQ(format_event_short(e), "painted: c=4294967295 p=(shop::Size::Small | shop::Size::Large)");
  EXPECT_NE(format_event_json(e).find("\"fields\":{\"c\":4294967295,\"p\":3},\"names\":{\"c\":\"4294967295\","
                                      "\"p\":\"(shop::Size::Small | shop::Size::Large)\"}"),
            std::string::npos)
      << format_event_json(e);
}

INSTANTIATE_TEST_SUITE_P(ByteOrder, DecoderTest, ::testing::Values(false, true),
                         [](const auto &info) { return info.param ? "BigEndian" : "LittleEndian"; });

}  // namespace
}  // namespace kpp
