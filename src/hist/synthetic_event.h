// A synthetic event of our own (the global synthetic_events list), removed
// when the object goes. Declare it before the instance whose triggers use
// the event: those are removed first, and the kernel refuses to remove an
// event a trigger still uses.
#pragma once

#include <string>

#include "util/result.h"

namespace kpp {

class SyntheticEvent {
 public:
  SyntheticEvent() = default;
  SyntheticEvent(const SyntheticEvent &) = delete;
  SyntheticEvent &operator=(const SyntheticEvent &) = delete;
  ~SyntheticEvent();
  // Adds "NAME TYPE FIELD[; ...]". Errors: no synthetic events in this
  // kernel, or the kernel refused the definition.
  Status add(const std::string &definition);

 private:
  std::string definition_;
};

}  // namespace kpp
