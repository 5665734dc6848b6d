#include "src/sdt/sdt_operand.h"

#include <elf.h>

#include <cctype>
#include <charconv>
#include <optional>

#include "util/strings.h"

namespace kpp::sdt {

namespace {

// x86_64 AT&T register names, every width, to the names the kernel's x86
// fetch-args use (pt_regs members). A narrower register reads the low bytes
// of the whole one, which the size's type then cuts: right on little-endian.
struct RegisterName {
  std::string_view names[4];  // 64, 32, 16 and 8-bit spellings
  std::string_view kernel;
};
constexpr RegisterName kX86Registers[] = {
    {{"rax", "eax", "ax", "al"}, "ax"},     {{"rbx", "ebx", "bx", "bl"}, "bx"},
    {{"rcx", "ecx", "cx", "cl"}, "cx"},     {{"rdx", "edx", "dx", "dl"}, "dx"},
    {{"rsi", "esi", "si", "sil"}, "si"},    {{"rdi", "edi", "di", "dil"}, "di"},
    {{"rbp", "ebp", "bp", "bpl"}, "bp"},    {{"rsp", "esp", "sp", "spl"}, "sp"},
    {{"r8", "r8d", "r8w", "r8b"}, "r8"},    {{"r9", "r9d", "r9w", "r9b"}, "r9"},
    {{"r10", "r10d", "r10w", "r10b"}, "r10"}, {{"r11", "r11d", "r11w", "r11b"}, "r11"},
    {{"r12", "r12d", "r12w", "r12b"}, "r12"}, {{"r13", "r13d", "r13w", "r13b"}, "r13"},
    {{"r14", "r14d", "r14w", "r14b"}, "r14"}, {{"r15", "r15d", "r15w", "r15b"}, "r15"},
    {{"rip", "", "", ""}, "ip"},
};

std::optional<std::string_view> x86_register(std::string_view att) {
  for (const RegisterName &r : kX86Registers)
    for (std::string_view n : r.names)
      if (!n.empty() && n == att) return r.kernel;
  return std::nullopt;
}

// A decimal or 0x number with an optional sign; the whole text must be it.
std::optional<int64_t> parse_signed(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || end != s.data() + s.size() || value > (uint64_t{1} << 63)) return std::nullopt;
  return negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}

std::string signed_offset(int64_t v) { return v < 0 ? "-" + std::to_string(-v) : "+" + std::to_string(v); }

bool is_symbol_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

// "symbol", "symbol+8" or "symbol-8" -> its link-time address.
Result<uint64_t> symbol_address(std::string_view text, const OperandContext &where) {
  size_t end = 0;
  while (end < text.size() && is_symbol_char(text[end])) ++end;
  std::string_view name = text.substr(0, end);
  int64_t addend = 0;
  if (end < text.size()) {
    auto a = parse_signed(text.substr(end));
    if (!a) return Error("'" + std::string(text) + "' is not SYMBOL[+OFFSET]");
    addend = *a;
  }
  auto address = where.elf.symbol_address(name);
  if (!address) return Error("no symbol '" + std::string(name) + "' in '" + where.elf.path() + "'");
  return *address + static_cast<uint64_t>(addend);
}

// `text` is the operand after its size; `whole` is all of it, for messages.
Result<SdtOperand> translate_x86(std::string_view text, std::string_view whole, SdtOperand op, const OperandContext &where) {
  auto fail = [&](const std::string &why) -> Result<SdtOperand> {
    return Error("SDT operand '" + std::string(whole) + "': " + why);
  };
  if (text.empty()) return fail("it is empty");
  if (text[0] == '%') {
    auto reg = x86_register(text.substr(1));
    if (!reg || *reg == "ip") return fail("the kernel's fetch-args have no register '" + std::string(text) + "'");
    op.kind = SdtOperand::Kind::Register;
    op.fetch = "%" + std::string(*reg);
    return op;
  }
  if (text[0] == '$') {
    auto value = parse_signed(text.substr(1));
    if (!value) return fail("an immediate that is not a number (a symbol's address?)");
    op.kind = SdtOperand::Kind::Immediate;
    op.fetch = "\\" + std::to_string(*value);
    return op;
  }
  // DISP(%REG), SYMBOL[+OFF](%rip), or SYMBOL (a global in non-PIC code).
  size_t open = text.find('(');
  op.kind = SdtOperand::Kind::Memory;
  std::string_view disp = text.substr(0, open);
  std::optional<std::string_view> reg;
  if (open != std::string_view::npos) {
    if (text.back() != ')') return fail("expected DISP(%REG)");
    std::string_view inner = text.substr(open + 1, text.size() - open - 2);
    if (inner.find(',') != std::string_view::npos)
      return fail("an indexed address (base, index, scale) cannot be expressed as a fetch-arg");
    if (inner.empty() || inner[0] != '%') return fail("expected a register inside the parentheses");
    reg = x86_register(inner.substr(1));
    if (!reg) return fail("unknown register '" + std::string(inner) + "'");
  }
  if (!reg || *reg == "ip") {
    // A global: its address relative to the marker's segment, which the
    // kernel's "@+OFFSET" adds to where that segment is mapped.
    auto address = symbol_address(disp, where);
    if (!address) return fail(address.error().message);
    uint64_t segment_bias = where.probe_address - where.probe_file_offset;
    if (*address < segment_bias) return fail("the symbol lies before the marker's segment");
    op.fetch = "@+" + hex(*address - segment_bias);
    return op;
  }
  int64_t offset = 0;
  if (!disp.empty()) {
    auto d = parse_signed(disp);
    if (!d) return fail("the displacement '" + std::string(disp) + "' is not a number");
    offset = *d;
  }
  op.fetch = signed_offset(offset) + "(%" + std::string(*reg) + ")";
  return op;
}

}  // namespace

std::vector<std::string> split_operands(std::string_view args) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < args.size()) {
    while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    size_t start = i;
    while (i < args.size() && !std::isspace(static_cast<unsigned char>(args[i]))) ++i;
    if (i > start) out.emplace_back(args.substr(start, i - start));
  }
  return out;
}

Result<SdtOperand> translate_operand(std::string_view text, const OperandContext &where) {
  const std::string_view whole = text;
  SdtOperand op;
  // "N@OPERAND": the size in bytes, negative when signed. An '@' further in
  // is part of the operand (a versioned symbol).
  size_t at = text.find('@');
  if (at != std::string_view::npos && at > 0 && parse_signed(text.substr(0, at))) {
    int64_t size = *parse_signed(text.substr(0, at));
    op.is_signed = size < 0;
    op.size = static_cast<int>(size < 0 ? -size : size);
    if (op.size != 1 && op.size != 2 && op.size != 4 && op.size != 8)
      return Error("SDT operand '" + std::string(whole) + "': size " + std::to_string(size) + " is not 1, 2, 4 or 8 bytes");
    text.remove_prefix(at + 1);
  }
  if (where.elf.machine() != EM_X86_64)
    return Error("SDT operand '" + std::string(whole) + "': the operand syntax of ELF machine " +
                 std::to_string(where.elf.machine()) + " is not translated (only x86_64's)");
  return translate_x86(text, whole, std::move(op), where);
}

std::string operand_type(const SdtOperand &operand) {
  if (operand.size == 0) return {};
  return (operand.is_signed ? "s" : "u") + std::to_string(operand.size * 8);
}

Result<std::string> dereference(const SdtOperand &operand) {
  if (operand.kind == SdtOperand::Kind::Immediate)
    return Error("the operand is a constant (" + operand.fetch.substr(1) + "), not a pointer");
  return "+0(" + operand.fetch + ")";
}

}  // namespace kpp::sdt
