#include "dwarf/elf/instruction_decoder.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <string>

// Only the x86 target is linked (llvm-config x86disassembler x86desc x86info):
// its registration functions, not InitializeAll*, which would pull in every target.
extern "C" void LLVMInitializeX86TargetInfo();
extern "C" void LLVMInitializeX86TargetMC();
extern "C" void LLVMInitializeX86Disassembler();

namespace kpp::dwarf {

namespace {

class McDecoder final : public InstructionDecoder {
 public:
  static std::unique_ptr<McDecoder> make(const std::string &triple_name) {
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple_name, error);
    if (!target) return nullptr;
    auto d = std::unique_ptr<McDecoder>(new McDecoder);
    llvm::Triple triple(triple_name);
    d->registers_.reset(target->createMCRegInfo(triple_name));
    if (!d->registers_) return nullptr;
    llvm::MCTargetOptions options;
    d->asm_info_.reset(target->createMCAsmInfo(*d->registers_, triple_name, options));
    d->subtarget_.reset(target->createMCSubtargetInfo(triple_name, "", ""));
    if (!d->asm_info_ || !d->subtarget_) return nullptr;
    d->context_ = std::make_unique<llvm::MCContext>(triple, d->asm_info_.get(), d->registers_.get(), d->subtarget_.get());
    d->disassembler_.reset(target->createMCDisassembler(*d->subtarget_, *d->context_));
    d->instructions_.reset(target->createMCInstrInfo());
    if (!d->disassembler_ || !d->instructions_) return nullptr;
    d->analysis_.reset(target->createMCInstrAnalysis(d->instructions_.get()));
    if (!d->analysis_) return nullptr;
    // Intel syntax (variant 1), to match Go's stack check by its text.
    d->printer_.reset(target->createMCInstPrinter(triple, 1, *d->asm_info_, *d->instructions_, *d->registers_));
    if (!d->printer_) return nullptr;
    return d;
  }

  std::optional<bool> starts_instruction(std::string_view code, uint64_t code_address, uint64_t address) override {
    if (address < code_address || address - code_address > code.size()) return std::nullopt;
    llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(code.data()), code.size());
    uint64_t at = 0, want = address - code_address;
    while (at < want) {
      llvm::MCInst inst;
      uint64_t size = 0;
      auto status = disassembler_->getInstruction(inst, size, bytes.slice(at), code_address + at, llvm::nulls());
      if (status != llvm::MCDisassembler::Success || size == 0) return std::nullopt;
      at += size;
    }
    return at == want;
  }

  Exits exits(std::string_view code, uint64_t code_address) override {
    Exits found;
    llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(code.data()), code.size());
    for (uint64_t at = 0; at < bytes.size();) {
      llvm::MCInst inst;
      uint64_t size = 0;
      auto status = disassembler_->getInstruction(inst, size, bytes.slice(at), code_address + at, llvm::nulls());
      if (status != llvm::MCDisassembler::Success || size == 0) {
        found.undecodable = code_address + at;
        break;
      }
      const llvm::MCInstrDesc &desc = instructions_->get(inst.getOpcode());
      uint64_t target = 0;
      if (desc.isReturn()) {
        found.returns.push_back(code_address + at);
      } else if (desc.isBranch() && !found.jumps_out &&
                 analysis_->evaluateBranch(inst, code_address + at, size, target) &&
                 (target < code_address || target >= code_address + bytes.size())) {
        found.jumps_out = code_address + at;
      }
      at += size;
    }
    return found;
  }

  std::optional<uint64_t> after_go_stack_check(std::string_view code, uint64_t code_address) override {
    llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(code.data()), code.size());
    uint64_t at = 0;
    // At most the huge frame's form: mov, sub, jb, then the compare.
    for (int n = 0; n < 4; ++n) {
      std::optional<Decoded> inst = decode(bytes, code_address, at);
      if (!inst) return std::nullopt;
      at += inst->size;
      if (inst->text == "cmp rsp, qword ptr [r14 + 16]" || inst->text == "cmp r12, qword ptr [r14 + 16]") {
        std::optional<Decoded> jump = decode(bytes, code_address, at);
        uint64_t target = 0;
        if (!jump || !jump->text.starts_with("jbe ") ||
            !analysis_->evaluateBranch(jump->inst, code_address + at, jump->size, target) ||
            target < code_address || target >= code_address + bytes.size())
          return std::nullopt;
        return code_address + at + jump->size;
      }
      // The larger frames' setup of r12 (and the huge one's underflow check).
      if (!inst->text.starts_with("lea r12, [rsp - ") && inst->text != "mov r12, rsp" &&
          !inst->text.starts_with("sub r12, ") && !inst->text.starts_with("jb "))
        return std::nullopt;
    }
    return std::nullopt;
  }

 private:
  struct Decoded {
    llvm::MCInst inst;
    uint64_t size = 0;
    std::string text;  // as Intel syntax prints it, blanks collapsed: "cmp rsp, qword ptr [r14 + 16]"
  };

  std::optional<Decoded> decode(llvm::ArrayRef<uint8_t> bytes, uint64_t code_address, uint64_t at) {
    if (at >= bytes.size()) return std::nullopt;
    Decoded d;
    auto status = disassembler_->getInstruction(d.inst, d.size, bytes.slice(at), code_address + at, llvm::nulls());
    if (status != llvm::MCDisassembler::Success || d.size == 0) return std::nullopt;
    std::string printed;
    llvm::raw_string_ostream out(printed);
    printer_->printInst(&d.inst, code_address + at, "", *subtarget_, out);
    out.flush();
    for (char c : printed) {
      if (c == '\t') c = ' ';
      if (c != ' ' || (!d.text.empty() && d.text.back() != ' ')) d.text += c;
    }
    while (!d.text.empty() && d.text.back() == ' ') d.text.pop_back();
    return d;
  }

  McDecoder() = default;
  std::unique_ptr<llvm::MCRegisterInfo> registers_;
  std::unique_ptr<llvm::MCAsmInfo> asm_info_;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget_;
  std::unique_ptr<llvm::MCContext> context_;
  std::unique_ptr<llvm::MCDisassembler> disassembler_;
  std::unique_ptr<llvm::MCInstrInfo> instructions_;
  std::unique_ptr<llvm::MCInstrAnalysis> analysis_;
  std::unique_ptr<llvm::MCInstPrinter> printer_;
};

}  // namespace

std::unique_ptr<InstructionDecoder> InstructionDecoder::for_machine(uint16_t e_machine) {
  if (e_machine != llvm::ELF::EM_X86_64) return nullptr;
  static bool registered = [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
    return true;
  }();
  (void)registered;
  return McDecoder::make("x86_64-unknown-linux-gnu");
}

}  // namespace kpp::dwarf
