// Pure render functions: model + view state + size -> lines of styled
// text. No terminal, no clock: the same inputs give the same frame, which
// is what the golden tests compare (btop's Draw::Meter idea).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "tui/frame.h"
#include "tui/live_model.h"
#include "tui/ui_state.h"

namespace kpp::tui {

// The whole screen: status line, probes table, a titled lower pane (log,
// latency, args, help or event detail; on screens of 160x30 and more the
// log with latency and args beside it), and the key line.
Frame render_screen(const LiveModel &model, const UiState &ui, Size size);

// The probes table: a header line, then up to `height` - 1 rows around the
// selected one.
std::vector<Line> render_table(const LiveModel &model, const UiState &ui, size_t width, size_t height);

// The log's lines that fit `height`, newest at the bottom.
std::vector<Line> render_log(const LiveModel &model, const UiState &ui, size_t width, size_t height);

// Latency histograms of entry/return pairs, and argument summaries of the
// selected probe.
std::vector<Line> render_latency(const LiveModel &model, const UiState &ui, size_t width, size_t height);
std::vector<Line> render_args(const LiveModel &model, const UiState &ui, size_t width, size_t height);

// The selected probe's stacks (--stack), most frequent first: each one's
// count beside its innermost frame, its callers below.
std::vector<Line> render_stacks(const LiveModel &model, const UiState &ui, size_t width, size_t height);

// The kernel's histograms (hist triggers of our instances): each one's
// event, keys and total, then its table; scrolled by ui.kernel_scroll. Says
// how to start one when none runs.
std::vector<Line> render_kernel(const LiveModel &model, const UiState &ui, size_t width, size_t height);

// funclatency-style rows "  low -> high : count |****   |" for the
// non-empty span of `hist`, at most `height` rows.
std::vector<Line> render_histogram(const Log2Histogram &hist, const std::string &unit, size_t width,
                                   size_t height, bool unicode);

// The newest `width` samples of `history` as a sparkline (newest right),
// scaled to their maximum; blocks with `unicode`, else " .:-=+*#@".
std::string sparkline(const std::deque<double> &history, size_t width, bool unicode);

// How many lines the lower pane has at `size` (PgUp/PgDn step).
size_t pane_lines(const LiveModel &model, Size size);

// Numbers as the table shows them: exact when they fit `width`, else
// 12.3k / 4.5M / 6.7G.
std::string format_count(uint64_t n, size_t width);
std::string format_rate(double per_second);

}  // namespace kpp::tui
