// What the kernel's probe-command parser takes, checked before anything is
// written (issue: a newline in a path became a second command). The kernel
// reads kprobe_events/uprobe_events line by line, cuts each line at '#'
// (a comment), splits it into words at every byte its isspace() takes
// (' ', \t, \n, \v, \f, \r and 0xa0, Latin-1's no-break space, which is
// also the second byte of UTF-8 letters like 'à'), and accepts group,
// event and argument names made of [A-Za-z_][A-Za-z0-9_]* shorter than 64
// bytes. A definition that would be read as anything but what it says is
// refused here, with a message naming the string and the character.
#pragma once

#include <string>
#include <string_view>

#include "src/definition/trace_definition.h"
#include "util/result.h"

namespace kpp {

// The longest command line the kernel reads (WRITE_BUFSIZE less the NUL and newline).
inline constexpr size_t max_definition_line = 4094;

// Why `text` cannot be one word of a probe command (a blank, '#', a
// control byte, an empty word), or "" when it can. `what` names it in the
// message: "the path '/srv/a b'".
std::string word_problem(std::string_view text);

// Whether `name` is a name the kernel takes for a group, event or field.
bool is_kernel_name(std::string_view name);

// `text` with control bytes and non-ASCII bytes written as \n, \xNN: safe to print.
std::string printable(std::string_view text);

// Every string of `def` checked: path (uprobes: absolute), symbol, group,
// event, argument names, fetch-args and types, and the length of the line.
Status check_definition_text(const TraceDefinition &def);

// The -x path alone, checked as check_definition_text() checks a uprobe's
// path (so that a bad path is refused before its DWARF is read).
Status check_probe_path(const std::string &path);

}  // namespace kpp
