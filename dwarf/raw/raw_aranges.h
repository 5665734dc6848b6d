// .debug_aranges read raw: which unit covers an address, without LLVM
// reading every unit header to build its own table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kpp::dwarf {

// The offset of the unit whose .debug_aranges entry covers `address`, from
// the raw section; nullopt when none does (or the section is malformed).
std::optional<uint64_t> unit_at_address(std::string_view aranges, uint64_t address);

}  // namespace kpp::dwarf
