#include "tui/keys.h"

#include <algorithm>

namespace kpp::tui {

namespace {

Intent redraw() { return Intent{Intent::Kind::Redraw, {}}; }

// Moves `value` by `delta` inside [0, count).
void move_within(size_t &value, long delta, size_t count) {
  if (count == 0) {
    value = 0;
    return;
  }
  long v = static_cast<long>(std::min(value, count - 1)) + delta;
  value = static_cast<size_t>(std::clamp(v, 0L, static_cast<long>(count) - 1));
}

Intent edit_filter(UiState &ui, EventLog &log, Key key) {
  std::string f = log.filter();
  switch (key.kind) {
    case Key::Kind::Enter: ui.editing_filter = false; return redraw();
    case Key::Kind::Escape:
      ui.editing_filter = false;
      log.set_filter(ui.filter_before);
      return redraw();
    case Key::Kind::Backspace:
      if (!f.empty()) f.pop_back();
      break;
    case Key::Kind::Char:
      if (key.ch < 0x20 || key.ch > 0x7e) return Intent{};
      f += static_cast<char>(key.ch);
      break;
    default: return Intent{};
  }
  log.set_filter(f);  // the log follows each keystroke
  ui.log_scroll = 0;
  return redraw();
}

// Moves a pane's scroll position; its render stops at the last line.
void scroll(size_t &at, long delta) {
  long to = static_cast<long>(at) + delta;
  at = static_cast<size_t>(std::max(to, 0L));
}

// Up/Down/PgUp/PgDn/Home/End in the focused pane.
Intent move(UiState &ui, LiveModel &model, long delta, size_t page) {
  switch (ui.focus) {
    case Pane::Probes:
      move_within(ui.selected, delta, model.probes().size());
      ui.arg_selected = 0;
      ui.stack_scroll = 0;
      break;
    case Pane::Stacks: scroll(ui.stack_scroll, delta); break;
    case Pane::Kernel: scroll(ui.kernel_scroll, delta); break;
    case Pane::Log: {
      // Scrolling back means a larger distance from the newest line.
      size_t lines = model.log().visible().size();
      size_t back = ui.log_scroll;
      move_within(back, -delta, lines ? lines : 1);
      ui.log_scroll = back;
      break;
    }
    case Pane::Latency: move_within(ui.pair_selected, delta, model.pairs().size()); break;
    case Pane::Args: {
      auto order = model.sorted(ui.sort);
      size_t n = ui.selected < order.size() ? model.probes()[order[ui.selected]].args.size() : 0;
      move_within(ui.arg_selected, delta, n);
      break;
    }
  }
  (void)page;
  return redraw();
}

}  // namespace

Intent handle_key(UiState &ui, LiveModel &model, Key key, size_t page) {
  if (ui.editing_filter) return edit_filter(ui, model.log(), key);
  ui.message.clear();
  long pg = static_cast<long>(std::max<size_t>(page, 1));
  switch (key.kind) {
    case Key::Kind::Up: return move(ui, model, -1, page);
    case Key::Kind::Down: return move(ui, model, 1, page);
    case Key::Kind::PageUp: return move(ui, model, -pg, page);
    case Key::Kind::PageDown: return move(ui, model, pg, page);
    case Key::Kind::Home: return move(ui, model, -(1L << 30), page);
    case Key::Kind::End: return move(ui, model, 1L << 30, page);
    case Key::Kind::Left:
    case Key::Kind::Right: {
      if (ui.focus != Pane::Args) return Intent{};
      return move(ui, model, key.kind == Key::Kind::Left ? -1 : 1, page);
    }
    case Key::Kind::Tab:
    case Key::Kind::BackTab: {
      int n = static_cast<int>(ui.focus) + (key.kind == Key::Kind::Tab ? 1 : kPanes - 1);
      ui.focus = static_cast<Pane>(n % kPanes);
      ui.detail = false;
      return redraw();
    }
    case Key::Kind::Enter:
      if (ui.focus != Pane::Log) return Intent{};
      ui.detail = !ui.detail;
      return redraw();
    case Key::Kind::Escape:
      if (!ui.help && !ui.detail && model.log().filter().empty()) return Intent{};
      if (!ui.help && !ui.detail) model.log().set_filter({});
      ui.help = ui.detail = false;
      return redraw();
    case Key::Kind::Resize: return redraw();
    case Key::Kind::Backspace: return Intent{};
    case Key::Kind::Char: break;
  }
  switch (key.ch) {
    case 'q': case 'Q': return Intent{Intent::Kind::Quit, {}};
    case '?': ui.help = !ui.help; return redraw();
    case 'p': model.log().set_paused(!model.log().paused()); return redraw();
    case 's':
      ui.sort = static_cast<SortKey>((static_cast<int>(ui.sort) + 1) % 3);
      return redraw();
    case '/':
      ui.editing_filter = true;
      ui.filter_before = model.log().filter();
      return redraw();
    case 'w': return Intent{Intent::Kind::WriteTrace, {}};
    case ' ': case 'e': {
      auto order = model.sorted(ui.sort);
      if (ui.selected >= order.size()) return Intent{};
      return Intent{Intent::Kind::ToggleProbe, model.probes()[order[ui.selected]].id};
    }
    case 'k': return move(ui, model, -1, page);
    case 'j': return move(ui, model, 1, page);
    default: return Intent{};
  }
}

}  // namespace kpp::tui
