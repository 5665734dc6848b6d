#include "src/output/folded_sink.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <utility>
#include <vector>

namespace kpp {

namespace {

// A frame's name in the folded form: ';' separates frames and ' ' ends
// the stack, so neither may be in a name (C++ names have spaces).
void append_name(std::string &out, const StackFrame &f) {
  if (f.sym.empty()) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%" PRIx64, f.ip);
    out += hex;
    return;
  }
  for (char c : f.sym) out += c == ';' ? ':' : c == ' ' ? '_' : c;
}

}  // namespace

std::string folded_stack(const Event &event) {
  std::string key = event.comm.empty() ? "<...>" : event.comm;
  for (char &c : key)
    if (c == ';' || c == ' ') c = '_';
  for (auto f = event.stack.rbegin(); f != event.stack.rend(); ++f) {
    key += ';';
    append_name(key, *f);
  }
  return key;
}

Status FoldedSink::on_event(const Event &event) {
  ++counts_[folded_stack(event)];
  return Ok{};
}

Status FoldedSink::on_finish() {
  std::vector<std::pair<std::string, uint64_t>> sorted(counts_.begin(), counts_.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
  for (const auto &[stack, count] : sorted)
    if (std::fprintf(out_, "%s %" PRIu64 "\n", stack.c_str(), count) < 0)
      return Error(std::string("cannot write the folded stacks: ") + std::strerror(errno));
  if (std::fflush(out_) != 0) return Error(std::string("cannot write the folded stacks: ") + std::strerror(errno));
  return Ok{};
}

}  // namespace kpp
