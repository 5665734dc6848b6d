// fprobe events (kernel 6.x, CONFIG_FPROBE_EVENTS): "f:GROUP/EVENT FUNC[%return] ARGS".
// An fprobe sits on a function's entry (through ftrace, cheaper than a kprobe's
// breakpoint) or its return. It fetches the function's arguments as $argN,
// and on 6.12 BTF names and member chains, but no registers: a definition
// planned as a kprobe is turned into one by naming each argument register as
// the argument it holds ("%si" at the entry is "$arg2"), where every fetch
// allows it.
#pragma once

#include <string>

#include "arch/arch.h"
#include "src/definition/trace_definition.h"
#include "util/result.h"

namespace kpp {

// The fprobe for a kernel probe at offset 0 of its function or on its
// return: the same group, event and values, registers renamed $argN.
// Errors name what an fprobe cannot do: a probe inside a function
// (FUNC+OFF, a line), a uprobe, a value in a register that holds no argument
// at the entry (or any register at a return, where $argN is what entry had).
Result<TraceDefinition> to_fprobe(const TraceDefinition &kprobe, const arch::Registers &regs);

// Whether this kernel takes fprobe events: its tracefs README documents the
// "f[:[<group>/][<event>]]" form (6.1 does not, 6.12 does).
bool kernel_has_fprobe_events(const std::string &tracefs_readme);
// Whether this kernel's probe events take a parameter's BTF member chain by
// name ("file->f_pos", Linux 6.6 on): its tracefs README documents
// "<argname>[->field[->field|.field...]]".
bool kernel_has_btf_member_chains(const std::string &tracefs_readme);

}  // namespace kpp
