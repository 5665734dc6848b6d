// The live-view model from synthetic events: exact counts, rates and their
// history, entry/return pairing per thread (per goroutine for Go) into log2 buckets, the log's
// pause and filter, sorting, argument summaries, and key intents.
#include <gtest/gtest.h>

#include "tests/tui/synthetic.h"
#include "tui/keys.h"
#include "tui/render.h"
#include "tui/live_model.h"

namespace kpp::tui {
namespace {

using test::add_demo_probes;
using test::make_event;
using test::with_int;
using test::with_string;
using test::with_uint;

constexpr uint64_t s = 1000000000ull;

TEST(Log2Histogram, BucketsArePowersOfTwo) {
  EXPECT_EQ(Log2Histogram::bucket_of(0), 0);
  EXPECT_EQ(Log2Histogram::bucket_of(1), 1);
  EXPECT_EQ(Log2Histogram::bucket_of(2), 2);
  EXPECT_EQ(Log2Histogram::bucket_of(3), 2);
  EXPECT_EQ(Log2Histogram::bucket_of(4), 3);
  EXPECT_EQ(Log2Histogram::bucket_of(511), 9);
  EXPECT_EQ(Log2Histogram::bucket_of(512), 10);
  EXPECT_EQ(Log2Histogram::bucket_of(~0ull), 64);
  EXPECT_EQ(Log2Histogram::bucket_low(10), 512u);
  EXPECT_EQ(Log2Histogram::bucket_high(10), 1023u);
  EXPECT_EQ(Log2Histogram::bucket_high(64), ~0ull);
  Log2Histogram h;
  EXPECT_EQ(h.first(), -1);
  h.add(5);
  h.add(6);
  h.add(1000);
  EXPECT_EQ(h.first(), 3);
  EXPECT_EQ(h.last(), 10);
  EXPECT_EQ(h.count(3), 2u);
  EXPECT_EQ(h.total(), 3u);
}

TEST(LiveModel, CountsEveryEventExactly) {
  LiveModel m;
  add_demo_probes(m);
  for (int i = 0; i < 100000; ++i) m.on_event(make_event(i % 3 ? "add" : "walk_L5", static_cast<uint64_t>(i)));
  EXPECT_EQ(m.events(), 100000u);
  EXPECT_EQ(m.probes()[0].hits, 33334u);
  EXPECT_EQ(m.probes()[1].hits, 66666u);
  EXPECT_EQ(m.probes()[2].hits, 0u);
  // The log keeps only its capacity, counts do not depend on it.
  EXPECT_EQ(m.log().size(), 2000u);
}

TEST(LiveModel, UnknownEventsGetTheirOwnRow) {
  LiveModel m;
  Event e = make_event("other", 1);
  e.system = "sched";
  m.on_event(e);
  m.on_event(e);
  ASSERT_EQ(m.probes().size(), 1u);
  EXPECT_EQ(m.probes()[0].id, "sched:other");
  EXPECT_EQ(m.probes()[0].hits, 2u);
  EXPECT_EQ(m.find("sched:other"), 0);
  EXPECT_EQ(m.find("sched:none"), -1);
}

TEST(LiveModel, RatesAndHistoryPerTick) {
  LiveModel m(LiveModelOptions{100, 3});
  add_demo_probes(m);
  m.tick(0);  // the first tick only starts an interval
  EXPECT_TRUE(m.probes()[0].history.empty());
  for (int i = 0; i < 50; ++i) m.on_event(make_event("walk_L5", 1));
  m.tick(s / 2);  // 50 in half a second
  EXPECT_DOUBLE_EQ(m.probes()[0].rate, 100.0);
  EXPECT_DOUBLE_EQ(m.events_rate(), 100.0);
  for (int i = 0; i < 10; ++i) m.on_event(make_event("walk_L5", 2));
  m.tick(s / 2 + s);
  EXPECT_DOUBLE_EQ(m.probes()[0].rate, 10.0);
  m.tick(s / 2 + 2 * s);
  m.tick(s / 2 + 3 * s);
  // History keeps the newest 3 samples, oldest first.
  EXPECT_EQ(m.probes()[0].history, (std::deque<double>{10.0, 0.0, 0.0}));
  EXPECT_EQ(m.probes()[1].history, (std::deque<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(m.probes()[0].hits, 60u);
}

TEST(LiveModel, LostEvents) {
  LiveModel m;
  m.on_lost(0, 10);
  m.on_lost(1, 5);
  EXPECT_EQ(m.lost(), 15u);
  EXPECT_FALSE(m.lost_unknown());
  m.on_lost(1, -1);
  EXPECT_TRUE(m.lost_unknown());
}

TEST(LiveModel, PairsEntryAndReturnOnTheSameSite) {
  LiveModel m;
  add_demo_probes(m);
  ASSERT_EQ(m.pairs().size(), 1u);
  EXPECT_EQ(m.pairs()[0].label, "add");
  EXPECT_EQ(m.pairs()[0].entry, 1u);
  EXPECT_EQ(m.pairs()[0].ret, 2u);
  EXPECT_EQ(m.probes()[1].pair_entry, 0);
  EXPECT_EQ(m.probes()[2].pair_return, 0);
  EXPECT_EQ(m.probes()[0].pair_entry, -1);
}

TEST(LiveModel, ReturnFirstThenEntryPairsToo) {
  LiveModel m;
  m.add_probe({"g", "f__return", "f%return@x.c", "site", true});
  m.add_probe({"g", "f", "f@x.c", "site", false});
  ASSERT_EQ(m.pairs().size(), 1u);
  EXPECT_EQ(m.pairs()[0].entry, 1u);
  EXPECT_EQ(m.pairs()[0].ret, 0u);
  EXPECT_EQ(m.pairs()[0].label, "f");
}

TEST(LiveModel, LatencyIsMatchedPerThreadIntoLog2Buckets) {
  LiveModel m;
  add_demo_probes(m);
  // Thread 1: 300 ns; thread 2 interleaved: 5000 ns; thread 1 recursion:
  // inner call 100 ns, outer 1000 ns.
  m.on_event(make_event("add", 1000, 1));
  m.on_event(make_event("add", 1100, 2));
  m.on_event(make_event("add__return", 1300, 1));
  m.on_event(make_event("add__return", 6100, 2));
  m.on_event(make_event("add", 10000, 1));
  m.on_event(make_event("add", 10400, 1));
  m.on_event(make_event("add__return", 10500, 1));
  m.on_event(make_event("add__return", 11000, 1));
  m.on_event(make_event("add__return", 12000, 3));  // no entry on thread 3
  const LatencyPair &p = m.pairs()[0];
  EXPECT_EQ(p.calls, 4u);
  EXPECT_EQ(p.unmatched, 1u);
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(300)), 1u);   // 256..511
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(5000)), 1u);  // 4096..8191
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(100)), 1u);   // 64..127
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(1000)), 1u);  // 512..1023
  EXPECT_EQ(p.max_ns, 5000u);
  EXPECT_EQ(p.sum_ns, 300u + 5000u + 100u + 1000u);
}

// Go probes carry their goroutine (field "goroutine", r14's g pointer):
// a call is matched by goroutine, whichever threads its entry and return
// ran on, as Go's scheduler moves goroutines between threads.
TEST(LiveModel, GoCallsAreMatchedByGoroutineNotThread) {
  LiveModel m;
  add_demo_probes(m);
  auto go = [](const std::string &name, uint64_t t, int tid, uint64_t g) {
    return with_uint(make_event(name, t, tid), "goroutine", g);
  };
  // Goroutine 0xa enters on thread 1 and returns on thread 2 (300 ns); goroutine
  // 0xb enters on thread 2 in between and returns on thread 1 (5000 ns).
  m.on_event(go("add", 1000, 1, 0xa));
  m.on_event(go("add", 1100, 2, 0xb));
  m.on_event(go("add__return", 1300, 2, 0xa));
  m.on_event(go("add__return", 6100, 1, 0xb));
  const LatencyPair &p = m.pairs()[0];
  EXPECT_EQ(p.calls, 2u);
  EXPECT_EQ(p.unmatched, 0u);
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(300)), 1u);
  EXPECT_EQ(p.hist.count(Log2Histogram::bucket_of(5000)), 1u);
  EXPECT_EQ(p.sum_ns, 300u + 5000u);  // by thread it would have been 200 + 5100
}

TEST(LiveModel, LogPauseKeepsCountingButFreezesLines) {
  LiveModel m;
  add_demo_probes(m);
  m.on_event(make_event("add", 1));
  m.log().set_paused(true);
  m.on_event(make_event("add", 2));
  m.on_event(make_event("add", 3));
  EXPECT_EQ(m.log().size(), 1u);
  EXPECT_EQ(m.log().skipped(), 2u);
  EXPECT_EQ(m.probes()[1].hits, 3u);
  m.log().set_paused(false);
  m.on_event(make_event("add", 4));
  EXPECT_EQ(m.log().size(), 2u);
  EXPECT_EQ(m.log().at(1).time_ns, 4u);
}

TEST(LiveModel, LogFilterSelectsByText) {
  LiveModel m;
  add_demo_probes(m);
  m.on_event(with_string(make_event("walk_L5", 1), "name", "one"));
  m.on_event(with_string(make_event("walk_L5", 2), "name", "two"));
  m.on_event(with_string(make_event("walk_L5", 3), "name", "three"));
  m.on_event(make_event("add", 4));
  EXPECT_EQ(m.log().visible().size(), 4u);
  m.log().set_filter("name=\"t");
  EXPECT_EQ(m.log().visible(), (std::vector<size_t>{1, 2}));
  m.log().set_filter("walk_L5");
  EXPECT_EQ(m.log().visible().size(), 3u);
  m.log().set_filter("nothing like this");
  EXPECT_TRUE(m.log().visible().empty());
}

TEST(LiveModel, LogTextIsTheTraceLine) {
  LiveModel m;
  m.on_event(with_int(make_event("walk_L5", 1234567890123ull, 42, 1), "i", -2));
  EXPECT_EQ(m.log().text(0), "  1234.567890123 [001] demo-42 probe_demo:walk_L5 i=-2");
}

TEST(LiveModel, LogRingOverwritesOldest) {
  LiveModel m(LiveModelOptions{3, 10});
  for (uint64_t t = 1; t <= 5; ++t) m.on_event(make_event("add", t));
  ASSERT_EQ(m.log().size(), 3u);
  EXPECT_EQ(m.log().at(0).time_ns, 3u);
  EXPECT_EQ(m.log().at(2).time_ns, 5u);
}

TEST(LiveModel, SortByHitsRateAndName) {
  LiveModel m;
  add_demo_probes(m);
  m.tick(0);
  for (int i = 0; i < 3; ++i) m.on_event(make_event("add", 1));
  m.on_event(make_event("walk_L5", 1));
  m.tick(s);
  for (int i = 0; i < 5; ++i) m.on_event(make_event("walk_L5", 2));
  m.tick(2 * s);
  // hits: walk 6, add 3, return 0; rate now: walk 5, add 0, return 0.
  EXPECT_EQ(m.sorted(SortKey::Hits), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(m.sorted(SortKey::Rate), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(m.sorted(SortKey::Name), (std::vector<size_t>{1, 2, 0}));
  for (int i = 0; i < 10; ++i) m.on_event(make_event("add__return", 3));
  m.tick(3 * s);
  EXPECT_EQ(m.sorted(SortKey::Hits), (std::vector<size_t>{2, 0, 1}));
  EXPECT_EQ(m.sorted(SortKey::Rate), (std::vector<size_t>{2, 1, 0}));  // ties by id: add < walk
}

TEST(ValueSummary, StringsAndSmallIntegersAsTopValues) {
  LiveModel m;
  add_demo_probes(m);
  const char *names[] = {"one", "two", "three", "two", "three", "three"};
  for (int i = 0; i < 6; ++i)
    m.on_event(with_int(with_string(make_event("walk_L5", 1), "name", names[i]), "i", i % 3));
  const ProbeRow &r = m.probes()[0];
  ASSERT_EQ(r.args.size(), 2u);
  EXPECT_EQ(r.args[0].name, "name");
  EXPECT_EQ(r.args[0].summary.view(), ValueSummary::View::TopValues);
  using Top = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(r.args[0].summary.top(2), (Top{{"\"three\"", 3}, {"\"two\"", 2}}));
  EXPECT_EQ(r.args[1].summary.view(), ValueSummary::View::TopValues);
  EXPECT_EQ(r.args[1].summary.top(5), (Top{{"0", 2}, {"1", 2}, {"2", 2}}));
}

TEST(ValueSummary, SpreadIntegersAsLog2Histogram) {
  ValueSummary v;
  FieldValue fv;
  fv.kind = FieldKind::Unsigned;
  for (uint64_t n = 0; n < 100; ++n) {
    fv.u = n * 40;  // 0..3960
    v.add(fv);
  }
  EXPECT_EQ(v.view(), ValueSummary::View::Histogram);
  EXPECT_EQ(v.samples(), 100u);
  EXPECT_EQ(v.histogram().count(0), 1u);
  EXPECT_EQ(v.histogram().total(), 100u);
  EXPECT_EQ(v.histogram().last(), Log2Histogram::bucket_of(3960));
}

TEST(ValueSummary, NegativeValuesByMagnitudeAndHexAsTopValues) {
  ValueSummary v;
  FieldValue fv;
  fv.kind = FieldKind::Signed;
  fv.i = -5;
  v.add(fv);
  EXPECT_EQ(v.negative(), 1u);
  EXPECT_EQ(v.histogram().count(Log2Histogram::bucket_of(5)), 1u);
  ValueSummary h;
  FieldValue x;
  x.kind = FieldKind::Hex;
  for (uint64_t n = 0; n < 40; ++n) {
    x.u = 0x1000 + n % 2;
    h.add(x);
  }
  EXPECT_EQ(h.view(), ValueSummary::View::TopValues);
  EXPECT_EQ(h.top(1).front().first, "0x1000");
}

TEST(Keys, IntentsAndStateChanges) {
  LiveModel m;
  add_demo_probes(m);
  UiState ui;
  using K = Key::Kind;
  EXPECT_EQ(handle_key(ui, m, Key::character('q'), 10).kind, Intent::Kind::Quit);
  EXPECT_EQ(handle_key(ui, m, Key::of(K::Down), 10).kind, Intent::Kind::Redraw);
  EXPECT_EQ(ui.selected, 1u);
  Intent t = handle_key(ui, m, Key::character(' '), 10);
  EXPECT_EQ(t.kind, Intent::Kind::ToggleProbe);
  EXPECT_EQ(t.probe, m.probes()[m.sorted(ui.sort)[1]].id);
  EXPECT_EQ(handle_key(ui, m, Key::character('e'), 10).probe, t.probe);
  EXPECT_EQ(handle_key(ui, m, Key::of(K::End), 10).kind, Intent::Kind::Redraw);
  EXPECT_EQ(ui.selected, 2u);
  handle_key(ui, m, Key::of(K::Down), 10);
  EXPECT_EQ(ui.selected, 2u);  // stays on the last row
  handle_key(ui, m, Key::character('p'), 10);
  EXPECT_TRUE(m.log().paused());
  handle_key(ui, m, Key::character('s'), 10);
  EXPECT_EQ(ui.sort, SortKey::Rate);
  EXPECT_EQ(handle_key(ui, m, Key::character('w'), 10).kind, Intent::Kind::WriteTrace);
  handle_key(ui, m, Key::of(K::Tab), 10);
  EXPECT_EQ(ui.focus, Pane::Log);
  handle_key(ui, m, Key::of(K::BackTab), 10);
  handle_key(ui, m, Key::of(K::BackTab), 10);
  EXPECT_EQ(ui.focus, Pane::Kernel);
  handle_key(ui, m, Key::of(K::BackTab), 10);
  EXPECT_EQ(ui.focus, Pane::Stacks);
  handle_key(ui, m, Key::of(K::BackTab), 10);
  EXPECT_EQ(ui.focus, Pane::Args);
  handle_key(ui, m, Key::character('?'), 10);
  EXPECT_TRUE(ui.help);
  handle_key(ui, m, Key::of(K::Escape), 10);
  EXPECT_FALSE(ui.help);
  EXPECT_EQ(handle_key(ui, m, Key::character('Z'), 10).kind, Intent::Kind::Ignored);
}

TEST(LiveModel, StacksAreCountedPerProbeMostFrequentFirst) {
  LiveModel m;
  add_demo_probes(m);
  auto with_stack = [](Event e, std::vector<std::string> names) {
    uint64_t ip = 0x1000;
    for (const std::string &n : names) {
      StackFrame f;
      f.ip = ip += 0x10;
      f.sym = n;
      f.off = 4;
      e.stack.push_back(f);
    }
    return e;
  };
  const std::string id = m.probes()[0].id;
  Event e = make_event(m.probes()[0].info.event, 1);
  for (int i = 0; i < 3; ++i) m.on_event(with_stack(e, {"b", "a", "main"}));
  m.on_event(with_stack(e, {"b", "c", "main"}));
  m.on_event(e);  // no stack: counted as a hit, not as a stack
  const StackTally &t = m.probes()[0].stacks;
  ASSERT_EQ(t.distinct(), 2u);
  auto top = t.top(5);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0]->count, 3u);
  EXPECT_EQ(top[0]->frames, (std::vector<std::string>{"b+0x4", "a+0x4", "main+0x4"}));
  EXPECT_EQ(top[1]->count, 1u);
  // The pane: the count beside the innermost frame, the callers below.
  UiState ui;
  std::vector<size_t> order = m.sorted(ui.sort);  // the table's order: select row 0's probe
  ui.selected = static_cast<size_t>(std::find(order.begin(), order.end(), size_t{0}) - order.begin());
  std::vector<Line> lines = render_stacks(m, ui, 60, 10);
  auto text = [](const Line &l) {
    std::string s;
    for (const Segment &seg : l) s += seg.text;
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  ASSERT_GE(lines.size(), 4u);
  EXPECT_NE(text(lines[0]).find(id + ": 2 stacks"), std::string::npos) << text(lines[0]);
  EXPECT_EQ(text(lines[1]), "          3  b+0x4");
  EXPECT_EQ(text(lines[2]), "             a+0x4");
}

// The Kernel pane: the histograms the live layer read (src/live/kernel_histograms),
// each under its event, keys and total; scrolled with the arrows.
TEST(LiveModel, KernelPaneShowsTheKernelsHistogramsOrHowToStartOne) {
  LiveModel m;
  UiState ui;
  auto text = [](const Line &l) {
    std::string s;
    for (const Segment &seg : l) s += seg.text;
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  };
  std::vector<Line> lines = render_kernel(m, ui, 100, 4);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(text(lines[0]),
            "  no kernel histogram running: start one with kprobe-probe hist -e GROUP:EVENT --by FIELD");
  KernelHistogram h;
  h.event = "probe:vfs_read";
  h.instance = "kprobe-probe-4242";
  h.keys = "comm";
  h.hits = 6;
  h.table = {"comm  hits  sum(count)", "cat      3      196608", "dd       3          21"};
  m.set_kernel_histograms({h});
  lines = render_kernel(m, ui, 100, 6);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(text(lines[0]), " probe:vfs_read by comm: 6 hits  (kprobe-probe-4242)");
  EXPECT_EQ(text(lines[1]), "  comm  hits  sum(count)");
  EXPECT_EQ(text(lines[3]), "  dd       3          21");
  // Tab reaches it after the stacks; Down scrolls it.
  ui.focus = Pane::Stacks;
  handle_key(ui, m, Key::of(Key::Kind::Tab), 10);
  EXPECT_EQ(ui.focus, Pane::Kernel);
  handle_key(ui, m, Key::of(Key::Kind::Down), 10);
  EXPECT_EQ(ui.kernel_scroll, 1u);
  lines = render_kernel(m, ui, 100, 3);
  EXPECT_EQ(text(lines[0]), "  comm  hits  sum(count)");
  // The screen shows it, titled, when it has focus.
  Frame f = render_screen(m, ui, Size{24, 100});
  bool titled = false;
  for (const Line &l : f.lines) titled = titled || text(l).find("Kernel") != std::string::npos;
  EXPECT_TRUE(titled);
}

TEST(Keys, FilterIsTypedAppliedAndCancelled) {
  LiveModel m;
  UiState ui;
  using K = Key::Kind;
  handle_key(ui, m, Key::character('/'), 10);
  EXPECT_TRUE(ui.editing_filter);
  for (char c : std::string("thq")) handle_key(ui, m, Key::character(static_cast<char32_t>(c)), 10);
  EXPECT_EQ(m.log().filter(), "thq");  // 'q' is text while typing, not quit
  handle_key(ui, m, Key::of(K::Backspace), 10);
  handle_key(ui, m, Key::of(K::Enter), 10);
  EXPECT_FALSE(ui.editing_filter);
  EXPECT_EQ(m.log().filter(), "th");
  handle_key(ui, m, Key::character('/'), 10);
  handle_key(ui, m, Key::character('x'), 10);
  handle_key(ui, m, Key::of(K::Escape), 10);
  EXPECT_EQ(m.log().filter(), "th");  // Esc restores the filter before editing
  handle_key(ui, m, Key::of(K::Escape), 10);
  EXPECT_EQ(m.log().filter(), "");    // a second Esc clears it
}

TEST(Keys, LogScrollStaysInRange) {
  LiveModel m;
  for (uint64_t t = 0; t < 50; ++t) m.on_event(make_event("add", t));
  UiState ui;
  ui.focus = Pane::Log;
  handle_key(ui, m, Key::of(Key::Kind::PageUp), 20);
  EXPECT_EQ(ui.log_scroll, 20u);
  handle_key(ui, m, Key::of(Key::Kind::Home), 20);
  EXPECT_EQ(ui.log_scroll, 49u);
  handle_key(ui, m, Key::of(Key::Kind::End), 20);
  EXPECT_EQ(ui.log_scroll, 0u);
}

}  // namespace
}  // namespace kpp::tui
