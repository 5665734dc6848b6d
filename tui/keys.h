// Keys as the view understands them, and what a key asks for. Handlers
// change UiState/model view settings and return an Intent; the loop that
// owns the terminal and tracefs decides what to do with it (htop's
// HandlerResult). No ncurses here: terminal.cpp translates its key codes.
#pragma once

#include <cstddef>
#include <string>

#include "tui/live_model.h"
#include "tui/ui_state.h"

namespace kpp::tui {

struct Key {
  enum class Kind { Char, Up, Down, Left, Right, PageUp, PageDown, Home, End, Tab, BackTab, Enter, Escape,
                    Backspace, Resize };
  Kind kind = Kind::Char;
  char32_t ch = 0;  // Kind::Char only

  static Key character(char32_t c) { return Key{Kind::Char, c}; }
  static Key of(Kind k) { return Key{k, 0}; }
};

struct Intent {
  enum class Kind {
    Ignored,      // nothing changed
    Redraw,       // the view changed; draw it
    Quit,
    ToggleProbe,  // enable or disable `probe` in our instance
    WriteTrace,   // write the buffered events to a trace.dat
  };
  Kind kind = Kind::Ignored;
  std::string probe;  // ToggleProbe: "group:event"
};

// Applies `key` to the view state (and the log's pause/filter). `page` is
// how many lines a PgUp/PgDn moves.
Intent handle_key(UiState &ui, LiveModel &model, Key key, size_t page);

}  // namespace kpp::tui
