// A rendered screen as plain data: lines of styled segments. Render
// functions build Frames from the model; the terminal layer only paints
// them, and tests compare frame_text() against golden files.
#pragma once

#include <string>
#include <vector>

namespace kpp::tui {

// What a segment means; the terminal maps it to a colour or, without
// colour (NO_COLOR, monochrome terminals), to bold/reverse/dim.
enum class Style { Normal, Title, Header, Selected, Dim, Good, Bad, Warn, Accent };

struct Segment {
  std::string text;  // UTF-8, one column per code point (callers keep it so)
  Style style = Style::Normal;
  bool operator==(const Segment &) const = default;
};

using Line = std::vector<Segment>;

struct Size {
  int rows = 24;
  int cols = 80;
};

struct Frame {
  Size size;
  std::vector<Line> lines;  // exactly size.rows lines, each size.cols columns
  int cursor_col = -1;      // where the text cursor goes (filter prompt), -1: hidden
  int cursor_row = -1;
};

// The frame as text, one '\n'-terminated line per row, styles dropped.
std::string frame_text(const Frame &frame);

// Columns `s` takes: its UTF-8 code points.
size_t display_width(const std::string &s);

// `s` cut or space-padded to exactly `width` columns. Cutting is on a code
// point boundary; `ellipsis` marks a cut with a final '~'.
std::string fit(const std::string &s, size_t width, bool ellipsis = false);

// `s` right-aligned in `width` columns (cut from the left when too long).
std::string fit_right(const std::string &s, size_t width);

// A line of segments cut or padded (with Normal spaces) to `width` columns.
Line fit_line(Line line, size_t width);

// `s` with control bytes shown as '?', so one byte never moves the cursor.
std::string printable(const std::string &s);

}  // namespace kpp::tui
