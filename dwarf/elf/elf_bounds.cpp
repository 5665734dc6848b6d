#include "dwarf/elf/elf_bounds.h"

#include "dwarf/elf_reader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace kpp::dwarf {

namespace {

constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kShtRela = 4, kShtRel = 9;
constexpr uint32_t kShtGnuVerdef = 0x6ffffffd, kShtGnuVerneed = 0x6ffffffe;
constexpr uint32_t kPtNote = 4;
constexpr uint64_t kShfCompressed = 0x800;

// Reads the file's fields in its own byte order and width.
class Fields {
 public:
  Fields(std::string_view bytes, bool is64, bool little) : bytes_(bytes), is64_(is64), little_(little) {}

  // A `width`-byte field at `at`, or nullopt past the end.
  std::optional<uint64_t> get(uint64_t at, unsigned width) const { return read_field(bytes_, at, width, little_); }
  // A word that is 8 bytes in ELF64, 4 in ELF32.
  std::optional<uint64_t> word(uint64_t at) const { return get(at, is64_ ? 8 : 4); }
  bool is64() const { return is64_; }
  uint64_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
  bool is64_, little_;
};

using Section = ElfSectionHeader;

std::string number(uint64_t v) { return std::to_string(v); }

// The forms a DWARF 5 line table header describes its directories and
// files with: LLVM 19's prologue parser crashes on forms DWARF 5 does not
// allow there. Reads the headers of one .debug_line section.
class LineHeaderForms {
 public:
  explicit LineHeaderForms(Fields f) : f_(f) {}

  struct Table {
    uint64_t end = 0;        // where the next table starts (the section's end for a cut one)
    uint64_t formats = 0;    // a DWARF 5 table's directory entry formats; 0 for older versions
    bool dwarf64 = false;
    bool cut = false;        // its length runs past the section: the last one
  };
  // The table whose header is at `at`; nullopt when not even its length is there.
  // A table cut short still has its header read: LLVM parses what of it the
  // section holds (and crashed on a bad form there, found by fuzz_dwarf).
  std::optional<Table> table_at(uint64_t at) const {
    auto length = f_.get(at, 4);
    uint64_t header = 4;
    Table t;
    t.dwarf64 = length == 0xffffffff;
    if (t.dwarf64) {
      length = f_.get(at + 4, 8);
      header = 12;
    }
    if (!length || header > f_.size() - at) return std::nullopt;
    t.cut = *length > f_.size() - at - header;
    t.end = t.cut ? f_.size() : at + header + *length;
    uint64_t p = at + header;
    if (f_.get(p, 2) != 5) return t;
    p += 2 + 1 + 1 + (t.dwarf64 ? 8 : 4) + 5;  // version, address and selector sizes, header_length, five fields
    auto opcode_base = f_.get(p++, 1);
    if (!opcode_base) return t;
    t.formats = p + (*opcode_base > 0 ? *opcode_base - 1 : 0);
    return t;
  }

  struct BadForm {
    bool files;  // in the file entry formats (else the directories')
    uint64_t form;
  };
  // The first entry format of `t` whose form DWARF 5 does not allow there.
  std::optional<BadForm> first_bad_form(const Table &t) const {
    uint64_t p = t.formats;
    for (int list = 0; t.formats != 0 && list < 2 && p < t.end; ++list) {
      auto count = f_.get(p++, 1);
      if (!count) break;
      std::vector<uint64_t> forms;
      for (uint64_t i = 0; i < *count; ++i) {
        auto kind = uleb(p), form = uleb(p);
        if (!kind || !form) break;
        if (!allowed(*form)) return BadForm{list == 1, *form};
        forms.push_back(*form);
      }
      if (list == 1) break;
      // The directories, to reach the file formats after them.
      auto entries = uleb(p);
      bool readable = entries.has_value() && !forms.empty();  // no forms: no progress per entry
      for (uint64_t e = 0; readable && e < *entries && p < t.end; ++e)
        for (uint64_t form : forms) readable = readable && skip(form, p, t);
      if (!readable || p >= t.end) break;
    }
    return std::nullopt;
  }

 private:
  static bool allowed(uint64_t form) {
    switch (form) {
      case 0x08: case 0x1f: case 0x0e: case 0x1a: case 0x25: case 0x26: case 0x27: case 0x28:  // strings
      case 0x0f: case 0x0b: case 0x05: case 0x06: case 0x07: case 0x1e: case 0x09:            // numbers, MD5, block
        return true;
      default: return false;
    }
  }

  std::optional<uint64_t> uleb(uint64_t &at) const {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      auto byte = f_.get(at++, 1);
      if (!byte) return std::nullopt;
      v |= (*byte & 0x7f) << shift;
      if (!(*byte & 0x80)) return v;
    }
    return std::nullopt;
  }

  // Moves `q` past one value of `form` (an allowed one); false when it cannot tell.
  bool skip(uint64_t form, uint64_t &q, const Table &t) const {
    switch (form) {
      case 0x08:  // a string: to its NUL
        while (q < t.end) {
          auto c = f_.get(q++, 1);
          if (!c) return false;
          if (*c == 0) return true;
        }
        return false;
      case 0x1f: case 0x0e: q += t.dwarf64 ? 8 : 4; return true;
      case 0x1a: case 0x0f: return uleb(q).has_value();
      case 0x25: case 0x0b: q += 1; return true;
      case 0x26: case 0x05: q += 2; return true;
      case 0x27: q += 3; return true;
      case 0x28: case 0x06: q += 4; return true;
      case 0x07: q += 8; return true;
      case 0x1e: q += 16; return true;
      case 0x09: {
        auto n = uleb(q);
        if (!n || *n > t.end - std::min(q, t.end)) return false;
        q += *n;
        return true;
      }
      default: return false;
    }
  }

  Fields f_;
};

class Checker {
 public:
  Checker(std::string_view bytes, const std::string &path, bool is64, bool little,
          const std::function<void(std::string_view)> &done_with)
      : bytes_(bytes), path_(path), f_(bytes, is64, little), little_(little), done_with_(done_with) {}

  Status run() {
    // The tables themselves: the one ELF header reader's checks, in its words.
    auto headers = ElfReader::of(bytes_);
    if (!headers) return bad(headers.error().message);
    sections_ = headers->sections();
    const std::vector<ElfSegmentHeader> &segments = headers->segments();
    for (uint64_t i = 0; i < segments.size(); ++i)
      if (Status s = check_segment(segments[i], i); !s) return s;
    for (const Section &s : sections_)
      if (Status st = check_section(s); !st) return st;
    for (const Section &s : sections_)
      if (Status st = check_unit_index(s); !st) return st;
    for (const Section &s : sections_)
      if (Status st = check_line_tables(s); !st) return st;
    for (const Section &s : sections_)
      if (Status st = check_versions(s); !st) return st;
    return Ok{};
  }

 private:
  Error bad(const std::string &what) const {
    return Error("'" + path_ + "' is a damaged ELF file: " + what,
                 "its headers claim more than the file holds; it was not read further");
  }

  // "section 12 (.debug_info)", for messages.
  std::string name_of(const Section &s) const {
    std::string name(plain_name(s).substr(0, 64));
    return "section " + number(s.index) + (name.empty() ? "" : " (" + name + ")");
  }

  Status check_segment(const ElfSegmentHeader &segment, uint64_t index) const {
    // LLVM reads the notes of PT_NOTE segments (the build-id); PT_LOAD's
    // bytes are only ever read through sections.
    if (segment.type == kPtNote && !lies_inside(segment.offset, segment.file_size, f_.size()))
      return bad("the note segment (program header " + number(index) + ") claims " + number(segment.file_size) +
                 " bytes at " + number(segment.offset) + ", past the end of the file (" + number(f_.size()) + " bytes)");
    return Ok{};
  }

  Status check_section(const Section &s) const {
    // LLVM divides a relocation section's size by its entry size (SIGFPE
    // on 0, found by tests/fuzz; an empty section's too) and reads entries
    // of that size.
    if (s.type == kShtRela || s.type == kShtRel) {
      uint64_t entry = s.type == kShtRela ? (f_.is64() ? 24 : 12) : (f_.is64() ? 16 : 8);
      if (s.entry_size != entry)
        return bad(name_of(s) + " holds relocations of " + number(s.entry_size) + " bytes (they are " + number(entry) + ")");
      // Its symbol table (sh_link) and the section it relocates (sh_info)
      // are looked up by LLVM, which aborts on an index past the table
      // (report_fatal_error, found by tests/fuzz).
      if (s.link >= sections_.size() || s.info >= sections_.size())
        return bad(name_of(s) + " names section " + number(s.link >= sections_.size() ? s.link : s.info) + " as its " +
                   (s.link >= sections_.size() ? "symbol table" : "target") + ", of " + number(sections_.size()));
    }
    if (s.type == kShtNobits || s.size == 0) return Ok{};
    if (!lies_inside(s.offset, s.size, f_.size()))
      return bad(name_of(s) + " claims " + number(s.size) + " bytes at " + number(s.offset) +
                 ", past the end of the file (" + number(f_.size()) + " bytes)");
    std::optional<uint64_t> claimed;
    uint64_t header = 0;
    if (s.flags & kShfCompressed) {
      header = f_.is64() ? 24 : 12;
      claimed = f_.word(s.offset + (f_.is64() ? 8 : 4));  // ch_size
      if (s.size < header || !claimed) return bad(name_of(s) + " is compressed but shorter than its compression header");
    } else if (plain_name(s).starts_with(".zdebug") && s.size >= 12 &&
               bytes_.substr(s.offset, 4) == "ZLIB") {
      // GNU's older form: "ZLIB" and the size, big-endian, whatever the file's order.
      header = 12;
      claimed = Fields(bytes_, true, false).get(s.offset + 4, 8);
    }
    if (!claimed) return Ok{};
    uint64_t compressed = s.size - header;
    if (*claimed / kMaxCompressionRatio > compressed)
      return bad(name_of(s) + " claims " + number(*claimed) + " bytes uncompressed from " + number(compressed) +
                 " (more than " + number(kMaxCompressionRatio) + ":1)");
    return Ok{};
  }

  // The symbol versions a program needs or defines (.gnu.version_r,
  // .gnu.version_d): LLVM reads sh_info entries, each with its count of
  // names, following each entry's offset to the next, and keeps them all. A
  // next of 0 reads one entry again, so an 18 KB file claiming 2^31 entries
  // took LLVM 24 GB and a minute (found by fuzz_dwarf). What it would read
  // must fit the section: at most one entry or name per 8 bytes.
  Status check_versions(const Section &s) const {
    if ((s.type != kShtGnuVerneed && s.type != kShtGnuVerdef) || s.size == 0) return Ok{};
    Fields f(bytes_.substr(s.offset, s.size), true, little_);
    const bool needs = s.type == kShtGnuVerneed;
    const uint64_t most = s.size / 8;
    // Verneed: vn_cnt at 2, vn_next at 12; Verdef: vd_cnt at 6, vd_next at 16.
    const uint64_t count_at = needs ? 2 : 6, next_at = needs ? 12 : 16;
    uint64_t read = 0, at = 0;
    for (uint64_t i = 0; i < s.info; ++i) {
      auto count = f.get(at + count_at, 2), next = f.get(at + next_at, 4);
      if (!count || !next) break;  // an entry past the section: LLVM reports it itself
      read += 1 + *count;
      if (read > most) break;
      at += *next;
    }
    if (read > most)
      return bad(name_of(s) + " claims " + number(s.info) + " version entries whose names and repeats come to more than its " +
                 number(s.size) + " bytes hold");
    return Ok{};
  }

  // The name of section `s` ("" when the names are unreadable).
  std::string_view plain_name(const Section &s) const { return s.name; }

  // The size of the section named `name`, or nullopt when there is none.
  std::optional<uint64_t> size_of(std::string_view name) const {
    for (const Section &s : sections_)
      if (plain_name(s) == name) return s.type == kShtNobits ? 0 : s.size;
    return std::nullopt;
  }

  // A .dwp's unit index (.debug_cu_index, .debug_tu_index; DWARF 5 section
  // 7.3.5): LLVM 19 checks the header's table sizes in 32 bits (they wrap)
  // and then allocates what it claims. Here in 64 bits: the tables fit the
  // section, every row names a unit that exists, every contribution lies in
  // its section. A compressed index is left to LLVM (its size was checked).
  Status check_unit_index(const Section &s) const {
    std::string_view name = plain_name(s);
    // (An empty section's offset was not checked: it may lie past the file.)
    if ((name != ".debug_cu_index" && name != ".debug_tu_index") || (s.flags & kShfCompressed) || s.type == kShtNobits ||
        s.size == 0)
      return Ok{};
    Fields f(bytes_.substr(s.offset, s.size), true, little_);
    std::string what = name_of(s);
    auto version = f.get(0, 4);
    if (!version) return Ok{};  // too short for a header: LLVM ignores it
    bool v5 = (*version & 0xffff) == 5;
    if (*version != 2 && !v5) return Ok{};  // a version LLVM does not read
    auto columns = f.get(4, 4), units = f.get(8, 4), slots = f.get(12, 4);
    if (!columns || !units || !slots) return bad(what + " is shorter than its header");
    if (*columns > 16) return bad(what + " claims " + number(*columns) + " columns (DWARF has 8 kinds of section)");
    // At most 2^32 * 8 or 2^32 * 16 * 4 each: no sum below wraps.
    uint64_t rows_at = 16, indexes_at = rows_at + *slots * 8, kinds_at = indexes_at + *slots * 4;
    uint64_t offsets_at = kinds_at + *columns * 4, sizes_at = offsets_at + *units * *columns * 4;
    if (sizes_at + *units * *columns * 4 > s.size)
      return bad(what + " claims " + number(*slots) + " slots and " + number(*units) + " units of " + number(*columns) +
                 " columns, more than its " + number(s.size) + " bytes hold");
    std::vector<std::optional<uint64_t>> column_sizes;
    for (uint64_t c = 0; c < *columns; ++c) column_sizes.push_back(size_of(column_section(*f.get(kinds_at + c * 4, 4), v5)));
    for (uint64_t slot = 0; slot < *slots; ++slot) {
      uint64_t row = *f.get(indexes_at + slot * 4, 4);
      if (row == 0) continue;
      if (row > *units) return bad(what + " slot " + number(slot) + " names unit " + number(row) + " of " + number(*units));
      for (uint64_t c = 0; c < *columns; ++c) {
        uint64_t cell = ((row - 1) * *columns + c) * 4;
        uint64_t offset = *f.get(offsets_at + cell, 4), size = *f.get(sizes_at + cell, 4);
        if (column_sizes[c] && !lies_inside(offset, size, *column_sizes[c]))
          return bad(what + " unit " + number(row) + " claims " + number(size) + " bytes at " + number(offset) +
                     " of a section of " + number(*column_sizes[c]));
      }
    }
    return Ok{};
  }

  // DWARF 5 line tables (.debug_line, .debug_line.dwo): LLVM 19's prologue
  // parser crashes on entry formats with forms it does not expect there
  // (tests/fuzz found form 0). Only the forms DWARF 5 section 6.2.4.1 allows
  // for directory and file entries may appear.
  Status check_line_tables(const Section &s) const {
    std::string_view name = plain_name(s);
    if ((name != ".debug_line" && name != ".debug_line.dwo") || (s.flags & kShfCompressed) || s.type == kShtNobits ||
        s.size == 0)
      return Ok{};
    LineHeaderForms tables(Fields(bytes_.substr(s.offset, s.size), true, little_));
    uint64_t given_back = 0;
    for (uint64_t at = 0; at + 4 <= s.size;) {
      auto table = tables.table_at(at);
      if (!table) break;  // no length: LLVM reports it itself
      if (auto bad_form = tables.first_bad_form(*table))
        return bad(name_of(s) + ": the line table at " + number(at) + " describes its " +
                   (bad_form->files ? "files" : "directories") + " with form " + number(bad_form->form) +
                   ", which DWARF 5 does not allow there");
      if (table->cut) break;  // LLVM reports the rest
      at = table->end;
      // Each header read mapped the 64 KiB around it: a vmlinux's ~2,170 would be ~16 MB at once.
      if (done_with_ && at - given_back >= kGiveBackEvery) {
        done_with_(bytes_.substr(s.offset + given_back, at - given_back));
        given_back = at;
      }
    }
    if (done_with_) done_with_(bytes_.substr(s.offset + given_back, s.size - given_back));
    return Ok{};
  }

  // The section a unit index column (DW_SECT_*) points into.
  static std::string_view column_section(uint64_t kind, bool v5) {
    switch (kind) {
      case 1: return ".debug_info.dwo";
      case 2: return v5 ? "" : ".debug_types.dwo";
      case 3: return ".debug_abbrev.dwo";
      case 4: return ".debug_line.dwo";
      case 5: return v5 ? ".debug_loclists.dwo" : ".debug_loc.dwo";
      case 6: return ".debug_str_offsets.dwo";
      case 7: return v5 ? ".debug_macro.dwo" : ".debug_macinfo.dwo";
      case 8: return v5 ? ".debug_rnglists.dwo" : ".debug_macro.dwo";
      default: return "";
    }
  }

  static constexpr uint64_t kGiveBackEvery = 4u << 20;
  std::string_view bytes_;
  const std::string &path_;
  Fields f_;
  bool little_;
  const std::function<void(std::string_view)> &done_with_;
  std::vector<Section> sections_;
};

}  // namespace

Status check_elf_bounds(std::string_view bytes, const std::string &path,
                        const std::function<void(std::string_view)> &done_with) {
  if (bytes.size() < 6 || bytes.substr(0, 4) != "\x7f" "ELF") return Ok{};
  uint8_t elf_class = static_cast<uint8_t>(bytes[4]), data = static_cast<uint8_t>(bytes[5]);
  if ((elf_class != 1 && elf_class != 2) || (data != 1 && data != 2)) return Ok{};  // the reader says what it is
  return Checker(bytes, path, elf_class == 2, data == 1, done_with).run();
}

}  // namespace kpp::dwarf
