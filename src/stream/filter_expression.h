// A --filter expression (the kernel's event filter syntax), checked before it
// goes into a filter or trigger file. The tool puts it in parentheses before
// its own condition ("(EXPR) && common_pid != OURS", which keeps its own reads
// out): it must be one line, its parentheses must pair up and its quotes
// close, or a ')' of its own ("1) || (1") would end them early and let the
// tool's reads in again. The rest is the kernel's to parse.
#pragma once

#include <string>

#include "src/util/result.h"

namespace kpp {

Status check_filter_expression(const std::string &filter);

}  // namespace kpp
