// The DWARF constants the raw reader and the function scan need. Their own
// copy, not LLVM's: that code runs on worker threads, shares nothing with
// the DWARFContext and must not pull LLVM in.
#pragma once

#include <cstdint>

namespace kpp::dwarf::raw {

enum : uint16_t {
  TAG_array_type = 0x01, TAG_class_type = 0x02, TAG_enumeration_type = 0x04, TAG_structure_type = 0x13,
  TAG_subroutine_type = 0x15, TAG_union_type = 0x17, TAG_inlined_subroutine = 0x1d, TAG_subprogram = 0x2e,
};
enum : uint16_t {
  AT_sibling = 0x01, AT_name = 0x03, AT_low_pc = 0x11, AT_abstract_origin = 0x31, AT_specification = 0x47,
  AT_ranges = 0x55, AT_str_offsets_base = 0x72, AT_language = 0x13, AT_stmt_list = 0x10, AT_dwo_name = 0x76,
  AT_GNU_dwo_name = 0x2130, AT_type = 0x49, AT_byte_size = 0x0b, AT_encoding = 0x3e,
};
constexpr uint64_t LNCT_path = 0x1;
enum : uint16_t {
  FORM_addr = 0x01, FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06,
  FORM_data8 = 0x07, FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b,
  FORM_flag = 0x0c, FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_ref_addr = 0x10,
  FORM_ref1 = 0x11, FORM_ref2 = 0x12, FORM_ref4 = 0x13, FORM_ref8 = 0x14, FORM_ref_udata = 0x15,
  FORM_indirect = 0x16, FORM_sec_offset = 0x17, FORM_exprloc = 0x18, FORM_flag_present = 0x19,
  FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_ref_sup4 = 0x1c, FORM_strp_sup = 0x1d, FORM_data16 = 0x1e,
  FORM_line_strp = 0x1f, FORM_ref_sig8 = 0x20, FORM_implicit_const = 0x21, FORM_loclistx = 0x22,
  FORM_rnglistx = 0x23, FORM_ref_sup8 = 0x24, FORM_strx1 = 0x25, FORM_strx2 = 0x26, FORM_strx3 = 0x27,
  FORM_strx4 = 0x28, FORM_addrx1 = 0x29, FORM_addrx2 = 0x2a, FORM_addrx3 = 0x2b, FORM_addrx4 = 0x2c,
  FORM_GNU_addr_index = 0x1f01, FORM_GNU_str_index = 0x1f02, FORM_GNU_ref_alt = 0x1f20, FORM_GNU_strp_alt = 0x1f21,
};

}  // namespace kpp::dwarf::raw
