#include "src/stack/frame_expansion.h"

namespace kpp {

std::vector<StackFrame> expand_frame(dwarf::DebugInfo &debug, uint64_t link, FrameAddress kind, const StackFrame &frame) {
  StackFrame outer = frame;
  // A return address is one past the call: the call's own line and inline
  // chain are those of the byte before it (as gdb and perf look it up).
  uint64_t code = kind == FrameAddress::ReturnAddress && link > 0 ? link - 1 : link;
  if (auto sym = debug.elf().symbolize(code)) {
    outer.sym = debug.display_symbol(sym->first);
    outer.off = link - (code - sym->second);
  }
  std::vector<dwarf::CodeFrame> code_frames = debug.has_dwarf() ? debug.frames_at(code) : std::vector<dwarf::CodeFrame>{};
  if (code_frames.empty()) return {outer};
  std::vector<StackFrame> out;
  out.reserve(code_frames.size());
  for (const dwarf::CodeFrame &c : code_frames) {
    StackFrame f = c.inlined ? frame : outer;
    if (c.inlined) {
      f.sym = c.function;
      f.off = 0;
    } else if (outer.sym.empty()) {
      f.sym = c.function;
    }
    f.file = c.file;
    f.line = c.line;
    f.inlined = c.inlined;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace kpp
