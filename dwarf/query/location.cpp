// A variable's DIE to its Place at a pc: its constant value, or the entry of
// its location list that covers the pc, evaluated by dwarf/expr/expression.h with
// what the expression may ask of the DIE's unit and function.
#include <cstdio>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/expr/expression.h"
#include "dwarf/query/variables.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// What an expression asks of the variable's unit and function at pc.
class DieContext final : public ExpressionContext {
 public:
  DieContext(FrameTables &frames, DWARFUnit *unit, DWARFDie function, uint64_t pc)
      : frames_(frames), unit_(unit), function_(function), pc_(pc) {}

  Result<std::vector<uint8_t>> frame_base() override {
    auto frame_base = function_.find(llvm::dwarf::DW_AT_frame_base);
    auto block = frame_base ? frame_base->getAsBlock() : std::nullopt;
    if (!block) return Error("its function has no usable frame base");
    return std::vector<uint8_t>(block->begin(), block->end());
  }
  Result<FrameRule> call_frame_cfa() override {
    // The rule comes from the one FDE that covers pc (dwarf/expr/cfa.cpp).
    auto rule = frames_.cfa_at(pc_);
    if (!rule) return std::move(rule).error();
    return FrameRule{rule->reg, rule->offset};
  }
  Result<uint64_t> indexed_address(uint64_t index) override {
    auto address = unit_->getAddrOffsetSectionItem(static_cast<uint32_t>(index));
    if (!address) return Error("its address index " + std::to_string(index) + " is out of range");
    return address->Address;
  }
  Result<BaseType> base_type(uint64_t unit_offset) override {
    DWARFDie base = unit_->getDIEForOffset(unit_->getOffset() + unit_offset);
    auto size = base ? base.find(llvm::dwarf::DW_AT_byte_size) : std::nullopt;
    auto bytes = size ? size->getAsUnsignedConstant() : std::nullopt;
    if (!bytes || *bytes == 0) return Error("its location expression converts to a type we cannot read");
    auto encoding = base.find(llvm::dwarf::DW_AT_encoding);
    auto e = encoding ? encoding->getAsUnsignedConstant() : std::nullopt;
    bool is_signed = e && (*e == llvm::dwarf::DW_ATE_signed || *e == llvm::dwarf::DW_ATE_signed_char);
    return BaseType{static_cast<unsigned>(std::min<uint64_t>(*bytes, 8)), is_signed};
  }
  bool at_function_entry() override {
    uint64_t entry = 0, high = 0, section = 0;
    return function_.getLowAndHighPC(entry, high, section) && pc_ == entry;
  }

 private:
  FrameTables &frames_;
  DWARFUnit *unit_;
  DWARFDie function_;
  uint64_t pc_;
};

// The DW_AT_const_value of `die` as a Place, when it has one.
std::optional<Result<Place>> constant_place(const DWARFDie &die) {
  auto value = die.find(llvm::dwarf::DW_AT_const_value);
  if (!value) return std::nullopt;
  if (auto s = value->getAsSignedConstant()) return Place::known(*s);
  if (auto u = value->getAsUnsignedConstant()) return Place::known(static_cast<int64_t>(*u));
  // A constant char array ("from-a"): its bytes, up to the first NUL.
  if (auto block = value->getAsBlock()) {
    std::string text(block->begin(), block->end());
    return Place::known_text(text.substr(0, text.find('\0')));
  }
  if (auto str = value->getAsCString()) return Place::known_text(*str);
  else consumeError(str.takeError());
  return Result<Place>(Error("its value is a constant block we cannot pass to the kernel"));
}

// The expression of the location-list entry covering `pc`.
Result<SmallVector<uint8_t, 4>> expression_at(const DWARFDie &die, uint64_t pc, uint64_t block_entry) {
  auto locations = die.getLocations(llvm::dwarf::DW_AT_location);
  if (!locations) {
    std::string why = toString(locations.takeError());
    return Error("its location list cannot be read: " + why);
  }
  const DWARFLocationExpression *chosen = nullptr;
  for (const DWARFLocationExpression &loc : *locations) {
    if (!loc.Range) {
      if (!chosen) chosen = &loc;
    } else if ((pc >= loc.Range->LowPC && pc < loc.Range->HighPC) ||
               (pc == loc.Range->LowPC && pc == loc.Range->HighPC && pc == block_entry)) {
      // An empty range is a location view (gcc's DW_AT_GNU_locviews). At
      // the entry of the function (or inlined copy) that declares the
      // variable, the first view is where a probe there stands: it holds.
      // Elsewhere it describes a moment between two instructions, which no
      // probe sees. gdb reads them the same way.
      chosen = &loc;
      break;
    }
  }
  if (!chosen) return Error("no location covers this address (optimized out here)");
  if (chosen->Expr.empty()) return Error("its location is empty here (optimized out)");
  return chosen->Expr;
}

}  // namespace

Result<Place> Variables::locate(DWARFDie die, DWARFDie function, uint64_t pc, uint64_t block_entry) {
  if (auto constant = constant_place(die)) return std::move(*constant);
  if (!die.find(llvm::dwarf::DW_AT_location)) return Error("it has no location (optimized out)");
  auto bytes = expression_at(die, pc, block_entry);
  if (!bytes) return std::move(bytes).error();
  DWARFUnit *unit = die.getDwarfUnit();
  ExpressionFormat format;
  format.address_size = unit->getAddressByteSize();
  format.version = unit->getVersion();
  format.dwarf64 = unit->getFormParams().Format == llvm::dwarf::DWARF64;
  format.little_endian = files_.context().isLittleEndian();
  DieContext context(frames_, unit, function, pc);
  return evaluate_location(*bytes, format, context, types_.describe(types_.type_of(die)).size);
}

std::vector<AddressRange> Variables::available_ranges(DWARFDie die, DWARFDie scope) {
  std::vector<AddressRange> scope_ranges;
  if (auto ranges = scope.getAddressRanges()) {
    for (const auto &r : *ranges) scope_ranges.push_back({r.LowPC, r.HighPC});
  } else {
    consumeError(ranges.takeError());
  }
  auto loc = die.find(llvm::dwarf::DW_AT_location);
  if (die.find(llvm::dwarf::DW_AT_const_value) ||
      (loc && (loc->isFormClass(DWARFFormValue::FC_Exprloc) || loc->isFormClass(DWARFFormValue::FC_Block))))
    return scope_ranges;
  std::vector<AddressRange> out;
  if (!loc) return out;
  auto locations = die.getLocations(llvm::dwarf::DW_AT_location);
  if (!locations) {
    consumeError(locations.takeError());
    return out;
  }
  for (const DWARFLocationExpression &entry : *locations) {
    if (entry.Expr.empty()) continue;
    if (!entry.Range) return scope_ranges;
    for (const AddressRange &s : scope_ranges) {
      uint64_t b = std::max(s.begin, entry.Range->LowPC), e = std::min(s.end, entry.Range->HighPC);
      if (b < e) out.push_back({b, e});
    }
  }
  return out;
}

}  // namespace kpp::dwarf
