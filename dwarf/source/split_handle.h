// How a DIE of a split unit (-gsplit-dwarf) is named by the 64-bit handles
// that Function::die_offset, TypeRef and the name index carry. A DIE in the
// file's own .debug_info is its offset there; a DIE in a .dwo file or a .dwp
// package is its skeleton unit's index (plus one) in bits 40..62 and its
// offset from the start of its unit below. The offset inside the unit is the
// same whether the unit is read from its .dwo or from a .dwp built from it,
// so a cached index stays valid when a package replaces the .dwo files.
// (Bit 63 is the name index's "inlined" flag; .debug_info sections stay far
// below 2^40 bytes.)
#pragma once

#include <cstdint>

namespace kpp::dwarf {

constexpr int kSplitSlotShift = 40;
constexpr uint64_t kSplitOffsetMask = (uint64_t{1} << kSplitSlotShift) - 1;
constexpr uint64_t kSplitSlotMask = (uint64_t{1} << (63 - kSplitSlotShift)) - 1;

inline uint64_t split_handle(uint64_t skeleton_index, uint64_t offset_in_unit) {
  return ((skeleton_index + 1) << kSplitSlotShift) | (offset_in_unit & kSplitOffsetMask);
}
inline bool is_split_handle(uint64_t handle) { return ((handle >> kSplitSlotShift) & kSplitSlotMask) != 0; }
inline uint64_t split_skeleton_index(uint64_t handle) { return ((handle >> kSplitSlotShift) & kSplitSlotMask) - 1; }
inline uint64_t split_offset_in_unit(uint64_t handle) { return handle & kSplitOffsetMask; }

}  // namespace kpp::dwarf
