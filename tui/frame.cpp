#include "tui/frame.h"

namespace kpp::tui {

namespace {
bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Byte length of the first `cols` code points of `s` (all of it if shorter).
size_t prefix_bytes(const std::string &s, size_t cols) {
  size_t i = 0, seen = 0;
  while (i < s.size()) {
    if (!is_continuation(static_cast<unsigned char>(s[i]))) {
      if (seen == cols) break;
      ++seen;
    }
    ++i;
  }
  return i;
}
}  // namespace

std::string frame_text(const Frame &frame) {
  std::string out;
  for (const Line &line : frame.lines) {
    for (const Segment &s : line) out += s.text;
    out += '\n';
  }
  return out;
}

size_t display_width(const std::string &s) {
  size_t n = 0;
  for (unsigned char c : s)
    if (!is_continuation(c)) ++n;
  return n;
}

std::string fit(const std::string &s, size_t width, bool ellipsis) {
  size_t w = display_width(s);
  if (w <= width) return s + std::string(width - w, ' ');
  if (width == 0) return {};
  if (ellipsis) return s.substr(0, prefix_bytes(s, width - 1)) + "~";
  return s.substr(0, prefix_bytes(s, width));
}

std::string fit_right(const std::string &s, size_t width) {
  size_t w = display_width(s);
  if (w <= width) return std::string(width - w, ' ') + s;
  return s.substr(prefix_bytes(s, w - width));
}

Line fit_line(Line line, size_t width) {
  Line out;
  size_t used = 0;
  for (Segment &seg : line) {
    if (used == width) break;
    size_t w = display_width(seg.text);
    if (used + w > width) {
      seg.text = fit(seg.text, width - used);
      w = width - used;
    }
    used += w;
    out.push_back(std::move(seg));
  }
  if (used < width) out.push_back({std::string(width - used, ' '), Style::Normal});
  return out;
}

std::string printable(const std::string &s) {
  std::string out = s;
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

}  // namespace kpp::tui
