// parse_definition on any line (what kprobe_events lists is read back with
// it): a definition or an Error, never a crash; and a definition that parses
// must format to a line that parses and formats to that same line.
#include <string>
#include <string_view>

#include "src/definition/trace_definition.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view line(reinterpret_cast<const char *>(data), size);
  auto first = kpp::parse_definition(line);
  if (!first) return 0;
  std::string formatted = kpp::format_definition(*first);
  auto second = kpp::parse_definition(formatted);
  if (!second)
    kpp::fuzz::property_failed("'" + std::string(line) + "' formats as '" + formatted +
                               "', which does not parse: " + second.error().message);
  // The reader is lenient (it takes what a kernel might list and skips what
  // it does not know), so parse is not one-to-one; but what we write must be
  // a fixed point: it reads back to a definition that writes the same line.
  if (kpp::format_definition(*second) != formatted)
    kpp::fuzz::property_failed("'" + std::string(line) + "' formats as '" + formatted +
                               "', which reads back as '" + kpp::format_definition(*second) + "'");
  return 0;
}
