// dwarf/elf/elf_image.h on a program the build links (and a copy it strips,
// whose symbols are in a separate debug file): what a user sees of the ELF
// image, the symbol an address is in, the file offset a uprobe is placed at,
// the build-id, checked against this test's own reading of the ELF file
// (<elf.h>'s structures, no LLVM): the symbol table as nm shows it, the
// PT_LOAD headers, the .note.gnu.build-id bytes.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "dwarf/elf/elf_image.h"
#include "dwarf/elf/instruction_decoder.h"
#include "dwarf/elf_reader.h"

namespace kpp::dwarf {
namespace {

// A 64-bit little-endian ELF file read with <elf.h> alone: the oracle.
class RawElf {
 public:
  explicit RawElf(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bool ok() const { return bytes_.size() >= sizeof(Elf64_Ehdr) && std::memcmp(bytes_.data(), ELFMAG, SELFMAG) == 0; }
  const Elf64_Ehdr &header() const { return at<Elf64_Ehdr>(0); }
  const std::string &bytes() const { return bytes_; }

  // The symbol named `name` in .symtab: its value is the address nm prints.
  std::optional<Elf64_Sym> symbol(const std::string &name) const {
    for (const Elf64_Shdr &sh : sections()) {
      if (sh.sh_type != SHT_SYMTAB) continue;
      const Elf64_Shdr &strings = sections()[sh.sh_link];
      for (uint64_t off = sh.sh_offset; off + sizeof(Elf64_Sym) <= sh.sh_offset + sh.sh_size; off += sizeof(Elf64_Sym)) {
        const Elf64_Sym &sym = at<Elf64_Sym>(off);
        if (name == bytes_.c_str() + strings.sh_offset + sym.st_name) return sym;
      }
    }
    return std::nullopt;
  }
  std::vector<Elf64_Phdr> loads() const {
    std::vector<Elf64_Phdr> found;
    for (int i = 0; i < header().e_phnum; ++i) {
      const Elf64_Phdr &ph = at<Elf64_Phdr>(header().e_phoff + i * sizeof(Elf64_Phdr));
      if (ph.p_type == PT_LOAD) found.push_back(ph);
    }
    return found;
  }
  // The `count` bytes at link-time `address`, read through the PT_LOAD that holds them.
  std::string bytes_at(uint64_t address, size_t count) const {
    for (const Elf64_Phdr &ph : loads())
      if (address >= ph.p_vaddr && address + count <= ph.p_vaddr + ph.p_filesz)
        return bytes_.substr(address - ph.p_vaddr + ph.p_offset, count);
    return "";
  }
  // The descriptor of the .note.gnu.build-id section's note, as hex.
  std::string build_id() const {
    const Elf64_Shdr &names = sections()[header().e_shstrndx];
    for (const Elf64_Shdr &sh : sections()) {
      if (std::string(bytes_.c_str() + names.sh_offset + sh.sh_name) != ".note.gnu.build-id") continue;
      const Elf64_Nhdr &note = at<Elf64_Nhdr>(sh.sh_offset);
      if (note.n_type != NT_GNU_BUILD_ID || note.n_namesz != 4) return "";
      std::string hex;
      for (uint32_t i = 0; i < note.n_descsz; ++i) {
        char digits[3];
        std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned char>(bytes_[sh.sh_offset + 16 + i]));
        hex += digits;
      }
      return hex;
    }
    return "";
  }

 private:
  template <class T>
  const T &at(uint64_t offset) const {
    return *reinterpret_cast<const T *>(bytes_.data() + offset);
  }
  std::vector<Elf64_Shdr> sections() const {
    std::vector<Elf64_Shdr> found;
    for (int i = 0; i < header().e_shnum; ++i) found.push_back(at<Elf64_Shdr>(header().e_shoff + i * sizeof(Elf64_Shdr)));
    return found;
  }
  std::string bytes_;
};

class ElfImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(raw_.ok()) << KPP_ELF_IMAGE_FIXTURE;
    auto sym = raw_.symbol("twice");
    ASSERT_TRUE(sym && ELF64_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_size > 3) << "twice in .symtab";
    twice_ = *sym;
  }
  RawElf raw_{KPP_ELF_IMAGE_FIXTURE};
  Elf64_Sym twice_{};
};

TEST_F(ElfImageTest, AnAddressInsideAFunctionIsThatFunctionPlusTheOffset) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  auto sym = image->symbolize(twice_.st_value + 3);
  ASSERT_TRUE(sym);
  EXPECT_EQ(sym->first, "twice");
  EXPECT_EQ(sym->second, 3u);
  EXPECT_EQ(image->function_symbol_addresses("twice"), std::vector<uint64_t>{twice_.st_value});
  auto markers = image->symbol_addresses({"twice", "no_such_symbol"});
  EXPECT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers["twice"], twice_.st_value);
}

// One probe asks the same questions several times (its body, the name held
// twice, its site for the check, the event's name, the place); the answers
// to later questions, some asked before and some new, are those of a table
// asked once.
TEST_F(ElfImageTest, QuestionsAskedAgainGetTheSameAnswers) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  auto main_sym = raw_.symbol("main");
  ASSERT_TRUE(main_sym);
  EXPECT_EQ(image->symbol_addresses({"twice"})["twice"], twice_.st_value);
  auto mixed = image->symbol_addresses({"no_such_symbol", "main", "twice"});
  EXPECT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed["main"], main_sym->st_value);
  EXPECT_EQ(mixed["twice"], twice_.st_value);
  EXPECT_EQ(image->symbol_addresses({"no_such_symbol"}).size(), 0u);
  for (int again = 0; again < 3; ++again) {
    auto sym = image->symbolize(twice_.st_value + 3);
    ASSERT_TRUE(sym);
    EXPECT_EQ(sym->first, "twice");
    EXPECT_EQ(sym->second, 3u);
    auto in_main = image->symbolize(main_sym->st_value);
    ASSERT_TRUE(in_main);
    EXPECT_EQ(in_main->first, "main");
    EXPECT_EQ(in_main->second, 0u);
  }
}

TEST_F(ElfImageTest, FileOffsetsAreThoseOfTheLoadSegments) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  uint64_t address = twice_.st_value + 3;
  std::optional<uint64_t> expected;
  for (const Elf64_Phdr &ph : raw_.loads())
    if (address >= ph.p_vaddr && address < ph.p_vaddr + ph.p_filesz) expected = address - ph.p_vaddr + ph.p_offset;
  ASSERT_TRUE(expected) << "the fixture's code is in a PT_LOAD";
  auto offset = image->file_offset(address);
  ASSERT_TRUE(offset) << offset.error().message;
  EXPECT_EQ(*offset, *expected);
  EXPECT_EQ(image->address_of_file_offset(*expected), address);
  // An address no segment loads is refused with the file's name.
  auto nowhere = image->file_offset(0xfff0000000000000);
  ASSERT_FALSE(nowhere);
  EXPECT_NE(nowhere.error().message.find(KPP_ELF_IMAGE_FIXTURE), std::string::npos) << nowhere.error().message;
}

TEST_F(ElfImageTest, TheBuildIdAndMachineAreTheFilesOwn) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  std::string build_id = raw_.build_id();
  ASSERT_EQ(build_id.size(), 40u) << "a sha1 build-id (the fixture links with --build-id=sha1)";
  EXPECT_EQ(image->build_id(), build_id);
  EXPECT_EQ(image->machine(), raw_.header().e_machine);
  EXPECT_FALSE(image->is_shared_library()) << "a program (PT_INTERP), not a library";
  EXPECT_FALSE(image->is_kernel());
}

TEST_F(ElfImageTest, AConstantStringIsFoundInReadOnlyData) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  auto text = raw_.symbol("kpp_fixture_text");
  ASSERT_TRUE(text);
  EXPECT_EQ(image->find_read_only_bytes("elf-image fixture constant"), text->st_value);
  EXPECT_EQ(image->find_read_only_bytes("not in the fixture at all"), std::nullopt);
}

// FUNC+OFFS must land on an instruction: with the disassembler linked in
// (KPP_X86_DISASSEMBLER), decoding from the entry tells. At -O0 gcc opens
// twice with push %rbp (55) and mov %rsp,%rbp (48 89 e5), after an endbr64
// (f3 0f 1e fa) when it protects branches.
TEST_F(ElfImageTest, AnInstructionStartsWhereTheDecoderLands) {
  auto image = ElfImage::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(image) << image.error().message;
  uint64_t entry = twice_.st_value, end = twice_.st_value + twice_.st_size;
  if (!image->code().decodes_instructions()) {
    EXPECT_EQ(image->code().starts_instruction(entry, end, entry), std::nullopt);
    GTEST_SKIP() << "built without KPP_X86_DISASSEMBLER: the line table alone decides";
  }
  std::string code = raw_.bytes_at(entry, 8);
  size_t frame = code.find("\x55\x48\x89\xe5");
  ASSERT_TRUE(frame == 0 || frame == 4) << "twice does not open with push %rbp; mov %rsp,%rbp";
  EXPECT_EQ(image->code().starts_instruction(entry, end, entry + frame), true);
  EXPECT_EQ(image->code().starts_instruction(entry, end, entry + frame + 1), true);
  EXPECT_EQ(image->code().starts_instruction(entry, end, entry + frame + 2), false);
}

// Go's stack check at a function's entry, in the three forms Go's
// assembler writes (cmd/internal/obj/x86's stacksplit), as `go build`
// encodes them: the probe goes after its jbe, whose target (the call of
// morestack) is inside the function. Code that starts otherwise has none.
TEST(InstructionDecoder, FindsTheEndOfGosStackCheck) {
  std::unique_ptr<InstructionDecoder> decoder = InstructionDecoder::for_machine(EM_X86_64);
  if (!decoder) GTEST_SKIP() << "built without KPP_X86_DISASSEMBLER";
  auto after = [&](std::string code) {
    code.resize(64, '\x90');  // nops: the rest of the function, where jbe lands
    return decoder->after_go_stack_check(code, 0x1000);
  };
  // cmp rsp, [r14+0x10]; jbe +0x20
  EXPECT_EQ(after(std::string("\x49\x3b\x66\x10\x76\x20", 6)), 0x1006u);
  // lea r12, [rsp-0x218]; cmp r12, [r14+0x10]; jbe (rel32) +0x10 (main.Deep in tests/lang/go/deep.go)
  EXPECT_EQ(after(std::string("\x4c\x8d\xa4\x24\xe8\xfd\xff\xff\x4d\x3b\x66\x10\x0f\x86\x10\x00\x00\x00", 18)),
            0x1012u);
  // mov r12, rsp; sub r12, 0x1000; jb +0x20; cmp r12, [r14+0x10]; jbe +0x18
  EXPECT_EQ(after(std::string("\x49\x89\xe4\x49\x81\xec\x00\x10\x00\x00\x72\x20\x4d\x3b\x66\x10\x76\x18", 18)),
            0x1012u);
  // No check (a NOSPLIT function): mov rcx, rax; ret.
  EXPECT_EQ(after(std::string("\x48\x89\xc1\xc3", 4)), std::nullopt);
  // A compare with the stack guard whose jbe leaves the code is not Go's check.
  EXPECT_EQ(decoder->after_go_stack_check(std::string("\x49\x3b\x66\x10\x76\x7f", 6), 0x1000), std::nullopt);
  // Another compare (with g's stackguard1, at 0x18) is not it either.
  EXPECT_EQ(after(std::string("\x49\x3b\x66\x18\x76\x20", 6)), std::nullopt);
}

// The one ELF header reader (dwarf/elf_reader.h), which src/sdt reads
// markers with: what <elf.h>'s structures say of the same file.
TEST_F(ElfImageTest, TheHeaderReaderReadsWhatElfHReads) {
  auto elf = ElfReader::open(KPP_ELF_IMAGE_FIXTURE);
  ASSERT_TRUE(elf) << elf.error().message;
  EXPECT_EQ(elf->machine(), raw_.header().e_machine);
  EXPECT_EQ(elf->sections().size(), raw_.header().e_shnum);
  EXPECT_EQ(elf->build_id(), raw_.build_id());
  EXPECT_EQ(elf->symbol_address("twice"), twice_.st_value);
  EXPECT_FALSE(elf->symbol_address("no_such_symbol"));
  auto offset = elf->file_offset(twice_.st_value, PF_X);
  ASSERT_TRUE(offset);
  EXPECT_EQ(elf->read(*offset, 4).value_or(""), raw_.bytes_at(twice_.st_value, 4));
  EXPECT_EQ(elf->address_of_file_offset(*offset), twice_.st_value);
  EXPECT_FALSE(elf->file_offset(twice_.st_value, PF_W)) << "code lies in no writable segment";
}

// A file cut short before its section header table: an error that names the
// table and the numbers, never a read past the end.
TEST_F(ElfImageTest, TheHeaderReaderRefusesTablesPastTheEnd) {
  std::string cut = raw_.bytes().substr(0, raw_.header().e_shoff + sizeof(Elf64_Shdr) + 10);
  auto elf = ElfReader::of(cut);
  ASSERT_FALSE(elf);
  EXPECT_NE(elf.error().message.find(std::to_string(raw_.header().e_shnum) + " section headers at " +
                                     std::to_string(raw_.header().e_shoff) + " do not fit in the file"),
            std::string::npos)
      << elf.error().message;
  EXPECT_FALSE(ElfReader::of(raw_.bytes().substr(0, 40))) << "an ELF header cut short";
}

TEST_F(ElfImageTest, AStrippedProgramTakesItsDebugFilesSymbols) {
  auto stripped = ElfImage::open(KPP_ELF_IMAGE_STRIPPED);
  ASSERT_TRUE(stripped) << stripped.error().message;
  EXPECT_EQ(stripped->build_id(), raw_.build_id()) << "strip keeps the note";
  EXPECT_EQ(stripped->symbolize(twice_.st_value + 3), std::nullopt) << "no .symtab, and twice is not exported";
  auto debug = ElfImage::open(std::string(KPP_ELF_IMAGE_STRIPPED) + ".debug");
  ASSERT_TRUE(debug) << debug.error().message;
  stripped->adopt_symbols_of(debug->object(), debug->path(), debug->mapping());
  auto sym = stripped->symbolize(twice_.st_value + 3);
  ASSERT_TRUE(sym);
  EXPECT_EQ(sym->first, "twice");
  EXPECT_EQ(sym->second, 3u);
}

TEST_F(ElfImageTest, OpeningAStrippedProgramFindsItsDebugFileAndSymbols) {
  auto info = DebugInfo::open(KPP_ELF_IMAGE_STRIPPED);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ((*info)->provenance().debug_path(), std::string(KPP_ELF_IMAGE_STRIPPED) + ".debug") << (*info)->provenance().dwarf_note();
  EXPECT_EQ((*info)->elf().build_id(), raw_.build_id());
  auto sym = (*info)->elf().symbolize(twice_.st_value + 3);
  ASSERT_TRUE(sym);
  EXPECT_EQ(sym->first, "twice");
  EXPECT_EQ(sym->second, 3u);
  // Offsets stay the program's: those of its own load segments.
  auto offset = (*info)->elf().file_offset(twice_.st_value);
  ASSERT_TRUE(offset) << offset.error().message;
  EXPECT_EQ((*info)->elf().address_of_file_offset(*offset), twice_.st_value);
}

}  // namespace
}  // namespace kpp::dwarf
