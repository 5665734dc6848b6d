// The panes: probes table, event log, latency pairs, argument summaries,
// stacks, the kernel's histograms.
#include <algorithm>
#include <cstdio>

#include "event/text_format.h"
#include "tui/render.h"
#include "util/strings.h"

namespace kpp::tui {

namespace {

// Column widths of the table at `width`.
struct Columns {
  size_t event = 10, where = 10, status = 11, hits = 9, rate = 8, history = 10, missed = 0;
};

Columns columns_for(const LiveModel &model, size_t width) {
  Columns c;
  size_t longest = 5;
  bool missed = false;
  for (const ProbeRow &r : model.probes()) {
    longest = std::max(longest, r.id.size());
    missed = missed || r.has_missed;
  }
  c.missed = missed ? 7 : 0;
  c.history = width >= 120 ? std::min<size_t>(60, width / 5) : 10;
  c.event = std::clamp(longest, size_t{10}, std::max<size_t>(10, width / 4));
  size_t fixed = c.event + c.status + c.hits + c.rate + c.history + (c.missed ? c.missed + 1 : 0) + 5;
  c.where = width > fixed + 8 ? width - fixed : 8;
  return c;
}

Style status_style(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::Enabled: return Style::Good;
    case ProbeStatus::Disabled: return Style::Dim;
    case ProbeStatus::Gone: return Style::Bad;
    default: return Style::Warn;
  }
}

// "probe_prog:walk_L5" cut from the left, so the event name survives.
std::string event_cell(const std::string &id, size_t width) {
  if (id.size() <= width) return fit(id, width);
  return "~" + id.substr(id.size() - (width - 1));
}

// The first `height` lines of `lines`, or blank lines up to `height`.
std::vector<Line> pad_to(std::vector<Line> lines, size_t width, size_t height) {
  lines.resize(std::min(lines.size(), height));
  for (Line &l : lines) l = fit_line(std::move(l), width);
  while (lines.size() < height) lines.push_back(fit_line({}, width));
  return lines;
}

std::string ns_text(uint64_t ns) {
  char buf[32];
  if (ns < 10000) std::snprintf(buf, sizeof buf, "%lluns", static_cast<unsigned long long>(ns));
  else if (ns < 10000000) std::snprintf(buf, sizeof buf, "%.1fus", static_cast<double>(ns) / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1fms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::vector<Line> render_table(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out;
  if (height == 0) return out;
  Columns c = columns_for(model, width);
  std::string head = fit("EVENT", c.event) + " " + fit("WHERE", c.where) + " " + fit("STATUS", c.status) + " " +
                     fit_right("HITS", c.hits) + " " + fit_right("HITS/S", c.rate) + " " + fit("HISTORY", c.history);
  if (c.missed) head += " " + fit_right("MISSED", c.missed);
  out.push_back({{head, Style::Header}});
  auto order = model.sorted(ui.sort);
  if (order.empty()) {
    out.push_back({{"  no probe events: add one with --add, or see 'kprobe-probe demo'", Style::Dim}});
    return pad_to(std::move(out), width, height);
  }
  size_t rows = height - 1;
  size_t sel = std::min(ui.selected, order.size() - 1);
  size_t first = sel >= rows ? sel - rows + 1 : 0;
  for (size_t i = first; i < order.size() && i < first + rows; ++i) {
    const ProbeRow &r = model.probes()[order[i]];
    bool selected = i == sel && ui.focus != Pane::Log;
    Style base = selected ? Style::Selected : Style::Normal;
    Line line;
    line.push_back({event_cell(r.id, c.event) + " " + fit(printable(r.info.where), c.where, true) + " ", base});
    line.push_back({fit(status_name(r.status), c.status), selected ? base : status_style(r.status)});
    line.push_back({" " + fit_right(format_count(r.hits, c.hits), c.hits) + " " +
                        fit_right(format_rate(r.rate), c.rate) + " ",
                    base});
    line.push_back({sparkline(r.history, c.history, ui.unicode), selected ? base : Style::Accent});
    if (c.missed)
      line.push_back({" " + fit_right(r.has_missed ? format_count(r.missed, c.missed) : "-", c.missed), base});
    out.push_back(fit_line(std::move(line), width));
  }
  return pad_to(std::move(out), width, height);
}

std::vector<Line> render_log(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out;
  const EventLog &log = model.log();
  auto visible = log.visible();
  if (visible.empty()) {
    out.push_back({{log.size() ? "  no event matches the filter" : "  waiting for events...", Style::Dim}});
    return pad_to(std::move(out), width, height);
  }
  size_t back = std::min(ui.log_scroll, visible.size() - 1);
  size_t end = visible.size() - back;
  size_t begin = end > height ? end - height : 0;
  if (ui.detail) {
    // The fields of the line under the cursor, one per line.
    const Event &e = log.at(visible[end - 1]);
    out.push_back({{fit(log.text(visible[end - 1]), width, true), Style::Selected}});
    char head[96];
    std::snprintf(head, sizeof head, "  time %llu.%09llu  cpu %d  pid %d",
                  static_cast<unsigned long long>(e.time_ns / 1000000000ull),
                  static_cast<unsigned long long>(e.time_ns % 1000000000ull), e.cpu, e.pid);
    std::string in_container = e.ns_pid ? " on the host, " + std::to_string(e.ns_pid) + " in the container" : "";
    out.push_back({{head + in_container + "  comm " + printable(e.comm), Style::Normal}});
    out.push_back({{"  event " + e.system + ":" + e.name + (e.probe_ip ? "  ip " + hex(e.probe_ip) : "") +
                           (e.site.empty() ? "" : "  site " + e.site), Style::Normal}});
    for (const Field &f : e.fields) {
      Event one;
      one.fields.push_back(f);
      std::string text;
      append_fields_text(text, one);
      out.push_back({{"    " + printable(text), Style::Normal}});
    }
    return pad_to(std::move(out), width, height);
  }
  for (size_t i = begin; i < end; ++i) {
    bool cursor = ui.focus == Pane::Log && i + 1 == end;
    out.push_back({{fit(log.text(visible[i]), width), cursor ? Style::Selected : Style::Normal}});
  }
  return pad_to(std::move(out), width, height);
}

std::vector<Line> render_latency(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out;
  const auto &pairs = model.pairs();
  if (pairs.empty()) {
    out.push_back({{"  no entry/return pairs: probe FUNC and FUNC%return to see latencies", Style::Dim}});
    return pad_to(std::move(out), width, height);
  }
  size_t sel = std::min(ui.pair_selected, pairs.size() - 1);
  Line names{{" ", Style::Normal}};
  for (size_t i = 0; i < pairs.size(); ++i)
    names.push_back({" " + pairs[i].label + " ", i == sel ? Style::Selected : Style::Normal});
  out.push_back(std::move(names));
  const LatencyPair &p = pairs[sel];
  std::string stats = "  " + p.label + ": " + model.probes()[p.entry].id + " -> " + model.probes()[p.ret].id +
                      "  calls " + std::to_string(p.calls);
  if (p.calls) stats += "  avg " + ns_text(p.sum_ns / p.calls) + "  max " + ns_text(p.max_ns);
  if (p.unmatched) stats += "  unmatched " + std::to_string(p.unmatched);
  out.push_back({{stats, Style::Normal}});
  for (Line &l : render_histogram(p.hist, "nsecs", width, height > 2 ? height - 2 : 0, ui.unicode))
    out.push_back(std::move(l));
  return pad_to(std::move(out), width, height);
}

std::vector<Line> render_args(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out;
  auto order = model.sorted(ui.sort);
  if (order.empty()) return pad_to(std::move(out), width, height);
  const ProbeRow &r = model.probes()[order[std::min(ui.selected, order.size() - 1)]];
  if (r.args.empty()) {
    out.push_back({{"  " + r.id + ": " + (r.hits ? "no arguments" : "no events yet"), Style::Dim}});
    return pad_to(std::move(out), width, height);
  }
  size_t sel = std::min(ui.arg_selected, r.args.size() - 1);
  Line names{{" " + r.id + ":", Style::Normal}};
  for (size_t i = 0; i < r.args.size(); ++i)
    names.push_back({" " + r.args[i].name + " ", i == sel ? Style::Selected : Style::Normal});
  out.push_back(std::move(names));
  const ValueSummary &s = r.args[sel].summary;
  size_t body = height > 1 ? height - 1 : 0;
  if (s.view() == ValueSummary::View::Histogram) {
    std::string unit = s.negative() ? "|value|" : "value";
    for (Line &l : render_histogram(s.histogram(), unit, width, body, ui.unicode)) out.push_back(std::move(l));
    return pad_to(std::move(out), width, height);
  }
  auto top = s.top(body > 1 ? body - 1 : 0);
  uint64_t peak = top.empty() ? 0 : top.front().second;
  const size_t value_w = std::min<size_t>(32, width / 3), cnt = 9;
  size_t bar = width > value_w + cnt + 6 ? width - (value_w + cnt + 6) : 0;
  out.push_back({{"  " + fit("value", value_w) + " " + fit_right("count", cnt) + "  " +
                      fit(s.other() ? "(" + std::to_string(s.other()) + " more not kept)" : "", bar),
                  Style::Header}});
  for (const auto &[value, count] : top) {
    size_t len = peak ? static_cast<size_t>((count * bar + peak - 1) / peak) : 0;
    std::string fill;
    for (size_t i = 0; i < len; ++i) fill += ui.unicode ? "\u2588" : "*";
    out.push_back({{"  " + fit(printable(value), value_w, true) + " " + fit_right(std::to_string(count), cnt) + " |",
                    Style::Normal},
                   {fill, Style::Accent}});
  }
  return pad_to(std::move(out), width, height);
}

std::vector<Line> render_stacks(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> out;
  auto order = model.sorted(ui.sort);
  if (order.empty()) return pad_to(std::move(out), width, height);
  const ProbeRow &r = model.probes()[order[std::min(ui.selected, order.size() - 1)]];
  const StackTally &t = r.stacks;
  if (t.distinct() == 0) {
    out.push_back({{"  " + r.id + ": " + (r.hits ? "no stacks (trace with --stack)" : "no events yet"), Style::Dim}});
    return pad_to(std::move(out), width, height);
  }
  std::string head = " " + r.id + ": " + std::to_string(t.distinct()) + " stacks";
  if (t.other()) head += " (" + std::to_string(t.other()) + " more hits of stacks not kept)";
  out.push_back({{head, Style::Header}});
  // Every stack's lines, then the window that fits, from ui.stack_scroll.
  const size_t cnt = 9;
  std::vector<Line> lines;
  for (const StackTally::Entry *e : t.top(64)) {
    for (size_t i = 0; i < e->frames.size(); ++i) {
      std::string count = i == 0 ? fit_right(std::to_string(e->count), cnt) : std::string(cnt, ' ');
      lines.push_back({{"  " + count + "  ", i == 0 ? Style::Accent : Style::Normal}, {e->frames[i], Style::Normal}});
    }
    lines.push_back({});
  }
  size_t body = height > 1 ? height - 1 : 0;
  size_t first = std::min(ui.stack_scroll, lines.size() > body ? lines.size() - body : 0);
  for (size_t i = first; i < lines.size() && out.size() < height; ++i) out.push_back(std::move(lines[i]));
  return pad_to(std::move(out), width, height);
}

std::vector<Line> render_kernel(const LiveModel &model, const UiState &ui, size_t width, size_t height) {
  std::vector<Line> lines;
  if (model.kernel_histograms().empty()) {
    lines.push_back({{"  no kernel histogram running: start one with kprobe-probe hist -e GROUP:EVENT --by FIELD",
                      Style::Dim}});
    return pad_to(std::move(lines), width, height);
  }
  for (const KernelHistogram &h : model.kernel_histograms()) {
    lines.push_back({{" " + h.event + " by " + h.keys + ": " + std::to_string(h.hits) + " hits", Style::Header},
                     {"  (" + h.instance + ")", Style::Dim}});
    for (const std::string &row : h.table) lines.push_back({{"  " + printable(row), Style::Normal}});
    lines.push_back({});
  }
  size_t first = std::min(ui.kernel_scroll, lines.size() > height ? lines.size() - height : 0);
  lines.erase(lines.begin(), lines.begin() + static_cast<long>(first));
  return pad_to(std::move(lines), width, height);
}

}  // namespace kpp::tui
