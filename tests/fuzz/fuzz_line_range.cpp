// parse_line_range (-L) on any text: a range or an Error, never a crash.
#include <string_view>

#include "src/lookup/line_range.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto range = kpp::parse_line_range(std::string_view(reinterpret_cast<const char *>(data), size));
  // A parsed range must be one the listing can walk: an end before the
  // beginning would make it list nothing without saying why.
  if (range && range->end && *range->end < range->begin)
    kpp::fuzz::property_failed("range ends (" + std::to_string(*range->end) + ") before it begins (" +
                               std::to_string(range->begin) + ")");
  return 0;
}
