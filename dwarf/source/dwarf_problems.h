// LLVM's recoverable DWARF errors and warnings -- what the handlers a
// DWARFContext is made with receive: a line table whose prologue is damaged,
// a range list LLVM reads past -- kept for -v instead of dropped, so that a
// probe placed on damaged debug info says why it may be off.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

namespace kpp::dwarf {

class DwarfProblems {
 public:
  // The most messages kept: a hostile file may have a problem per unit.
  static constexpr size_t kMaxKept = 20;

  DwarfProblems();

  // A handler for DWARFContext::create (recoverable errors and warnings
  // alike): keeps the message, "FILE: MESSAGE", once; may outlive this object.
  std::function<void(llvm::Error)> handler(const std::string &file) const;

  // What the handlers kept, in the order met; a last line counts the ones
  // beyond kMaxKept.
  std::vector<std::string> messages() const;

 private:
  struct Kept {
    std::vector<std::string> messages;
    size_t dropped = 0;
  };
  std::shared_ptr<Kept> kept_;
};

}  // namespace kpp::dwarf
