// What the view shows that is not data: focus, selection, scrolling, the
// filter being typed, overlays. Changed only by handle_key (and the CLI's
// messages), read by render.
#pragma once

#include <cstddef>
#include <string>

#include "tui/live_model.h"

namespace kpp::tui {

// Tab order. The lower part of the screen shows the focused pane (the log
// when the table has focus); wide screens show all three (the stacks or the
// kernel's histograms in the args' place while they have focus).
enum class Pane { Probes, Log, Latency, Args, Stacks, Kernel };
inline constexpr int kPanes = 6;

struct UiState {
  Pane focus = Pane::Probes;
  SortKey sort = SortKey::Hits;
  size_t selected = 0;     // position in the sorted probe table
  size_t log_scroll = 0;   // lines back from the newest visible one; 0 follows new events
  size_t pair_selected = 0;
  size_t arg_selected = 0;  // argument of the selected probe
  size_t stack_scroll = 0;  // lines scrolled down the selected probe's stacks
  size_t kernel_scroll = 0;  // lines scrolled down the kernel's histograms
  bool help = false;
  bool detail = false;      // fields of the log line under the cursor
  bool editing_filter = false;
  std::string filter_before;  // restored by Esc while editing
  std::string message;        // shown once in the bottom line ("wrote trace-live-1.dat")
  bool unicode = false;       // block characters for sparklines and rules
};

}  // namespace kpp::tui
