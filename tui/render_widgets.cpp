// Small widgets shared by the panes: numbers, sparklines, histograms.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tui/render.h"

namespace kpp::tui {

std::string format_count(uint64_t n, size_t width) {
  std::string exact = std::to_string(n);
  if (exact.size() <= width) return exact;
  // The largest unit that leaves a number below 1000: 1234567890 -> 1.2G.
  const char *units = "kMGTPE";
  double v = static_cast<double>(n) / 1000;
  int u = 0;
  while (v >= 1000 && units[u + 1]) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 100 ? "%.1f%c" : "%.0f%c", v, units[u]);
  return buf;
}

std::string format_rate(double r) {
  char buf[32];
  if (r <= 0) return "0";
  if (r < 10) std::snprintf(buf, sizeof buf, "%.1f", r);
  else if (r < 100000) std::snprintf(buf, sizeof buf, "%.0f", r);
  else if (r < 1e7) std::snprintf(buf, sizeof buf, "%.0fk", r / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1fM", r / 1e6);
  return buf;
}

std::string sparkline(const std::deque<double> &history, size_t width, bool unicode) {
  static const char *const blocks[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                       "\u2585", "\u2586", "\u2587", "\u2588"};
  static const char ascii[] = " .:-=+*#@";
  size_t n = std::min(width, history.size());
  auto first = history.end() - static_cast<long>(n);
  double max = 0;
  for (auto it = first; it != history.end(); ++it) max = std::max(max, *it);
  std::string out(width - n, ' ');
  for (auto it = first; it != history.end(); ++it) {
    // Any activity shows at least the lowest block; the maximum is full.
    int level = *it <= 0 || max <= 0 ? 0 : std::clamp(static_cast<int>(std::ceil(*it / max * 8)), 1, 8);
    if (unicode) out += blocks[level];
    else out += ascii[level];
  }
  return out;
}

std::vector<Line> render_histogram(const Log2Histogram &hist, const std::string &unit, size_t width,
                                   size_t height, bool unicode) {
  std::vector<Line> out;
  if (height == 0) return out;
  int lo = hist.first(), hi = hist.last();
  if (lo < 0) return out;
  // Keep the tail when the span does not fit: the slow calls matter most.
  if (hi - lo + 2 > static_cast<int>(height)) lo = hi - static_cast<int>(height) + 2;
  uint64_t peak = 0;
  for (int b = lo; b <= hi; ++b) peak = std::max(peak, hist.count(b));
  const size_t num = 11, cnt = 9;
  size_t bar = width > 2 * num + 4 + 3 + cnt + 3 ? width - (2 * num + 4 + 3 + cnt + 3) : 0;
  out.push_back({{fit_right(unit, num) + "    " + fit("", num) + " : " + fit_right("count", cnt) + "  " +
                      fit("distribution", bar),
                  Style::Header}});
  for (int b = lo; b <= hi; ++b) {
    uint64_t c = hist.count(b);
    size_t len = peak ? static_cast<size_t>((c * bar + peak - 1) / peak) : 0;
    std::string fill;
    for (size_t i = 0; i < len; ++i) fill += unicode ? "\u2588" : "*";
    out.push_back({{fit_right(std::to_string(Log2Histogram::bucket_low(b)), num) + " -> " +
                        fit(std::to_string(Log2Histogram::bucket_high(b)), num) + " : " +
                        fit_right(std::to_string(c), cnt) + " |",
                    Style::Normal},
                   {fill, Style::Accent},
                   {std::string(bar - len, ' ') + "|", Style::Normal}});
  }
  return out;
}

}  // namespace kpp::tui
