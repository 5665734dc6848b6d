// Which fields of an event are strings, from its tracefs `format` file.
//
// The kernel keys a hist on a string field by its bytes and prints them as
// they are ("%-50s"), and sums a string field by adding up its pointers: a
// table of string keys is read with that in mind (hist_parse.h), and a --sum
// of a string is refused. The kernel's own test (is_string_field, in
// kernel/trace/trace_events_filter.c's filter_assign_type): a type with
// "char[" (a fixed array or __data_loc/__rel_loc char[]), or "char *".
#pragma once

#include <set>
#include <string>

#include "src/hist/hist_request.h"
#include "src/util/result.h"

namespace kpp {

// The string fields named in a format file's "field:TYPE NAME;" lines.
std::set<std::string> string_fields(const std::string &format);

// Marks the request's string keys (HistKey::string); refuses a --sum of a
// string field, naming it.
Status apply_event_fields(HistRequest &request, const std::string &format);

}  // namespace kpp
