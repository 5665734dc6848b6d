#include "src/live/live_pages.h"

#include <algorithm>

#include "src/tracedat/tracedat_writer.h"

namespace kpp {

Status LivePages::on_start(const StreamInfo &info) {
  info_ = info;
  cpus_.assign(static_cast<size_t>(std::max(info.cpus, 1)), {});
  size_t page = static_cast<size_t>(std::max(info.page_size, 1));
  per_cpu_ = std::max<size_t>(budget_ / page / cpus_.size(), 1);
  return Ok{};
}

Status LivePages::on_page(int cpu, std::span<const uint8_t> page) {
  if (cpu < 0 || static_cast<size_t>(cpu) >= cpus_.size()) return Ok{};
  auto &q = cpus_[static_cast<size_t>(cpu)];
  if (q.size() >= per_cpu_) {
    // Reuse the oldest page's buffer for the newest.
    std::vector<uint8_t> reuse = std::move(q.front());
    q.pop_front();
    reuse.assign(page.begin(), page.end());
    q.push_back(std::move(reuse));
  } else {
    q.emplace_back(page.begin(), page.end());
  }
  return Ok{};
}

uint64_t LivePages::pages() const {
  uint64_t n = 0;
  for (const auto &q : cpus_) n += q.size();
  return n;
}

Result<uint64_t> LivePages::write(const std::string &path) const {
  if (pages() == 0) return Error("no events buffered yet");
  auto writer = TraceDatWriter::create(path);
  if (!writer) return std::move(writer).error();
  if (Status st = (*writer)->on_start(info_); !st) return std::move(st).error();
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu)
    for (const auto &page : cpus_[cpu])
      if (Status st = (*writer)->on_page(static_cast<int>(cpu), page); !st) return std::move(st).error();
  if (Status st = (*writer)->finish(); !st) return std::move(st).error();
  return pages();
}

}  // namespace kpp
