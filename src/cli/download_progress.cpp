#include "src/cli/download_progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "dwarf/debuginfod.h"

namespace kpp {

namespace {

// Small files come and go before a line would help.
constexpr uint64_t kShowFromBytes = 4u << 20;
constexpr auto kRedrawInterval = std::chrono::milliseconds(200);

}  // namespace

void show_download_progress_on_terminal() {
  if (!isatty(STDERR_FILENO)) return;
  auto last = std::chrono::steady_clock::time_point{};
  bool drawn = false;
  dwarf::set_debuginfod_progress([last, drawn](const dwarf::DownloadProgress &p) mutable {
    if (p.finished) {
      if (drawn) std::fputs("\r\033[K", stderr);  // clear the line: the result follows
      drawn = false;
      return;
    }
    if (p.total < kShowFromBytes && p.done < kShowFromBytes) return;
    auto now = std::chrono::steady_clock::now();
    if (drawn && now - last < kRedrawInterval) return;
    last = now;
    drawn = true;
    std::fprintf(stderr, "\r\033[Kdownloading %s%s%s: %.1f", p.what.c_str(), p.url.empty() ? "" : " from ",
                 p.url.c_str(), static_cast<double>(p.done) / (1 << 20));
    if (p.total) std::fprintf(stderr, " of %.1f MB (%d%%)", static_cast<double>(p.total) / (1 << 20),
                              static_cast<int>(100 * p.done / p.total));
    else std::fputs(" MB", stderr);
  });
}

}  // namespace kpp
