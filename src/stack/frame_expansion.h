// One stack address turned into the frames a developer reads: the ELF
// symbol and the offset into it, and, from DWARF, the source line and the
// inlined calls at that address (innermost first, as gdb's `bt` lists them).
#pragma once

#include <cstdint>
#include <vector>

#include "dwarf/debug_info.h"
#include "event/event.h"

namespace kpp {

// Is `frame` (ip, user, object set) the first of its stack, whose ip is
// where the code was, or a return address (the code is the call before it)?
enum class FrameAddress { Exact, ReturnAddress };

// The frames of `frame`, whose code is at link-time address `link` in
// `debug` (`link` is the return address itself for ReturnAddress: the
// source line is looked up at the call, one byte before). Always at least
// one frame: the symbol alone when DWARF says nothing; `frame` unchanged
// when the symbol table does not know the address either.
std::vector<StackFrame> expand_frame(dwarf::DebugInfo &debug, uint64_t link, FrameAddress kind, const StackFrame &frame);

}  // namespace kpp
