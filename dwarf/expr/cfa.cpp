// FrameTable: the CFA rule at a pc from the one CIE and FDE that cover it
// (see cfa.h for why), and FrameTables::cfa_at, which asks .eh_frame
// first and .debug_frame second, as the full parse did before.
//
// The entry layout is DWARF 5 section 6.4.1 (.debug_frame) and the LSB's
// "Exception Frames" (.eh_frame): the same records, except that .eh_frame's
// CIE id is 0, its CIE pointer counts back from the pointer field itself,
// and its addresses use the encoding the CIE's 'R' augmentation names.
#include "dwarf/expr/cfa.h"

#include <algorithm>
#include <cstdio>

#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>
#include <llvm/Support/Error.h>

#include "dwarf/source/dwarf_files.h"
#include "util/strings.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// DW_EH_PE_* (LSB, "DWARF Exception Header Encoding"): the low nibble is the
// value's format, bits 4-6 what it is relative to, bit 7 an indirection.
constexpr uint8_t kEncodingOmit = 0xff;
constexpr uint8_t kApplicationPcRel = 0x10;

// The fields every entry starts with.
struct EntryHeader {
  uint64_t start = 0;     // offset of the length field
  uint64_t length = 0;    // bytes after the length field
  uint64_t end = 0;       // offset past the entry
  bool dwarf64 = false;
  uint64_t id_field = 0;  // offset of the CIE id / CIE pointer
  uint64_t id = 0;
  uint64_t after_id = 0;  // offset of what follows it
};

// Reads the header at `offset`; an empty message on success.
std::string read_header(const DWARFDataExtractor &data, bool is_eh, uint64_t offset, EntryHeader &h) {
  h.start = offset;
  if (!data.isValidOffsetForDataOfSize(offset, 4)) return "truncated entry at offset " + hex(h.start);
  h.length = data.getU32(&offset);
  if (h.length == 0xffffffff) {
    if (!data.isValidOffsetForDataOfSize(offset, 8)) return "truncated entry at offset " + hex(h.start);
    h.length = data.getU64(&offset);
    h.dwarf64 = true;
  } else if (h.length >= 0xfffffff0) {
    return "reserved length value at offset " + hex(h.start);
  }
  h.end = offset + h.length;
  if (h.end < offset || h.end > data.getData().size()) return "entry at offset " + hex(h.start) + " runs past the section";
  if (h.length == 0) return {};  // .eh_frame's terminator: no id follows
  // .eh_frame keeps a 4-byte CIE pointer even in 64-bit entries.
  unsigned id_size = h.dwarf64 && !is_eh ? 8 : 4;
  if (h.length < id_size) return "entry at offset " + hex(h.start) + " is too short";
  h.id_field = offset;
  h.id = data.getRelocatedValue(id_size, &offset);
  h.after_id = offset;
  return {};
}

bool is_cie_id(const EntryHeader &h, bool is_eh) {
  if (is_eh) return h.id == 0;
  return h.dwarf64 ? h.id == UINT64_MAX : h.id == 0xffffffff;
}

// The offset of the CIE an FDE points at (nullopt when it points outside).
std::optional<uint64_t> cie_offset_of(const EntryHeader &h, bool is_eh) {
  if (!is_eh) return h.id;
  if (h.id > h.id_field) return std::nullopt;
  return h.id_field - h.id;
}

}  // namespace

FrameTable::FrameTable(DWARFDataExtractor data, uint64_t section_address, bool is_eh, Triple::ArchType arch)
    : data_(std::move(data)), section_address_(section_address), is_eh_(is_eh), arch_(arch) {}

size_t FrameTable::fde_count() {
  if (!indexed_) build_index();
  return fdes_.size();
}

std::optional<uint64_t> FrameTable::read_pointer(uint64_t &offset, uint8_t encoding, uint8_t address_size,
                                                 bool relative) {
  uint64_t field = offset;
  auto fixed = [&](unsigned size) -> std::optional<uint64_t> {
    if (!data_.isValidOffsetForDataOfSize(offset, size)) return std::nullopt;
    return data_.getRelocatedValue(size, &offset);
  };
  std::optional<uint64_t> v;
  switch (encoding & 0x0f) {
    case 0x00: v = fixed(address_size); break;  // absptr
    case 0x02: v = fixed(2); break;             // udata2
    case 0x03: v = fixed(4); break;             // udata4
    case 0x04: v = fixed(8); break;             // udata8
    case 0x0a:                                  // sdata2
      if ((v = fixed(2))) v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(*v)));
      break;
    case 0x0b:                                  // sdata4
      if ((v = fixed(4))) v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(*v)));
      break;
    case 0x0c: v = fixed(8); break;             // sdata8
    case 0x01:
    case 0x09: {                                // uleb128, sleb128
      llvm::Error err = llvm::Error::success();
      v = (encoding & 0x0f) == 0x01 ? data_.getULEB128(&offset, &err)
                                    : static_cast<uint64_t>(data_.getSLEB128(&offset, &err));
      if (err) {
        consumeError(std::move(err));
        return std::nullopt;
      }
      break;
    }
    default: return std::nullopt;
  }
  if (!v || !relative) return v;
  // Only absolute and pc-relative addresses are seen in FDE headers; the
  // text-, data- and function-relative forms need bases we do not know, and
  // an indirect pointer would be a load from the running image.
  if (encoding & 0x80) return std::nullopt;
  switch (encoding & 0x70) {
    case 0x00: return v;
    case kApplicationPcRel: return *v + section_address_ + field;
    default: return std::nullopt;
  }
}

Result<const FrameTable::Cie *> FrameTable::cie_at(uint64_t offset) {
  if (auto it = cies_.find(offset); it != cies_.end()) return &it->second;
  EntryHeader h;
  if (std::string why = read_header(data_, is_eh_, offset, h); !why.empty()) return Error(why);
  if (h.length == 0 || !is_cie_id(h, is_eh_)) return Error("no CIE at offset " + hex(offset));
  Cie c;
  c.dwarf64 = h.dwarf64;
  c.offset = offset;
  c.length = h.length;
  c.end = h.end;
  uint64_t off = h.after_id;
  llvm::Error err = llvm::Error::success();
  c.version = data_.getU8(&off, &err);
  c.augmentation = data_.getCStrRef(&off, &err).str();
  c.address_size = data_.getAddressSize();
  if (c.version >= 4) {
    c.address_size = data_.getU8(&off, &err);
    c.segment_size = data_.getU8(&off, &err);
  }
  c.code_align = data_.getULEB128(&off, &err);
  c.data_align = data_.getSLEB128(&off, &err);
  c.return_register = c.version == 1 ? data_.getU8(&off, &err) : data_.getULEB128(&off, &err);
  if (err) return Error("CIE at offset " + hex(offset) + ": " + toString(std::move(err)));
  if (c.version != 1 && c.version != 3 && c.version != 4)
    return Error("CIE at offset " + hex(offset) + " has version " + std::to_string(c.version));
  if (c.address_size != 4 && c.address_size != 8)
    return Error("CIE at offset " + hex(offset) + " has address size " + std::to_string(c.address_size));
  if (!c.augmentation.empty()) {
    // Without the 'z' length, an augmentation we do not know hides where
    // the instructions start (gcc's ancient "eh" is one): refuse.
    if (c.augmentation[0] != 'z')
      return Error("CIE at offset " + hex(offset) + " has augmentation \"" + c.augmentation + "\"");
    c.has_z = true;
    uint64_t size = data_.getULEB128(&off, &err);
    if (err) return Error("CIE at offset " + hex(offset) + ": " + toString(std::move(err)));
    uint64_t data_end = off + size;
    if (data_end < off || data_end > c.end) return Error("CIE at offset " + hex(offset) + ": augmentation data runs past it");
    c.augmentation_data = data_.getData().substr(off, size).str();
    for (char ch : c.augmentation.substr(1)) {
      if (ch == 'L') {
        c.lsda_encoding = data_.getU8(&off, &err);
      } else if (ch == 'R') {
        c.fde_encoding = data_.getU8(&off, &err);
      } else if (ch == 'P') {
        uint8_t encoding = data_.getU8(&off, &err);
        c.personality_encoding = encoding;
        if (!read_pointer(off, encoding, c.address_size, false)) break;
      } else if (ch != 'S' && ch != 'B' && ch != 'G') {
        break;  // unknown, but the 'z' length still tells where the data ends
      }
    }
    if (err) return Error("CIE at offset " + hex(offset) + ": " + toString(std::move(err)));
    off = data_end;
  }
  c.instructions = off;
  return &cies_.emplace(offset, std::move(c)).first->second;
}

void FrameTable::build_index() {
  indexed_ = true;
  const uint64_t size = data_.getData().size();
  for (uint64_t off = 0; off < size;) {
    EntryHeader h;
    if (std::string why = read_header(data_, is_eh_, off, h); !why.empty()) {
      index_error_ = why;
      break;
    }
    off = h.end;
    if (h.length == 0 || is_cie_id(h, is_eh_)) continue;
    auto cie_offset = cie_offset_of(h, is_eh_);
    if (!cie_offset) continue;
    auto cie = cie_at(*cie_offset);
    if (!cie) continue;  // an FDE we cannot read covers nothing; the others still count
    uint64_t p = h.after_id + (*cie)->segment_size;
    uint8_t encoding = is_eh_ ? (*cie)->fde_encoding : 0;
    auto begin = read_pointer(p, encoding, (*cie)->address_size, true);
    auto range = read_pointer(p, encoding & 0x0f, (*cie)->address_size, false);
    if (!begin || !range || *range == 0 || p > h.end) continue;
    // Discarded functions' FDEs keep a tombstone pc_begin (-1, -2) whose
    // range wraps around: they cover nothing.
    if (*begin + *range < *begin) continue;
    fdes_.push_back({*begin, *begin + *range, h.start, *cie_offset});
    longest_ = std::max(longest_, *range);
  }
  std::sort(fdes_.begin(), fdes_.end(), [](const Fde &a, const Fde &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.offset < b.offset;
  });
}

Result<std::vector<FrameTable::Row>> FrameTable::decode(const Fde &fde) {
  auto cie = cie_at(fde.cie);
  if (!cie) return std::move(cie).error();
  const Cie &c = **cie;
  DWARFDataExtractor data = data_;
  data.setAddressSize(c.address_size);  // DW_CFA_set_loc reads addresses of this size

  llvm::dwarf::CIE llvm_cie(c.dwarf64, c.offset, c.length, c.version, SmallString<8>(c.augmentation), c.address_size,
                      c.segment_size, c.code_align, c.data_align, c.return_register,
                      SmallString<8>(c.augmentation_data), c.fde_encoding, c.lsda_encoding, std::nullopt,
                      c.personality_encoding, arch_);
  uint64_t off = c.instructions;
  if (llvm::Error e = llvm_cie.cfis().parse(data, &off, c.end)) return Error(toString(std::move(e)));

  EntryHeader h;
  if (std::string why = read_header(data_, is_eh_, fde.offset, h); !why.empty()) return Error(why);
  off = h.after_id + c.segment_size;
  uint8_t encoding = is_eh_ ? c.fde_encoding : 0;
  if (!read_pointer(off, encoding, c.address_size, true) || !read_pointer(off, encoding & 0x0f, c.address_size, false))
    return Error("FDE at offset " + hex(fde.offset) + " is truncated");
  if (c.has_z) {
    llvm::Error err = llvm::Error::success();
    uint64_t size = data_.getULEB128(&off, &err);
    if (err) return Error(toString(std::move(err)));
    off += size;  // the LSDA pointer: not needed for the CFA
  }
  if (off > h.end) return Error("FDE at offset " + hex(fde.offset) + " is truncated");
  llvm::dwarf::FDE llvm_fde(h.dwarf64, h.start, h.length, h.id, fde.begin, fde.end - fde.begin, &llvm_cie, std::nullopt,
                      arch_);
  if (llvm::Error e = llvm_fde.cfis().parse(data, &off, h.end)) return Error(toString(std::move(e)));

  auto table = llvm::dwarf::UnwindTable::create(&llvm_fde);
  if (!table) return Error(toString(table.takeError()));
  std::vector<Row> rows;
  for (const llvm::dwarf::UnwindRow &row : *table) {
    if (!row.hasAddress()) continue;
    const llvm::dwarf::UnwindLocation &cfa = row.getCFAValue();
    Row r;
    r.address = row.getAddress();
    r.ok = cfa.getLocation() == llvm::dwarf::UnwindLocation::RegPlusOffset;
    if (r.ok) r.rule = {static_cast<int>(cfa.getRegister()), cfa.getOffset()};
    rows.push_back(r);
  }
  return rows;
}

Result<std::optional<CfaRule>> FrameTable::rule_at(uint64_t pc) {
  if (!indexed_) build_index();
  // FDEs may overlap (rarely: a stale one left at 0 by the linker); the
  // first in section order wins, as in a walk of the whole section.
  auto it = std::upper_bound(fdes_.begin(), fdes_.end(), pc, [](uint64_t a, const Fde &f) { return a < f.begin; });
  const Fde *best = nullptr;
  while (it != fdes_.begin()) {
    --it;
    if (pc - it->begin >= longest_) break;  // nothing starting this early reaches pc
    if (pc < it->end && (!best || it->offset < best->offset)) best = &*it;
  }
  if (!best) return std::optional<CfaRule>();

  auto cached = rows_.find(best->offset);
  if (cached == rows_.end()) {
    auto rows = decode(*best);
    if (!rows) return std::move(rows).error().context("cannot read the call frame information at this address: ");
    cached = rows_.emplace(best->offset, std::move(*rows)).first;
  }
  const Row *found = nullptr;
  for (const Row &row : cached->second)
    if (row.address <= pc) found = &row;
  if (!found) return std::optional<CfaRule>();
  if (!found->ok) return Error("the frame address here is not a register plus an offset");
  return std::optional<CfaRule>(found->rule);
}

void FrameTables::make() {
  made_ = true;
  const DWARFObject &obj = files_.context().getDWARFObj();
  bool little = files_.context().isLittleEndian();
  uint8_t address_size = obj.getAddressSize();
  Triple::ArchType arch = files_.context().getArch();
  if (files_.debug_object()) {
    // .eh_frame is allocated: a separate debug file keeps only its header
    // (NOBITS), so it is read from the program itself, which is linked (no
    // relocations to apply).
    for (const object::SectionRef &section : files_.image().object().sections()) {
      auto name = section.getName();
      if (!name) {
        consumeError(name.takeError());
        continue;
      }
      if (*name != ".eh_frame") continue;
      auto contents = section.getContents();
      if (!contents) {
        consumeError(contents.takeError());
        break;
      }
      if (!contents->empty())
        eh_frames_ = std::make_unique<FrameTable>(DWARFDataExtractor(*contents, little, address_size),
                                                  section.getAddress(), true, arch);
      break;
    }
  } else if (!obj.getEHFrameSection().Data.empty()) {
    const DWARFSection &s = obj.getEHFrameSection();
    eh_frames_ = std::make_unique<FrameTable>(DWARFDataExtractor(obj, s, little, address_size), s.Address, true, arch);
  }
  if (!obj.getFrameSection().Data.empty()) {
    const DWARFSection &s = obj.getFrameSection();
    debug_frames_ = std::make_unique<FrameTable>(DWARFDataExtractor(obj, s, little, address_size), s.Address, false, arch);
  }
}

Result<CfaRule> FrameTables::cfa_at(uint64_t pc) {
  if (!made_) make();
  for (FrameTable *table : {eh_frames_.get(), debug_frames_.get()}) {
    if (!table) continue;
    auto rule = table->rule_at(pc);
    if (!rule) return std::move(rule).error();
    if (*rule) return **rule;
  }
  return Error("no call frame information covers this address");
}

}  // namespace kpp::dwarf
