// The screen layout: which pane goes where at a given size.
#include <algorithm>

#include "tui/render.h"

namespace kpp::tui {

namespace {

const char *const help_lines[] = {
    "  Up/Down, PgUp/PgDn, Home/End   move in the focused pane (j/k too)",
    "  Tab, Shift-Tab                 next / previous pane: probes, log, latency, args, stacks, kernel",
    "  space or e                     enable or disable the selected probe (our instance only)",
    "  p                              pause or resume the log (counts keep going)",
    "  /                              filter the log by text (Enter keeps, Esc cancels)",
    "  Enter                          (log) fields of the event under the cursor",
    "  Left/Right                     (args) choose the argument",
    "  s                              sort the table by hits, rate or name",
    "  w                              write the buffered events to a trace.dat",
    "  Esc                            close help/detail, clear the filter",
    "  ?                              this help",
    "  q, Ctrl-C                      quit (probes this view added are removed unless --keep)",
};

bool wide(Size s) { return s.cols >= 160 && s.rows >= 30; }

// Rows of the probes table, header included.
size_t table_height(const LiveModel &model, Size s) {
  size_t avail = s.rows > 4 ? static_cast<size_t>(s.rows) - 4 : 1;
  size_t want = std::max<size_t>(model.probes().size(), 1) + 1;
  return std::min(want, std::max<size_t>(4, avail / 3));
}

std::string rule_text(bool unicode) { return unicode ? "\u2500" : "-"; }

// "-- Log -- 12 events -- paused -- filter "x" ------"
Line pane_title(const std::string &title, const std::string &info, bool focused, size_t width, bool unicode) {
  std::string r = rule_text(unicode);
  Line l{{r + r + " ", Style::Dim}, {title, focused ? Style::Accent : Style::Header}};
  if (!info.empty()) l.push_back({" " + r + " " + info, Style::Dim});
  size_t used = 0;
  for (const Segment &s : l) used += display_width(s.text);
  std::string fill = " ";
  for (size_t i = used + 1; i < width; ++i) fill += r;
  l.push_back({fill, Style::Dim});
  return fit_line(std::move(l), width);
}

std::string log_info(const LiveModel &model) {
  const EventLog &log = model.log();
  std::string info = std::to_string(log.size()) + " kept";
  if (log.paused()) info += ", PAUSED (" + std::to_string(log.skipped()) + " not kept)";
  if (!log.filter().empty()) info += ", filter \"" + printable(log.filter()) + "\"";
  return info;
}

Line status_line(const LiveModel &model, size_t width) {
  const SessionFacts &f = model.facts();
  std::string lost = std::to_string(model.lost()) + (model.lost_unknown() ? "+" : "");
  Line l{{" live ", Style::Title}};
  std::string s = "| " + f.instance + " | " + std::to_string(f.cpus) + " CPUs | " + std::to_string(model.events()) +
                  " events " + format_rate(model.events_rate()) + "/s | ";
  l.push_back({s, Style::Title});
  l.push_back({"lost " + lost, model.lost() || model.lost_unknown() ? Style::Bad : Style::Title});
  std::string tail;
  if (!f.recording.empty()) tail += " | recording " + f.recording;
  if (!f.command.empty()) tail += " | " + f.command;
  l.push_back({tail, Style::Title});
  Line out = fit_line(std::move(l), width);
  for (Segment &seg : out)
    if (seg.style == Style::Normal) seg.style = Style::Title;
  return out;
}

Line key_line(const LiveModel &model, const UiState &ui, size_t width) {
  if (ui.editing_filter) return fit_line({{"/" + model.log().filter(), Style::Accent}}, width);
  if (!ui.message.empty()) return fit_line({{ui.message, Style::Warn}}, width);
  std::string keys = " q quit  ? help  Tab pane  space toggle  p " +
                     std::string(model.log().paused() ? "resume" : "pause") + "  / filter  s sort:" +
                     sort_name(ui.sort) + "  w write";
  return fit_line({{keys, Style::Dim}}, width);
}

// A pane's title and body stacked into `height` lines.
std::vector<Line> titled(const LiveModel &model, const UiState &ui, Pane pane, size_t width, size_t height) {
  std::vector<Line> out;
  if (height == 0) return out;
  bool focused = ui.focus == pane || (pane == Pane::Log && ui.focus == Pane::Probes);
  size_t body = height - 1;
  switch (pane) {
    case Pane::Probes:
    case Pane::Log:
      out.push_back(pane_title(ui.detail ? "Event" : "Log", log_info(model), ui.focus == Pane::Log, width, ui.unicode));
      for (Line &l : render_log(model, ui, width, body)) out.push_back(std::move(l));
      break;
    case Pane::Latency:
      out.push_back(pane_title("Latency", std::to_string(model.pairs().size()) + " entry/return pairs", focused,
                               width, ui.unicode));
      for (Line &l : render_latency(model, ui, width, body)) out.push_back(std::move(l));
      break;
    case Pane::Args:
      out.push_back(pane_title("Args", "values of the selected probe's arguments", focused, width, ui.unicode));
      for (Line &l : render_args(model, ui, width, body)) out.push_back(std::move(l));
      break;
    case Pane::Stacks:
      out.push_back(pane_title("Stacks", "the selected probe's stacks and their counts (--stack)", focused, width,
                               ui.unicode));
      for (Line &l : render_stacks(model, ui, width, body)) out.push_back(std::move(l));
      break;
    case Pane::Kernel:
      out.push_back(pane_title("Kernel", std::to_string(model.kernel_histograms().size()) +
                                             " histograms the kernel keeps (kprobe-probe hist)",
                               focused, width, ui.unicode));
      for (Line &l : render_kernel(model, ui, width, body)) out.push_back(std::move(l));
      break;
  }
  return out;
}

std::vector<Line> help_pane(const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out{pane_title("Help", "Esc or ? closes", true, width, ui.unicode)};
  for (const char *h : help_lines)
    if (out.size() < height) out.push_back(fit_line({{h, Style::Normal}}, width));
  while (out.size() < height) out.push_back(fit_line({}, width));
  return out;
}

}  // namespace

size_t pane_lines(const LiveModel &model, Size size) {
  size_t used = 2 + table_height(model, size) + 1;
  return static_cast<size_t>(size.rows) > used ? static_cast<size_t>(size.rows) - used : 1;
}

Frame render_screen(const LiveModel &model, const UiState &ui, Size size) {
  Frame f;
  f.size = size;
  if (size.rows <= 0 || size.cols <= 0) return f;
  size_t width = static_cast<size_t>(size.cols), rows = static_cast<size_t>(size.rows);
  f.lines.push_back(status_line(model, width));
  size_t th = std::min(table_height(model, size), rows > 2 ? rows - 2 : 0);
  for (Line &l : render_table(model, ui, width, th)) f.lines.push_back(std::move(l));
  size_t lower = rows > f.lines.size() + 1 ? rows - f.lines.size() - 1 : 0;
  if (ui.help) {
    for (Line &l : help_pane(ui, width, lower)) f.lines.push_back(std::move(l));
  } else if (wide(size)) {
    // Log on the left, latency above args on the right.
    size_t left = width * 55 / 100, right = width - left - 1;
    auto log = titled(model, ui, Pane::Log, left, lower);
    size_t top = lower / 2;
    auto lat = titled(model, ui, Pane::Latency, right, top);
    Pane below = ui.focus == Pane::Stacks || ui.focus == Pane::Kernel ? ui.focus : Pane::Args;
    auto args = titled(model, ui, below, right, lower - top);
    lat.insert(lat.end(), args.begin(), args.end());
    std::string bar = ui.unicode ? "\u2502" : "|";
    for (size_t i = 0; i < lower; ++i) {
      Line l = std::move(log[i]);
      l.push_back({bar, Style::Dim});
      l.insert(l.end(), lat[i].begin(), lat[i].end());
      f.lines.push_back(std::move(l));
    }
  } else {
    for (Line &l : titled(model, ui, ui.focus, width, lower)) f.lines.push_back(std::move(l));
  }
  while (f.lines.size() + 1 < rows) f.lines.push_back(fit_line({}, width));
  if (f.lines.size() < rows) f.lines.push_back(key_line(model, ui, width));
  if (ui.editing_filter) {
    f.cursor_row = static_cast<int>(rows) - 1;
    f.cursor_col = static_cast<int>(std::min(display_width("/" + model.log().filter()), width - 1));
  }
  return f;
}

}  // namespace kpp::tui
