// The one ELF header reader (dwarf/elf_reader.h): fields read one at a time
// through a bounds check, in the file's width and byte order (the gABI's
// ELF32/ELF64 header, section header and program header layouts).
#include "dwarf/elf_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/elf_notes.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

namespace {

constexpr uint32_t kShtSymtab = 2, kShtNote = 7, kShtNobits = 8, kShtDynsym = 11;
constexpr uint32_t kPtLoad = 1, kPtInterp = 3, kPtNote = 4;
constexpr uint16_t kEtDyn = 3;
constexpr bool kHostIsLittle = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

std::string number(uint64_t v) { return std::to_string(v); }

// A header table that does not fit: its message, and open()'s words for it.
Error outside(const std::string &what) { return Error(what, "its headers lie outside the file"); }

}  // namespace

std::optional<uint64_t> read_field(std::string_view bytes, uint64_t at, unsigned width, bool little) {
  if (at > bytes.size() || width > bytes.size() - at) return std::nullopt;
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    uint64_t byte = static_cast<uint8_t>(bytes[at + (little ? i : width - 1 - i)]);
    v |= byte << (8 * i);
  }
  return v;
}

std::optional<uint64_t> ElfReader::field(uint64_t at, unsigned width) const { return read_field(bytes_, at, width, little_); }

Result<ElfReader> ElfReader::open(const std::string &path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return Error("'" + path + "' is not a regular file");
  auto size = static_cast<size_t>(st.st_size);
  std::shared_ptr<const void> mapping;
  std::string_view bytes;
  if (size > 0) {
    void *m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (m == MAP_FAILED) return Error("cannot map '" + path + "': " + std::strerror(errno));
    mapping = std::shared_ptr<const void>(m, [size](const void *p) { ::munmap(const_cast<void *>(p), size); });
    bytes = {static_cast<const char *>(m), size};
  }
  auto reader = of(bytes);
  if (!reader) {
    const Error &e = reader.error();
    return Error("'" + path + "' is not a usable ELF file: " + e.message + (e.hint.empty() ? "" : " (" + e.hint + ")"));
  }
  reader->path_ = path;
  reader->mapping_ = std::move(mapping);
  return reader;
}

Result<ElfReader> ElfReader::of(std::string_view bytes) {
  ElfReader r;
  r.bytes_ = bytes;
  if (bytes.size() < 6 || bytes.substr(0, 4) != "\x7f" "ELF") return Error("no ELF header");
  uint8_t elf_class = static_cast<uint8_t>(bytes[4]), data = static_cast<uint8_t>(bytes[5]);
  if ((elf_class != 1 && elf_class != 2) || (data != 1 && data != 2))
    return Error("ELF class " + number(elf_class) + ", byte order " + number(data) + " are unknown");
  r.is64_ = elf_class == 2;
  r.little_ = data == 1;
  bool w = r.is64_;
  auto type = r.field(0x10, 2), machine = r.field(0x12, 2);
  auto phoff = r.field(w ? 0x20 : 0x1c, w ? 8 : 4), shoff = r.field(w ? 0x28 : 0x20, w ? 8 : 4);
  auto phentsize = r.field(w ? 0x36 : 0x2a, 2), phnum = r.field(w ? 0x38 : 0x2c, 2);
  auto shentsize = r.field(w ? 0x3a : 0x2e, 2), shnum = r.field(w ? 0x3c : 0x30, 2), shstrndx = r.field(w ? 0x3e : 0x32, 2);
  if (!type || !machine || !phoff || !shoff || !phentsize || !phnum || !shentsize || !shnum || !shstrndx)
    return outside("the ELF header is cut short");
  r.type_ = static_cast<uint16_t>(*type);
  r.machine_ = static_cast<uint16_t>(*machine);
  uint64_t segment_count = *phnum;
  r.names_index_ = *shstrndx;
  if (*shoff != 0)
    if (Status s = r.read_sections(*shoff, *shentsize, *shnum, segment_count); !s) return std::move(s).error();
  if (segment_count > 0 && *phoff != 0)
    if (Status s = r.read_segments(*phoff, *phentsize, segment_count); !s) return std::move(s).error();
  r.name_sections();
  return r;
}

Status ElfReader::read_sections(uint64_t shoff, uint64_t entry_size, uint64_t count, uint64_t &segment_count) {
  bool w = is64_;
  if (entry_size != (w ? 64u : 40u)) return Error("section headers of " + number(entry_size) + " bytes");
  auto word = [&](uint64_t at) { return field(at, w ? 8 : 4); };
  auto section_at = [&](uint64_t at, uint64_t index) -> std::optional<ElfSectionHeader> {
    auto name = field(at, 4), type = field(at + 4, 4), flags = word(at + 8), address = word(at + (w ? 16 : 12)),
         offset = word(at + (w ? 24 : 16)), size = word(at + (w ? 32 : 20)), link = field(at + (w ? 40 : 24), 4),
         info = field(at + (w ? 44 : 28), 4), align = word(at + (w ? 48 : 32)), entsize = word(at + (w ? 56 : 36));
    if (!name || !type || !flags || !address || !offset || !size || !link || !info || !align || !entsize) return std::nullopt;
    return ElfSectionHeader{index, static_cast<uint32_t>(*name), {}, static_cast<uint32_t>(*type), *flags, *address,
                            *offset, *size, *link, *info, *align, *entsize};
  };
  // Extended numbering: section 0 holds the counts that do not fit in 16 bits.
  auto first = section_at(shoff, 0);
  if (!first) return outside("the section header table (at " + number(shoff) + ") lies past the end of the file");
  if (count == 0) count = first->size;
  if (names_index_ == 0xffff) names_index_ = first->link;
  if (segment_count == 0xffff) segment_count = first->info;
  if (count > (bytes_.size() - shoff) / entry_size)
    return outside(number(count) + " section headers at " + number(shoff) + " do not fit in the file");
  for (uint64_t i = 0; i < count; ++i) sections_.push_back(*section_at(shoff + i * entry_size, i));
  return Ok{};
}

Status ElfReader::read_segments(uint64_t phoff, uint64_t entry_size, uint64_t count) {
  bool w = is64_;
  if (entry_size != (w ? 56u : 32u)) return Error("program headers of " + number(entry_size) + " bytes");
  if (phoff > bytes_.size() || count > (bytes_.size() - phoff) / entry_size)
    return outside(number(count) + " program headers at " + number(phoff) + " do not fit in the file");
  auto word = [&](uint64_t at) { return *field(at, w ? 8 : 4); };  // inside: the table fits
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t at = phoff + i * entry_size;
    ElfSegmentHeader s;
    s.type = static_cast<uint32_t>(*field(at, 4));
    s.flags = static_cast<uint32_t>(*field(at + (w ? 4 : 24), 4));
    s.offset = word(at + (w ? 8 : 4));
    s.address = word(at + (w ? 16 : 8));
    s.file_size = word(at + (w ? 32 : 16));
    s.memory_size = word(at + (w ? 40 : 20));
    segments_.push_back(s);
  }
  return Ok{};
}

void ElfReader::name_sections() {
  if (names_index_ >= sections_.size()) return;
  auto names = contents(sections_[names_index_]);
  if (!names) return;
  for (ElfSectionHeader &s : sections_) {
    if (s.name_offset >= names->size()) continue;
    std::string_view rest = names->substr(s.name_offset);
    s.name = rest.substr(0, rest.find('\0'));
  }
}

bool ElfReader::is_shared_library() const {
  if (type_ != kEtDyn) return false;
  for (const ElfSegmentHeader &s : segments_)
    if (s.type == kPtInterp) return false;
  return true;
}

const ElfSectionHeader *ElfReader::section(std::string_view name) const {
  for (const ElfSectionHeader &s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<std::string_view> ElfReader::read(uint64_t offset, uint64_t size) const {
  if (!lies_inside(offset, size, bytes_.size())) return std::nullopt;
  return bytes_.substr(offset, size);
}

std::optional<std::string_view> ElfReader::contents(const ElfSectionHeader &section) const {
  if (section.type == kShtNobits) return std::nullopt;
  return read(section.offset, section.size);
}

std::optional<uint64_t> ElfReader::file_offset(uint64_t address, uint32_t need_flags) const {
  for (const ElfSegmentHeader &s : segments_) {
    if (s.type != kPtLoad || (s.flags & need_flags) != need_flags) continue;
    if (address >= s.address && address - s.address < s.file_size) return s.offset + (address - s.address);
  }
  return std::nullopt;
}

std::optional<uint64_t> ElfReader::address_of_file_offset(uint64_t offset) const {
  for (const ElfSegmentHeader &s : segments_)
    if (s.type == kPtLoad && offset >= s.offset && offset - s.offset < s.file_size) return offset - s.offset + s.address;
  return std::nullopt;
}

std::optional<uint64_t> ElfReader::symbol_address(std::string_view name) const {
  const unsigned entry = is64_ ? 24 : 16, value_at = is64_ ? 8 : 4, shndx_at = is64_ ? 6 : 14;
  for (uint32_t kind : {kShtSymtab, kShtDynsym}) {
    for (const ElfSectionHeader &table : sections_) {
      if (table.type != kShtSymtab && table.type != kShtDynsym) continue;
      if (table.type != kind || table.link >= sections_.size()) continue;
      auto symbols = contents(table);
      auto strings = contents(sections_[table.link]);
      if (!symbols || !strings) continue;
      uint64_t base = static_cast<uint64_t>(symbols->data() - bytes_.data());
      for (uint64_t at = 0; at + entry <= symbols->size(); at += entry) {
        uint64_t name_at = *field(base + at, 4), shndx = *field(base + at + shndx_at, 2);
        if (name_at == 0 || name_at >= strings->size() || shndx == 0) continue;
        std::string_view rest = strings->substr(name_at);
        if (rest.substr(0, rest.find('\0')) == name) return field(base + at + value_at, is64_ ? 8 : 4);
      }
    }
  }
  return std::nullopt;
}

std::string ElfReader::build_id() const {
  std::string id;
  for (const ElfSegmentHeader &s : segments_)
    if (s.type == kPtNote && id.empty())
      if (auto notes = read(s.offset, s.file_size)) id = gnu_build_id(*notes, little_ != kHostIsLittle);
  for (const ElfSectionHeader &s : sections_)
    if (s.type == kShtNote && id.empty())
      if (auto notes = contents(s)) id = gnu_build_id(*notes, little_ != kHostIsLittle);
  return id;
}

}  // namespace kpp::dwarf
