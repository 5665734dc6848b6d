// How the frames of --stack are written: an indented line per frame under
// the event (text, the live view's pane), a "stack" array (JSON lines).
#pragma once

#include <string>
#include <vector>

#include "event/event.h"

namespace kpp {

// One frame, no indent, no newline:
//   "ffffffff8120f1f0 vfs_read+0x0 fs/read_write.c:450"
//   "000055d0c3a01189 inner (inlined) stack_fixture.c:12"
//   "00007f3e2a423d90 __libc_start_call_main+0x80 [/usr/lib/x86_64-linux-gnu/libc.so.6]"
//   "ffffffffc0a01234 lo_rw_aio+0x14 [loop]"
// The object (binary or module) is shown when no source line is.
std::string format_frame_text(const StackFrame &frame);

// The frame's function as the live pane's keys name it: "vfs_read+0x0",
// "inner (inlined)", "0x7f3e2a423d90" when unknown.
std::string frame_label(const StackFrame &frame);

}  // namespace kpp
