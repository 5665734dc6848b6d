// How frames are written: text lines and the JSON "stack" array.
#include <gtest/gtest.h>

#include "event/json_format.h"
#include "event/stack_format.h"

namespace kpp {
namespace {

StackFrame frame(uint64_t ip, std::string sym, uint64_t off, std::string file, int line, bool inlined) {
  StackFrame f;
  f.ip = ip;
  f.sym = std::move(sym);
  f.off = off;
  f.file = std::move(file);
  f.line = line;
  f.inlined = inlined;
  return f;
}

TEST(StackFormat, TextFrames) {
  EXPECT_EQ(format_frame_text(frame(0xffffffff8120f1f0, "vfs_read", 0, "fs/read_write.c", 450, false)),
            "ffffffff8120f1f0 vfs_read+0x0 fs/read_write.c:450");
  EXPECT_EQ(format_frame_text(frame(0x55d0c3a01189, "leaf", 0, "t.c", 12, true)), "000055d0c3a01189 leaf (inlined) t.c:12");
  StackFrame lib = frame(0x7f3e2a423d90, "__libc_start_call_main", 0x80, "", 0, false);
  lib.object = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  EXPECT_EQ(format_frame_text(lib),
            "00007f3e2a423d90 __libc_start_call_main+0x80 [/usr/lib/x86_64-linux-gnu/libc.so.6]");
  StackFrame mod = frame(0xffffffffc0a01234, "lo_rw_aio", 0x14, "", 0, false);
  mod.object = "[loop]";
  EXPECT_EQ(format_frame_text(mod), "ffffffffc0a01234 lo_rw_aio+0x14 [loop]");
  EXPECT_EQ(format_frame_text(frame(0x1234, "", 0, "", 0, false)), "0000000000001234 0x1234");
}

TEST(StackFormat, JsonStackAfterTheFields) {
  Event e;
  e.system = "g";
  e.name = "e";
  StackFrame in = frame(0x1189, "leaf", 0, "t.c", 12, true);
  in.user = true;
  StackFrame out = frame(0x1189, "b", 9, "t.c", 18, false);
  out.user = true;
  out.object = "/bin/t";
  e.stack = {in, out, frame(0x2000, "", 0, "", 0, false)};
  std::string json = format_event_json(e);
  EXPECT_NE(json.find(R"("fields":{},"stack":[{"ip":"0x1189","sym":"leaf","off":null,"file":"t.c","line":12,)"
                      R"("inlined":true,"user":true},{"ip":"0x1189","sym":"b","off":9,"file":"t.c","line":18,)"
                      R"("inlined":false,"user":true,"object":"/bin/t"},{"ip":"0x2000","sym":null,"off":null,)"
                      R"("file":null,"line":null,"inlined":false,"user":false}]})"),
            std::string::npos)
      << json;
  e.stack.clear();
  EXPECT_EQ(format_event_json(e).find("stack"), std::string::npos);
}

}  // namespace
}  // namespace kpp
