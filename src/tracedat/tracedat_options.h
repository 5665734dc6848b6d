// find_tracedat_option: the payload of one option of a trace.dat, read by
// kprobe-probe itself. libtracecmd reads the options it knows and skips the
// others without handing them out, so kprobe-probe's own
// (kOptionUserStacks, user_stack_table.h) is found here: in version 6 by
// walking the head (headers, formats, kallsyms, printk formats, cmdlines)
// to the options list, in version 7 by following the chain of options
// sections from the offset in the head.
//
// The file may be hostile: every size and offset is checked against the
// file's end before it is followed, the walks are bounded, and nothing is
// allocated before its size is known to fit in the file. A file damaged
// where the walk goes is an error; one that cannot be opened or is no
// trace.dat has no option (the trace.dat reader says what is wrong).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "util/result.h"

namespace kpp::tracedat {

// kprobe-probe's own options: ids trace-cmd does not use (it skips them).
inline constexpr uint16_t kOptionUserStacks = 0x4b50;  // "PK": user_stack_table.h

// The payload of option `id` in `path` (the first one), nullopt when the
// file has none (or keeps its options compressed, which we never write).
Result<std::optional<std::string>> find_tracedat_option(const std::string &path, uint16_t id);

}  // namespace kpp::tracedat
