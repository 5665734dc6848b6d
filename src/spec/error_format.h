// How every error reaches the user: one message line, the text it is about
// with a caret under the offending columns, and a hint.
#pragma once

#include <string>

#include "util/result.h"

namespace kpp {

// Formats `error` as
//
//   kprobe-probe: error: <message>
//     <source>
//     <spaces>^~~~        (caret at span.begin, '~' under the rest of the span)
//     hint: <hint>
//
// each line ending in '\n'. The source and caret lines appear only when the
// error has both a source and a span; the hint line only when there is a hint.
// A span past the end of the source puts the caret just after it. Tabs in the
// source before the caret are repeated in the caret line so it stays aligned.
std::string format_error(const Error &error);

}  // namespace kpp
