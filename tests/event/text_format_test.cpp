// Printer tests on hand-built events: exact text, short and JSON forms,
// quoting and escaping.
#include <gtest/gtest.h>

#include "event/json_format.h"
#include "event/text_format.h"
#include "tests/common/test_events.h"

namespace kpp {
namespace {

Field num(const char *name, FieldKind kind, int64_t v) {
  return test_events::number_field(name, kind, static_cast<uint64_t>(v));
}
Field str(const char *name, std::string s) {
  Field f;
  f.name = name;
  f.value.kind = FieldKind::String;
  f.value.text = std::move(s);
  return f;
}

Event walk_event() {
  Event e = test_events::test_event("probe_prog", "walk_L5", 4242, 1234567890123ull, 1);  // 1234.567890123 s
  e.comm = "prog";
  e.fields = {str("name", "three"), num("i", FieldKind::Signed, 1), num("s", FieldKind::Unsigned, 3)};
  return e;
}

TEST(Printers, TextLineHasTimeCpuCommPidEventAndFields) {
  Event e = walk_event();
  e.fields.push_back(num("p", FieldKind::Hex, 0x7ffc10));
  e.fields.push_back(num("neg", FieldKind::Signed, -42));
  EXPECT_EQ(format_event_text(e),
            "  1234.567890123 [001] prog-4242 probe_prog:walk_L5 name=\"three\" i=1 s=3 p=0x7ffc10 neg=-42");
}

// A thread of a -p target in another pid namespace: the host's pid, then its pid there.
TEST(Printers, TextLineOfAContainersThreadHasBothPids) {
  Event e = walk_event();
  e.pid = 41234;
  e.ns_pid = 7;
  e.fields.clear();
  EXPECT_EQ(format_event_text(e), "  1234.567890123 [001] prog-41234(container:7) probe_prog:walk_L5");
}

TEST(Printers, ShortFormIsTheDemosLine) {
  EXPECT_EQ(format_event_short(walk_event()), "walk_L5: name=\"three\" i=1 s=3");
}

TEST(Printers, TextQuotesAndEscapesStrings) {
  Event e = walk_event();
  e.fields = {str("s", "a\"b\\c\nd\x01")};
  EXPECT_EQ(format_event_short(e), "walk_L5: s=\"a\\\"b\\\\c\\nd\\x01\"");
}

TEST(Printers, JsonHasTheDocumentedSchemaAndTypedFields) {
  Event e = walk_event();
  e.fields.push_back(num("p", FieldKind::Hex, 0x10));
  e.fields.push_back(num("neg", FieldKind::Signed, -42));
  Field arr;
  arr.name = "a";
  arr.value.kind = FieldKind::Array;
  arr.value.items = {1, static_cast<uint64_t>(-2)};
  arr.value.items_signed = true;
  e.fields.push_back(arr);
  EXPECT_EQ(format_event_json(e),
            "{\"time_ns\":1234567890123,\"time\":\"1234.567890123\",\"cpu\":1,\"comm\":\"prog\",\"pid\":4242,"
            "\"event\":\"probe_prog:walk_L5\",\"fields\":{\"name\":\"three\",\"i\":1,\"s\":3,\"p\":16,\"neg\":-42,"
            "\"a\":[1,-2]}}");
}

TEST(Printers, JsonEscapesControlBytesAndInvalidUtf8ButKeepsUtf8) {
  Event e = walk_event();
  e.comm = "a\"b";
  e.fields = {str("s", "\t\x01\xff caf\xc3\xa9")};
  EXPECT_EQ(format_event_json(e),
            "{\"time_ns\":1234567890123,\"time\":\"1234.567890123\",\"cpu\":1,\"comm\":\"a\\\"b\",\"pid\":4242,"
            "\"event\":\"probe_prog:walk_L5\",\"fields\":{\"s\":\"\\t\\u0001\\u00ff caf\xc3\xa9\"}}");
}

TEST(Printers, UnsignedAboveInt64StaysExact) {
  Event e = walk_event();
  e.fields = {num("u", FieldKind::Unsigned, -1)};
  EXPECT_NE(format_event_json(e).find("\"u\":18446744073709551615"), std::string::npos);
  EXPECT_EQ(format_event_short(e), "walk_L5: u=18446744073709551615");
}

TEST(Printers, FloatsAsGdbPrintsThemAndInJsonAsNumbers) {
  auto flt = [](const char *name, uint64_t bits, unsigned bytes) {
    Field f;
    f.name = name;
    f.value.kind = FieldKind::Float;
    f.value.u = bits;
    f.value.float_bytes = bytes;
    return f;
  };
  Event e = walk_event();
  // 1.5, 0.1 (a double: gdb's %.17g), 0.1f (gdb's %.9g), -inf, a NaN.
  e.fields = {flt("a", 0x3ff8000000000000, 8), flt("b", 0x3fb999999999999a, 8), flt("c", 0x3dcccccd, 4),
              flt("d", 0xfff0000000000000, 8), flt("e", 0x7fc00000, 4)};
  EXPECT_EQ(format_event_short(e), "walk_L5: a=1.5 b=0.10000000000000001 c=0.100000001 d=-inf e=nan");
  std::string json = format_event_json(e);
  EXPECT_NE(json.find("\"fields\":{\"a\":1.5,\"b\":0.10000000000000001,\"c\":0.100000001,\"d\":\"-inf\",\"e\":\"nan\"}"),
            std::string::npos) << json;
}

TEST(Printers, BoolsAndCharsAsGdbPrintsThem) {
  Event e = walk_event();
  e.fields = {num("on", FieldKind::Bool, 1), num("off", FieldKind::Bool, 0), num("odd", FieldKind::Bool, 2),
              num("tag", FieldKind::Char, 'x'), num("nl", FieldKind::Char, '\n'), num("q", FieldKind::Char, '\''),
              num("neg", FieldKind::Char, -56)};
  EXPECT_EQ(format_event_short(e), "walk_L5: on=true off=false odd=2 tag=120 'x' nl=10 '\\n' q=39 '\\'' neg=-56 '\\310'");
  // gdb's escapes: \a \b \f \v by letter, ESC in octal (p (char)7: 7 '\a').
  Event bell = walk_event();
  bell.fields = {num("a", FieldKind::Char, 7), num("b", FieldKind::Char, 8), num("f", FieldKind::Char, 12),
                 num("v", FieldKind::Char, 11), num("esc", FieldKind::Char, 27)};
  EXPECT_EQ(format_event_short(bell), "walk_L5: a=7 '\\a' b=8 '\\b' f=12 '\\f' v=11 '\\v' esc=27 '\\033'");
  std::string json = format_event_json(e);
  EXPECT_NE(json.find("\"fields\":{\"on\":true,\"off\":false,\"odd\":2,\"tag\":120,\"nl\":10,\"q\":39,\"neg\":-56}"),
            std::string::npos) << json;
}

TEST(Printers, X87LongDoublesWithGdbsDigits) {
  // 0.1L and 1.0L/3 as x87 80-bit values (little-endian: 8 bytes of
  // mantissa, then sign and exponent); gdb 13 prints 0.100000000000000000001
  // and 0.333333333333333333342 (%.21Lg).
  Event e = walk_event();
  Field tenth = num("t", FieldKind::Float, 0);
  tenth.value.float_bytes = 10;
  tenth.value.text = std::string("\xcd\xcc\xcc\xcc\xcc\xcc\xcc\xcc\xfb\x3f", 10);
  Field third = num("h", FieldKind::Float, 0);
  third.value.float_bytes = 10;
  third.value.text = std::string("\xab\xaa\xaa\xaa\xaa\xaa\xaa\xaa\xfd\x3f", 10);
  Field torn = num("z", FieldKind::Float, 0);
  torn.value.float_bytes = 10;  // no bytes: said so, never a number
  e.fields = {tenth, third, torn};
  EXPECT_EQ(format_event_short(e),
            "walk_L5: t=0.100000000000000000001 h=0.333333333333333333342 z=<an x87 long double without its bytes>");
  EXPECT_NE(format_event_json(e).find("\"t\":0.100000000000000000001,\"h\":0.333333333333333333342,"), std::string::npos)
      << format_event_json(e);
}

TEST(Printers, EnumsByTheNameGdbShowsTheNumberInJson) {
  Event e = walk_event();
  Field named = num("c", FieldKind::Enum, 5);
  named.value.text = "GREEN";
  Field flags = num("p", FieldKind::Enum, 3);
  flags.value.text = "(P_READ | P_WRITE)";
  Field unknown = num("l", FieldKind::Enum, -5);  // no enumerators known: the number
  unknown.value.items_signed = true;               // fetched s32 (the decoder says so)
  // An unsigned 8-byte enum's bit 63 (1ULL << 63, gdb 9223372036854775808) was shown -9223372036854775808.
  Field big = test_events::number_field("b", FieldKind::Enum, uint64_t{1} << 63);
  e.fields = {named, flags, unknown, big};
  EXPECT_EQ(format_event_short(e), "walk_L5: c=GREEN p=(P_READ | P_WRITE) l=-5 b=9223372036854775808");
  std::string json = format_event_json(e);
  EXPECT_NE(json.find("\"fields\":{\"c\":5,\"p\":3,\"l\":-5,\"b\":9223372036854775808},\"names\":{\"c\":\"GREEN\",\"p\":\"(P_READ | P_WRITE)\"}"),
            std::string::npos) << json;
}

TEST(Printers, OptionalValuesAsTheirLanguagesDebuggerShowsThemAndNullInJson) {
  Event e = walk_event();
  Field some = num("count", FieldKind::Signed, 5);
  some.value.optional = 2;  // Rust's Option
  Field none = num("first", FieldKind::Hex, 0);
  none.value.optional = 2;
  none.value.absent = true;
  Field engaged = str("label", "tag");
  engaged.value.optional = 1;  // std::optional
  Field empty = num("rate", FieldKind::Float, 0);
  empty.value.optional = 1;
  empty.value.absent = true;
  e.fields = {some, none, engaged, empty};
  EXPECT_EQ(format_event_short(e),
            "walk_L5: count=Some(5) first=None label={[contained value] = \"tag\"} rate=[no contained value]");
  std::string json = format_event_json(e);
  EXPECT_NE(json.find("\"fields\":{\"count\":5,\"first\":null,\"label\":\"tag\",\"rate\":null}"), std::string::npos)
      << json;
}

TEST(Printers, ValuesShownInPartSayTheirWholeLength) {
  Event e = walk_event();
  Field text = str("name", "abc");
  text.value.cut_from = 100;
  Field items;
  items.name = "ids";
  items.value.kind = FieldKind::Array;
  items.value.items = {1, 2};
  items.value.cut_from = 20;
  Field prices;
  prices.name = "prices";
  prices.value.kind = FieldKind::Array;
  prices.value.items = {0x3ff4000000000000, 0x4004000000000000};
  prices.value.float_bytes = 8;
  e.fields = {text, items, prices};
  EXPECT_EQ(format_event_short(e), "walk_L5: name=\"abc\"...(len=100) ids={1,2}...(len=20) prices={1.25,2.5}");
  std::string json = format_event_json(e);
  EXPECT_NE(json.find("\"fields\":{\"name\":\"abc\",\"ids\":[1,2],\"prices\":[1.25,2.5]},\"cut\":{\"name\":100,\"ids\":20}"),
            std::string::npos) << json;
}

}  // namespace
}  // namespace kpp
