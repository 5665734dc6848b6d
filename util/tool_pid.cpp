#include "util/tool_pid.h"

#include <unistd.h>

namespace kpp {

namespace {
pid_t g_tool_pid = 0;
}

pid_t tool_pid() { return g_tool_pid ? g_tool_pid : getpid(); }

void set_tool_pid(pid_t pid) { g_tool_pid = pid; }

}  // namespace kpp
