#include "src/definition/fprobe.h"

#include <cctype>

namespace kpp {

namespace {

// Rewrites every register in `fetch` that holds argument N at the entry as
// $argN ("+8(%di)" -> "+8($arg1)"). A register that is not an argument
// register is an error: an fprobe has no registers to read.
Result<std::string> registers_as_args(const std::string &fetch, const arch::Registers &regs, bool at_return) {
  std::string out;
  size_t i = 0;
  while (i < fetch.size()) {
    if (fetch[i] != '%') {
      out += fetch[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < fetch.size() && (std::isalnum(static_cast<unsigned char>(fetch[end])))) ++end;
    std::string reg = fetch.substr(i, end - i);
    size_t n = 0;
    while (n < regs.arg_regs.size() && regs.arg_regs[n] != reg) ++n;
    if (at_return)
      return Error("'" + fetch + "' reads " + reg + " at the return, which an fprobe cannot",
                   "read $retval, or an argument by name (its value at the entry), or drop --fprobe");
    if (n == regs.arg_regs.size())
      return Error("'" + fetch + "' reads " + reg + ", which holds no argument at the entry: an fprobe reads no registers",
                   "drop --fprobe for this probe (a kprobe reads any register)");
    out += "$arg" + std::to_string(n + 1);
    i = end;
  }
  return out;
}

}  // namespace

Result<TraceDefinition> to_fprobe(const TraceDefinition &kprobe, const arch::Registers &regs) {
  const std::string what = kprobe.group + ":" + kprobe.event;
  if (kprobe.kind != TraceDefinition::Kind::Kprobe)
    return Error(what + ": --fprobe is for kernel functions; a program's probe is a uprobe");
  if (kprobe.offset != 0 || kprobe.symbol.empty())
    return Error(what + ": an fprobe sits on a function's entry or return, not at " + kprobe.symbol + "+" +
                     std::to_string(kprobe.offset),
                 "probe FUNC or FUNC%return with --fprobe, or drop --fprobe for lines and offsets");
  TraceDefinition f = kprobe;
  f.fprobe = true;
  f.maxactive.reset();
  for (FetchArg &arg : f.args) {
    auto fetch = registers_as_args(arg.fetch, regs, kprobe.is_return);
    if (!fetch) return std::move(fetch).error().context(what + ": ");
    arg.fetch = std::move(*fetch);
  }
  return f;
}

bool kernel_has_fprobe_events(const std::string &tracefs_readme) {
  return tracefs_readme.find("f[:[<group>/][<event>]]") != std::string::npos;
}

bool kernel_has_btf_member_chains(const std::string &tracefs_readme) {
  return tracefs_readme.find("<argname>[->field[->field|.field...]]") != std::string::npos;
}

}  // namespace kpp
