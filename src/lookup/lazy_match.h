// perf probe's LAZY MATCHING: a glob matched against a whole source line,
// with white space ignored in both ("rq=*" matches "  rq = cpu_rq(cpu);").
#pragma once

#include <string>

namespace kpp {

bool lazy_match(const std::string &line, const std::string &pattern);

}  // namespace kpp
