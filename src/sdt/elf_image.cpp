#include "src/sdt/elf_image.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

namespace kpp::sdt {

namespace {

// A symbol table larger than this is not read (a hostile file could claim
// any size); the only use is the rare `symbol(%rip)` operand.
constexpr uint64_t kMaxSymbolTable = 256ull << 20;

// Whether [offset, offset + size) lies inside a file of `file_size` bytes.
bool inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

template <class T>
T load(const std::string &bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

}  // namespace

Result<ElfImage> ElfImage::open(const std::string &path) {
  ElfImage image;
  image.path_ = path;
  image.fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!image.fd_.valid()) return Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(image.fd_.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error("'" + path + "' is not a regular file");
  image.file_size_ = static_cast<uint64_t>(st.st_size);
  if (Status st2 = image.read_headers(); !st2) return std::move(st2).error();
  return image;
}

std::optional<std::string> ElfImage::read(uint64_t offset, uint64_t size) const {
  if (!inside(offset, size, file_size_)) return std::nullopt;
  std::string out(size, '\0');
  if (size && !pread_fully(fd_.get(), out.data(), size, offset)) return std::nullopt;
  return out;
}

Status ElfImage::read_headers() {
  auto bad = [&](const std::string &why) { return Error("'" + path_ + "' is not a usable ELF file: " + why); };
  auto header = read(0, sizeof(Elf64_Ehdr));
  if (!header || std::memcmp(header->data(), ELFMAG, SELFMAG) != 0) return bad("no ELF header");
  if ((*header)[EI_CLASS] != ELFCLASS64 || (*header)[EI_DATA] != ELFDATA2LSB)
    return Error("'" + path_ + "' is not a 64-bit little-endian ELF file, the only kind whose SDT markers kprobe-probe reads");
  auto eh = load<Elf64_Ehdr>(*header, 0);
  machine_ = eh.e_machine;

  if (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) return bad("unexpected program header size");
  auto phdrs = read(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr));
  if (!phdrs) return bad("program headers outside the file");
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    auto ph = load<Elf64_Phdr>(*phdrs, i * sizeof(Elf64_Phdr));
    if (ph.p_type != PT_LOAD) continue;
    if (!inside(ph.p_offset, ph.p_filesz, file_size_)) return bad("a loadable segment outside the file");
    segments_.push_back({ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }

  if (eh.e_shoff == 0) return Ok{};  // no section headers: no notes
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return bad("unexpected section header size");
  uint64_t count = eh.e_shnum;
  uint64_t names_index = eh.e_shstrndx;
  auto first = read(eh.e_shoff, sizeof(Elf64_Shdr));
  if (!first) return bad("section headers outside the file");
  auto sh0 = load<Elf64_Shdr>(*first, 0);
  if (count == 0) count = sh0.sh_size;            // more than SHN_LORESERVE sections
  if (names_index == SHN_XINDEX) names_index = sh0.sh_link;
  auto shdrs = count <= file_size_ / sizeof(Elf64_Shdr) ? read(eh.e_shoff, count * sizeof(Elf64_Shdr)) : std::nullopt;
  if (!shdrs) return bad("section headers outside the file");
  std::vector<Elf64_Shdr> raw(count);
  for (size_t i = 0; i < count; ++i) raw[i] = load<Elf64_Shdr>(*shdrs, i * sizeof(Elf64_Shdr));
  std::string names;
  if (names_index < count && raw[names_index].sh_type == SHT_STRTAB) {
    auto n = read(raw[names_index].sh_offset, raw[names_index].sh_size);
    if (!n) return bad("section names outside the file");
    names = std::move(*n);
  }
  for (const Elf64_Shdr &s : raw) {
    ElfSection section{{}, s.sh_type, s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size};
    // c_str() ends the table with a NUL even when the file's does not.
    if (s.sh_name < names.size()) section.name = names.c_str() + s.sh_name;
    sections_.push_back(std::move(section));
  }
  return Ok{};
}

const ElfSection *ElfImage::section(std::string_view name) const {
  for (const ElfSection &s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Result<std::string> ElfImage::contents(const ElfSection &section, uint64_t limit) const {
  if (section.type == SHT_NOBITS) return Error("section " + section.name + " of '" + path_ + "' has no contents");
  if (section.size > limit)
    return Error("section " + section.name + " of '" + path_ + "' is " + std::to_string(section.size) +
                 " bytes, more than the " + std::to_string(limit) + " kprobe-probe reads");
  auto bytes = read(section.offset, section.size);
  if (!bytes) return Error("section " + section.name + " of '" + path_ + "' lies outside the file");
  return std::move(*bytes);
}

std::optional<uint64_t> ElfImage::file_offset(uint64_t address, SegmentUse use) const {
  uint32_t need = use == SegmentUse::Execute ? PF_X : PF_W;
  for (const ElfSegment &s : segments_) {
    if (!(s.flags & need) || address < s.address || address - s.address >= s.file_size) continue;
    return s.offset + (address - s.address);
  }
  return std::nullopt;
}

void ElfImage::read_symbols() const {
  symbols_.emplace();
  for (const char *table : {".symtab", ".dynsym"}) {
    const ElfSection *symtab = section(table);
    if (!symtab || symtab->type == SHT_NOBITS) continue;
    auto syms = contents(*symtab, kMaxSymbolTable);
    // The string table is the section sh_link names; found by name here
    // (.strtab/.dynstr) since ElfSection keeps no link.
    const ElfSection *strtab = section(std::string_view(table) == ".symtab" ? ".strtab" : ".dynstr");
    auto strings = strtab ? contents(*strtab, kMaxSymbolTable) : Result<std::string>(Error("no string table"));
    if (!syms || !strings) continue;
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= syms->size(); at += sizeof(Elf64_Sym)) {
      auto sym = load<Elf64_Sym>(*syms, at);
      if (sym.st_name == 0 || sym.st_name >= strings->size() || sym.st_shndx == SHN_UNDEF) continue;
      const char *name = strings->c_str() + sym.st_name;
      symbols_->emplace_back(std::string(name, strnlen(name, strings->size() - sym.st_name)), sym.st_value);
    }
  }
}

std::optional<uint64_t> ElfImage::symbol_address(std::string_view name) const {
  if (!symbols_) read_symbols();
  for (const auto &[symbol, address] : *symbols_)
    if (symbol == name) return address;
  return std::nullopt;
}

}  // namespace kpp::sdt
