#include "tui/terminal.h"

#include <langinfo.h>
#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <cstring>

#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>

#include "src/util/crash_note.h"

namespace kpp::tui {

using kpp::note_terminal_restore;

namespace {

// Colour pair numbers, one per Style that has a colour.
enum Pair : short { pair_title = 1, pair_good, pair_bad, pair_warn, pair_accent, pair_selected };

attr_t attr_of(Style style, bool color) {
  switch (style) {
    case Style::Normal: return A_NORMAL;
    case Style::Title: return color ? COLOR_PAIR(pair_title) | A_BOLD : A_REVERSE;
    case Style::Header: return A_BOLD;
    case Style::Selected: return color ? COLOR_PAIR(pair_selected) | A_BOLD : A_REVERSE;
    case Style::Dim: return A_DIM;
    case Style::Good: return color ? COLOR_PAIR(pair_good) : A_NORMAL;
    case Style::Bad: return color ? COLOR_PAIR(pair_bad) | A_BOLD : A_BOLD;
    case Style::Warn: return color ? COLOR_PAIR(pair_warn) | A_BOLD : A_BOLD;
    case Style::Accent: return color ? COLOR_PAIR(pair_accent) : A_NORMAL;
  }
  return A_NORMAL;
}

bool no_color_requested() {
  const char *v = std::getenv("NO_COLOR");
  return v && *v;
}

// What endwin() and curs_set(1) would send: leave the alternate screen, show
// the cursor. Noted for the supervisor, which sends it if this process dies
// without restoring the terminal (src/util/crash_note.h).
std::string leave_sequence() {
  std::string bytes;
  for (const char *cap : {"sgr0", "rmcup", "cnorm"}) {
    const char *s = tigetstr(cap);
    if (s && s != reinterpret_cast<const char *>(-1)) bytes += s;
  }
  return bytes;
}

}  // namespace

Result<std::unique_ptr<Terminal>> Terminal::open() {
  if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) return Error("the live view needs a terminal");
  std::setlocale(LC_ALL, "");
  std::unique_ptr<Terminal> t(new Terminal());
  // newterm, unlike initscr, returns an error instead of exiting.
  SCREEN *screen = newterm(nullptr, stdout, stdin);
  if (!screen) {
    const char *term = std::getenv("TERM");
    return Error(std::string("cannot use the terminal (TERM=") + (term ? term : "") + ")",
                 "set TERM to a terminal type the system knows, e.g. TERM=xterm-256color");
  }
  t->screen_ = screen;
  t->active_ = true;
  set_term(screen);
  cbreak();  // Ctrl-C still sends SIGINT, so it quits through the same cleanup
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  note_terminal_restore(leave_sequence());
  t->unicode_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  t->color_ = !no_color_requested() && has_colors();
  if (t->color_) {
    start_color();
    use_default_colors();
    init_pair(pair_title, COLOR_BLACK, COLOR_CYAN);
    init_pair(pair_good, COLOR_GREEN, -1);
    init_pair(pair_bad, COLOR_RED, -1);
    init_pair(pair_warn, COLOR_YELLOW, -1);
    init_pair(pair_accent, COLOR_CYAN, -1);
    init_pair(pair_selected, COLOR_BLACK, COLOR_WHITE);
  }
  return t;
}

Terminal::~Terminal() { restore(); }

void Terminal::restore() {
  if (!active_) return;
  active_ = false;
  curs_set(1);
  endwin();
  note_terminal_restore("");
  delscreen(static_cast<SCREEN *>(screen_));
  screen_ = nullptr;
}

Size Terminal::size() const {
  int rows, cols;
  getmaxyx(stdscr, rows, cols);
  return Size{rows, cols};
}

void Terminal::draw(const Frame &frame) {
  if (!active_) return;
  erase();
  for (size_t y = 0; y < frame.lines.size(); ++y) {
    move(static_cast<int>(y), 0);
    for (const Segment &s : frame.lines[y]) {
      attrset(attr_of(s.style, color_));
      addstr(s.text.c_str());  // the bottom-right cell returns ERR but is painted
    }
  }
  attrset(A_NORMAL);
  if (frame.cursor_row >= 0) {
    move(frame.cursor_row, frame.cursor_col);
    curs_set(1);
  } else {
    curs_set(0);
  }
  refresh();
}

std::optional<Key> Terminal::read_key() {
  if (!active_) return std::nullopt;
  wint_t ch;
  int r = get_wch(&ch);
  if (r == ERR) return std::nullopt;
  using K = Key::Kind;
  if (r == KEY_CODE_YES) {
    switch (ch) {
      case KEY_UP: return Key::of(K::Up);
      case KEY_DOWN: return Key::of(K::Down);
      case KEY_LEFT: return Key::of(K::Left);
      case KEY_RIGHT: return Key::of(K::Right);
      case KEY_PPAGE: return Key::of(K::PageUp);
      case KEY_NPAGE: return Key::of(K::PageDown);
      case KEY_HOME: return Key::of(K::Home);
      case KEY_END: return Key::of(K::End);
      case KEY_BTAB: return Key::of(K::BackTab);
      case KEY_ENTER: return Key::of(K::Enter);
      case KEY_BACKSPACE: return Key::of(K::Backspace);
      case KEY_RESIZE: return Key::of(K::Resize);
      default: return Key::character(0);
    }
  }
  switch (ch) {
    case '\t': return Key::of(K::Tab);
    case '\r': case '\n': return Key::of(K::Enter);
    case 27: return Key::of(K::Escape);
    case 127: case 8: return Key::of(K::Backspace);
    default: return Key::character(static_cast<char32_t>(ch));
  }
}

}  // namespace kpp::tui
