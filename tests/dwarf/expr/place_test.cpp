// Place algebra: where an object lives -> the value in it (value_of), a part
// of it (offset_into), what a pointer in it points to (pointee). Formatted
// with the x86_64 table so that each result reads as the fetch-arg a user sees.
#include <gtest/gtest.h>

#include <elf.h>

#include "arch/arch.h"
#include "dwarf/place.h"
#include "src/definition/fetch_format.h"
#include "tests/definition/fake_debug_info.h"

namespace kpp {
namespace {

using dwarf::FetchExpr;
using dwarf::Place;

constexpr int rdi = 5, rbp = 6;

std::string fetch(const FetchExpr &e, bool uprobe = true) {
  static testing_support::FakeDebugInfo debug;
  FetchFormatter f{*arch::for_machine(EM_X86_64), debug, uprobe, 0x1169, 0x1169};
  auto out = f.format(e);
  return out ? *out : "<error: " + out.error().message + ">";
}

TEST(ValueOf, Register) {
  FetchExpr v = dwarf::value_of(Place::in_register(rdi));
  EXPECT_EQ(v.root, FetchExpr::Root::Register);
  EXPECT_EQ(v.dwarf_reg, rdi);
  EXPECT_TRUE(v.loads.empty());
  EXPECT_EQ(fetch(v), "%di");
}

TEST(ValueOf, MemoryAtRegisterPlusOffset) {
  // A local at DW_OP_fbreg -24 with the frame base in rbp.
  Place local = Place::at(dwarf::value_of(Place::in_register(rbp)), -24);
  FetchExpr v = dwarf::value_of(local);
  EXPECT_EQ(v.root, FetchExpr::Root::Register);
  EXPECT_EQ(v.dwarf_reg, rbp);
  EXPECT_EQ(v.loads, (std::vector<int64_t>{-24}));
  EXPECT_EQ(fetch(v), "-24(%bp)");
}

TEST(ValueOf, Global) {
  FetchExpr v = dwarf::value_of(Place::at_address(0x4010));
  EXPECT_EQ(v.root, FetchExpr::Root::GlobalMemory);
  EXPECT_EQ(v.address, 0x4010u);
  EXPECT_TRUE(v.loads.empty());  // the one load is the root itself
  EXPECT_EQ(fetch(v), "@+0x4010");
}

TEST(ValueOf, Constant) {
  FetchExpr v = dwarf::value_of(Place::known(7));
  EXPECT_EQ(v.root, FetchExpr::Root::Constant);
  EXPECT_EQ(v.constant, 7);
  EXPECT_EQ(fetch(v), "\\7");
}

TEST(OffsetInto, MemoryMovesTheOffset) {
  Place local = Place::at(dwarf::value_of(Place::in_register(rbp)), -24);
  auto member = dwarf::offset_into(local, 8);
  ASSERT_TRUE(member);
  EXPECT_EQ(member->offset, -16);
  EXPECT_EQ(fetch(dwarf::value_of(*member)), "-16(%bp)");

  auto field = dwarf::offset_into(Place::at_address(0x4010), 8);
  ASSERT_TRUE(field);
  EXPECT_EQ(*field, Place::at_address(0x4018));
  EXPECT_EQ(fetch(dwarf::value_of(*field)), "@+0x4018");
}

TEST(OffsetInto, RegisterAndConstantOnlyAtZero) {
  // A struct held whole in a register or known as a constant has no memory to index.
  EXPECT_EQ(dwarf::offset_into(Place::in_register(rdi), 0), Place::in_register(rdi));
  EXPECT_FALSE(dwarf::offset_into(Place::in_register(rdi), 8)) << "past the register";
  auto second_int = dwarf::offset_into(Place::in_register(rdi), 4);
  ASSERT_TRUE(second_int) << "a small struct held in a register: its member's bits";
  EXPECT_EQ(dwarf::value_of(*second_int).bit_offset, 32u);
  EXPECT_FALSE(dwarf::pointee(*second_int)) << "nothing loads through some of a register's bits";
  EXPECT_EQ(dwarf::offset_into(Place::known(3), 0), Place::known(3));
  EXPECT_FALSE(dwarf::offset_into(Place::known(3), 4));
}

TEST(Pointee, OfAPointerInARegister) {
  // p in rdi; p->next at offset 8: +8(%di).
  Place next = *dwarf::pointee(Place::in_register(rdi), 8);
  EXPECT_EQ(next, Place::at(dwarf::value_of(Place::in_register(rdi)), 8));
  EXPECT_EQ(fetch(dwarf::value_of(next)), "+8(%di)");
  // p->next->name at offset 0 of what next points to: +0(+8(%di)).
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::pointee(next, 0))), "+0(+8(%di))");
}

TEST(Pointee, OfAPointerInMemory) {
  // struct item *it at -24(%bp); it->name (a char * at offset 0); the string it points to.
  Place it = Place::at(dwarf::value_of(Place::in_register(rbp)), -24);
  Place name = *dwarf::pointee(it, 0);
  EXPECT_EQ(fetch(dwarf::value_of(name)), "+0(-24(%bp))");
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::pointee(name))), "+0(+0(-24(%bp)))");
}

TEST(Pointee, OfAGlobalPointer) {
  Place head = Place::at_address(0x4010);
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::pointee(head, 16))), "+16(@+0x4010)");
}

TEST(Pointee, OfAConstantAddress) {
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::pointee(Place::known(0x1000), 4))), "+4(\\4096)");
}

// DW_OP_piece: struct pair { long a; long b; } passed in rdi:rsi is
// "DW_OP_reg5, DW_OP_piece 8, DW_OP_reg4, DW_OP_piece 8".
Place split_pair() {
  Place p;
  p.kind = Place::Kind::Pieces;
  p.pieces.push_back({8, {Place::in_register(rdi)}});
  p.pieces.push_back({8, {Place::in_register(4)}});
  return p;
}

TEST(Pieces, AMemberIsReadFromThePieceThatHoldsIt) {
  auto a = dwarf::offset_into(split_pair(), 0);
  auto b = dwarf::offset_into(split_pair(), 8);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(fetch(dwarf::value_of(*a)), "%di");
  EXPECT_EQ(fetch(dwarf::value_of(*b)), "%si");
  auto upper = dwarf::offset_into(split_pair(), 12);
  ASSERT_TRUE(upper) << "inside a register piece: its upper bits";
  EXPECT_EQ(fetch(dwarf::value_of(*upper)), "%si");
  EXPECT_EQ(dwarf::value_of(*upper).bit_offset, 32u);
  EXPECT_EQ(dwarf::value_of(*upper).bit_width, 32u);
  EXPECT_FALSE(dwarf::offset_into(split_pair(), 16)) << "past the last piece";
}

TEST(Pieces, AnOptimizedOutPieceHasNoPlace) {
  Place p;
  p.kind = Place::Kind::Pieces;
  p.pieces.push_back({4, {}});
  p.pieces.push_back({4, {Place::in_register(rdi)}});
  EXPECT_FALSE(dwarf::offset_into(p, 0));
  ASSERT_TRUE(dwarf::offset_into(p, 4));
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::offset_into(p, 4))), "%di");
}

TEST(Pieces, WholeNeedsOnePieceThatHoldsEveryByte) {
  ASSERT_TRUE(dwarf::whole(split_pair(), 8));
  EXPECT_EQ(fetch(dwarf::value_of(*dwarf::whole(split_pair(), 8))), "%di");
  EXPECT_FALSE(dwarf::whole(split_pair(), 16)) << "16 bytes span two registers";
  EXPECT_TRUE(dwarf::whole(Place::in_register(rdi), 8)) << "an unsplit place is whole";
}

}  // namespace
}  // namespace kpp
