// What the fuzz targets share: a property check that aborts (libFuzzer and
// the replay test both report an abort as a failure, with the input), and
// the entry point every target defines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace kpp::fuzz {

// A broken property (a round trip that does not return): print what differs
// and abort, so the input is saved as a crash and the replay test fails.
[[noreturn]] inline void property_failed(const std::string &what) {
  // fwrite, not %s: inputs may hold NUL bytes.
  std::fputs("fuzz property failed: ", stderr);
  std::fwrite(what.data(), 1, what.size(), stderr);
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace kpp::fuzz
