// Terminal: the only code that talks to ncurses. Takes the terminal over
// (alternate screen, no echo, keys one at a time), paints Frames, reads
// keys without blocking, and gives the terminal back on restore() or
// destruction -- the live view's RAII guard for the user's shell.
#pragma once

#include <memory>
#include <optional>

#include "tui/frame.h"
#include "tui/keys.h"
#include "util/result.h"

namespace kpp::tui {

class Terminal {
 public:
  // Starts ncurses on stdin/stdout. Colour unless NO_COLOR is set (to
  // anything non-empty, see no-color.org) or the terminal has none; block
  // characters when the locale is UTF-8. Install signal handlers before
  // this: ncurses leaves handlers that are already set alone. Errors: not a
  // terminal, unknown TERM.
  static Result<std::unique_ptr<Terminal>> open();
  ~Terminal();
  Terminal(const Terminal &) = delete;
  Terminal &operator=(const Terminal &) = delete;

  // Gives the terminal back (idempotent).
  void restore();

  // The current size (ncurses updates it on SIGWINCH; read_key reports Resize).
  Size size() const;
  bool unicode() const { return unicode_; }
  bool color() const { return color_; }

  // Paints `frame`; ncurses sends only what changed.
  void draw(const Frame &frame);

  // The next key if one is waiting, without blocking.
  std::optional<Key> read_key();

  // Readable when a key is waiting (for poll/epoll).
  int input_fd() const { return 0; }

 private:
  Terminal() = default;
  void *screen_ = nullptr;  // SCREEN*, kept opaque so ncurses stays out of headers
  bool unicode_ = false;
  bool color_ = false;
  bool active_ = false;
};

}  // namespace kpp::tui
