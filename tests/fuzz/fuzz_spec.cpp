// parse_probe_spec on any text: an Error or a spec, never a crash; and a spec
// that parses must survive format_probe_spec and a second parse unchanged
// (the CLI prints specs with format_probe_spec and users paste them back).
#include <string>
#include <string_view>

#include "src/spec/probe_spec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// The model without what records the typing (text, spans), which a
// reformatted spec legitimately changes.
kpp::ProbeSpec without_text(kpp::ProbeSpec spec) {
  spec.text.clear();
  for (kpp::ProbeArg &arg : spec.args) {
    arg.text.clear();
    arg.span = {};
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto first = kpp::parse_probe_spec(text);
  if (!first) return 0;
  std::string formatted = kpp::format_probe_spec(*first);
  auto second = kpp::parse_probe_spec(formatted);
  if (!second)
    kpp::fuzz::property_failed("'" + std::string(text) + "' formats as '" + formatted +
                               "', which does not parse: " + second.error().message);
  if (without_text(*first) != without_text(*second))
    kpp::fuzz::property_failed("'" + std::string(text) + "' formats as '" + formatted +
                               "', which parses to another spec ('" + kpp::format_probe_spec(*second) + "')");
  return 0;
}
