// Printer tests on hand-built events: exact text, short and JSON forms,
// quoting and escaping.
#include <gtest/gtest.h>

#include "src/output/json_format.h"
#include "src/output/text_format.h"

namespace kpp {
namespace {

Field num(const char *name, FieldKind kind, int64_t v) {
  Field f;
  f.name = name;
  f.value.kind = kind;
  f.value.i = v;
  f.value.u = static_cast<uint64_t>(v);
  return f;
}
Field str(const char *name, std::string s) {
  Field f;
  f.name = name;
  f.value.kind = FieldKind::String;
  f.value.text = std::move(s);
  return f;
}

Event walk_event() {
  Event e;
  e.time_ns = 1234567890123ull;  // 1234.567890123 s
  e.cpu = 1;
  e.pid = 4242;
  e.comm = "prog";
  e.system = "probe_prog";
  e.name = "walk_L5";
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

}  // namespace
}  // namespace kpp
