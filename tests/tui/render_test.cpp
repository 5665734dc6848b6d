// Render goldens: a fixed model drawn at 80x24 and 200x60, each pane, in
// ASCII and with block characters. KPP_UPDATE_GOLDEN=1 rewrites the files
// (review the diff before committing them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/tui/synthetic.h"
#include "tui/keys.h"
#include "tui/render.h"

namespace kpp::tui {
namespace {

using test::add_demo_probes;
using test::make_event;
using test::with_int;
using test::with_string;

constexpr uint64_t s = 1000000000ull;

// The demo run twice over 5 seconds, with latencies of 300..5000 ns.
LiveModel demo_model() {
  LiveModel m;
  add_demo_probes(m);
  m.facts().instance = "kprobe-probe-4242";
  m.facts().cpus = 2;
  m.facts().command = "kpp_demo exited 0";
  const char *names[] = {"one", "two", "three"};
  m.tick(0);
  uint64_t t = 1000 * s;
  for (int sec = 1; sec <= 5; ++sec) {
    for (int round = 0; round < sec; ++round) {
      for (int i = 0; i < 3; ++i) {
        m.on_event(with_int(with_int(with_string(make_event("walk_L5", t), "name", names[i]), "i", i), "s", i * 2));
        m.on_event(with_int(with_int(make_event("add", t + 100), "a", i), "b", i + 1));
        m.on_event(with_int(make_event("add__return", t + 400 + static_cast<uint64_t>(i * i) * 2000), "arg1", 2 * i + 1));
        t += 10000;
      }
    }
    m.tick(static_cast<uint64_t>(sec) * s);
  }
  m.on_lost(1, 3);
  return m;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void expect_golden(const Frame &f, const std::string &name) {
  // Shape first: exact rows, every row exactly as wide as the screen.
  ASSERT_EQ(f.lines.size(), static_cast<size_t>(f.size.rows));
  for (const Line &l : f.lines) {
    size_t w = 0;
    for (const Segment &seg : l) w += display_width(seg.text);
    ASSERT_EQ(w, static_cast<size_t>(f.size.cols));
  }
  std::string path = std::string(KPP_TUI_GOLDEN_DIR) + "/" + name + ".txt";
  std::string text = frame_text(f);
  if (const char *u = std::getenv("KPP_UPDATE_GOLDEN"); u && *u == '1') {
    std::ofstream(path) << text;
    return;
  }
  EXPECT_EQ(text, read_file(path)) << "golden " << path << " differs (KPP_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(Render, Screen80x24) {
  LiveModel m = demo_model();
  UiState ui;
  expect_golden(render_screen(m, ui, {24, 80}), "screen_80x24");
}

TEST(Render, Screen200x60Unicode) {
  LiveModel m = demo_model();
  UiState ui;
  ui.unicode = true;
  expect_golden(render_screen(m, ui, {60, 200}), "screen_200x60");
}

TEST(Render, LatencyPane80x24) {
  LiveModel m = demo_model();
  UiState ui;
  ui.focus = Pane::Latency;
  expect_golden(render_screen(m, ui, {24, 80}), "latency_80x24");
}

TEST(Render, ArgsPane80x24) {
  LiveModel m = demo_model();
  UiState ui;
  ui.focus = Pane::Args;
  ui.selected = 0;
  expect_golden(render_screen(m, ui, {24, 80}), "args_80x24");
}

TEST(Render, HelpAndFilterPrompt80x24) {
  LiveModel m = demo_model();
  UiState ui;
  handle_key(ui, m, Key::character('?'), 10);
  expect_golden(render_screen(m, ui, {24, 80}), "help_80x24");
  handle_key(ui, m, Key::of(Key::Kind::Escape), 10);
  handle_key(ui, m, Key::character('/'), 10);
  for (char c : std::string("three")) handle_key(ui, m, Key::character(static_cast<char32_t>(c)), 10);
  Frame f = render_screen(m, ui, {24, 80});
  expect_golden(f, "filter_80x24");
  EXPECT_EQ(f.cursor_row, 23);
  EXPECT_EQ(f.cursor_col, 6);
}

TEST(Render, DetailOfTheLogLine) {
  LiveModel m = demo_model();
  UiState ui;
  ui.focus = Pane::Log;
  ui.log_scroll = 2;  // the walk line before the last add/return
  handle_key(ui, m, Key::of(Key::Kind::Enter), 10);
  std::string text = frame_text(render_screen(m, ui, {24, 80}));
  EXPECT_NE(text.find("    name=\"three\""), std::string::npos) << text;
  EXPECT_NE(text.find("    i=2"), std::string::npos) << text;
  EXPECT_NE(text.find("pid 100  comm demo"), std::string::npos) << text;
}

// A thread of a -p target in another pid namespace: both pids in its line and in its detail.
TEST(Render, DetailOfAContainersLineHasBothPids) {
  LiveModel m;
  add_demo_probes(m);
  Event e = with_int(make_event("add", 1000 * s, 41234), "a", 1);
  e.ns_pid = 7;
  m.on_event(e);
  UiState ui;
  ui.focus = Pane::Log;
  std::string line = frame_text(render_screen(m, ui, {24, 80}));
  EXPECT_NE(line.find(" demo-41234(container:7) probe_demo:add"), std::string::npos) << line;
  handle_key(ui, m, Key::of(Key::Kind::Enter), 10);
  std::string detail = frame_text(render_screen(m, ui, {24, 120}));
  EXPECT_NE(detail.find("pid 41234 on the host, 7 in the container  comm demo"), std::string::npos) << detail;
}

TEST(Render, TinyAndEmptyScreensKeepTheirShape) {
  LiveModel empty;
  UiState ui;
  for (Size size : {Size{24, 80}, Size{5, 20}, Size{2, 10}, Size{1, 1}}) {
    Frame f = render_screen(empty, ui, size);
    ASSERT_EQ(f.lines.size(), static_cast<size_t>(size.rows));
    for (const Line &l : f.lines) {
      size_t w = 0;
      for (const Segment &seg : l) w += display_width(seg.text);
      EXPECT_EQ(w, static_cast<size_t>(size.cols));
    }
  }
  EXPECT_NE(frame_text(render_screen(empty, ui, {24, 80})).find("no probe events"), std::string::npos);
}

TEST(Render, Widgets) {
  EXPECT_EQ(sparkline({0, 1, 2, 4, 8}, 7, false), "   .:=@");
  EXPECT_EQ(sparkline({0, 8}, 2, true), " \u2588");
  EXPECT_EQ(sparkline({1, 2, 3}, 2, false), "*@");  // only the newest that fit
  EXPECT_EQ(format_count(123456789, 9), "123456789");
  EXPECT_EQ(format_count(1234567890, 9), "1.2G");
  EXPECT_EQ(format_count(12345, 4), "12.3k");
  EXPECT_EQ(format_rate(0), "0");
  EXPECT_EQ(format_rate(2.5), "2.5");
  EXPECT_EQ(format_rate(123456), "123k");
  EXPECT_EQ(fit("abc", 5), "abc  ");
  EXPECT_EQ(fit("abcdef", 4, true), "abc~");
  EXPECT_EQ(fit_right("abc", 5), "  abc");
  EXPECT_EQ(display_width("\u2581\u2582x"), 3u);
  EXPECT_EQ(fit("\u2581\u2582\u2583", 2), "\u2581\u2582");
  EXPECT_EQ(printable("a\tb\x1b"), "a?b?");
}

}  // namespace
}  // namespace kpp::tui
