// dwarf/lang/go_pclntab.cpp: Go 1.18+'s function table, on tables made
// here byte by byte (the layout of Go's runtime/symtab.go pcHeader and
// _func), whole and damaged.
#include "dwarf/lang/go_pclntab.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kpp {
namespace {

using dwarf::GoFunctionTable;

// A table of functions (name, entry offset), the last ending at `end`.
class TableBytes {
 public:
  TableBytes(std::vector<std::pair<std::string, uint32_t>> fns, uint32_t end, uint32_t magic = 0xfffffff0,
             uint64_t text = 0x401000) {
    bytes.assign(72, '\0');
    put32(0, magic);
    bytes[6] = 1;  // pc quantum
    bytes[7] = 8;  // pointer size
    put64(8, fns.size());
    put64(8 + 2 * 8, text);
    uint64_t names_at = bytes.size();
    std::vector<uint32_t> name_offs;
    for (auto &[name, entry] : fns) {
      name_offs.push_back(static_cast<uint32_t>(bytes.size() - names_at));
      bytes += name + '\0';
    }
    put64(8 + 3 * 8, names_at);
    uint64_t funcs_at = bytes.size();
    put64(8 + 7 * 8, funcs_at);
    bytes.append((fns.size() * 2 + 1) * 4, '\0');
    for (size_t i = 0; i < fns.size(); ++i) {
      uint32_t record = static_cast<uint32_t>(bytes.size() - funcs_at);
      put32(funcs_at + i * 8, fns[i].second);
      put32(funcs_at + i * 8 + 4, record);
      bytes.append(8, '\0');
      put32(funcs_at + record, fns[i].second);
      put32(funcs_at + record + 4, name_offs[i]);
    }
    put32(funcs_at + fns.size() * 8, end);
    this->funcs_at = funcs_at;
  }
  void put32(uint64_t at, uint32_t v) { std::memcpy(&bytes[at], &v, 4); }
  void put64(uint64_t at, uint64_t v) { std::memcpy(&bytes[at], &v, 8); }
  std::string bytes;
  uint64_t funcs_at = 0;
};

TEST(GoFunctionTable, NamesAndEntries) {
  TableBytes t({{"main.Price", 0x100}, {"main.(*Shop).Restock", 0x140}, {"main.main.func1", 0x1a0}}, 0x200);
  auto table = GoFunctionTable::parse(t.bytes, 0x999000);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->functions().size(), 3u);
  EXPECT_EQ(table->functions()[1].name, "main.(*Shop).Restock");
  EXPECT_EQ(table->functions()[1].entry, 0x401140u);  // Go 1.18-1.19: from the header's text start
  EXPECT_EQ(table->functions()[1].end, 0x4011a0u);
  ASSERT_EQ(table->named("main.main.func1").size(), 1u);
  EXPECT_EQ(table->named("main.main.func1")[0].end, 0x401200u);
  ASSERT_TRUE(table->at(0x401150));
  EXPECT_EQ(table->at(0x401150)->name, "main.(*Shop).Restock");
  EXPECT_FALSE(table->at(0x401200));
  EXPECT_FALSE(table->at(0x4010ff));
}

TEST(GoFunctionTable, Go120CountsFromTheTextSection) {
  TableBytes t({{"main.main", 0x20}}, 0x40, 0xfffffff1, 0);
  auto table = GoFunctionTable::parse(t.bytes, 0x500000);
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->functions()[0].entry, 0x500020u);
}

TEST(GoFunctionTable, RefusesOtherVersions) {
  TableBytes t({{"main.main", 0x20}}, 0x40, 0xfffffffa);  // Go 1.16's
  auto table = GoFunctionTable::parse(t.bytes, 0);
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message.find("only Go 1.18 and later"), std::string::npos) << table.error().message;
}

TEST(GoFunctionTable, RefusesDamage) {
  TableBytes whole({{"main.a", 0x10}, {"main.b", 0x20}}, 0x30);
  auto refused = [](std::string bytes) {
    auto table = GoFunctionTable::parse(bytes, 0x401000);
    return !table && table.error().message.starts_with(".gopclntab is damaged");
  };
  EXPECT_TRUE(refused(whole.bytes.substr(0, 40)));  // cut in its header
  EXPECT_TRUE(refused(whole.bytes.substr(0, whole.funcs_at + 8)));  // cut in its function table
  TableBytes many = whole;
  many.put64(8, 1ull << 40);  // more functions than bytes
  EXPECT_TRUE(refused(many.bytes));
  TableBytes backwards = whole;
  backwards.put32(backwards.funcs_at + 8, 0x5);  // b before a
  EXPECT_TRUE(refused(backwards.bytes));
  TableBytes far_name = whole;
  far_name.put64(8 + 3 * 8, 1u << 30);  // the names past the end
  EXPECT_TRUE(refused(far_name.bytes));
  TableBytes far_record = whole;
  far_record.put32(far_record.funcs_at + 4, 0xfffffff0);  // a's record past the end
  EXPECT_TRUE(refused(far_record.bytes));
  std::string cut = whole.bytes;
  size_t names_at = 72;
  std::memset(&cut[names_at], 'x', whole.funcs_at - names_at);  // no NUL ends the names
  EXPECT_TRUE(refused(cut));
}

}  // namespace
}  // namespace kpp
