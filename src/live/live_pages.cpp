#include "src/live/live_pages.h"

#include <algorithm>
#include <cstring>

#include "src/tracedat/tracedat_writer.h"

namespace kpp {

Status LivePages::on_start(const StreamInfo &info) {
  info_ = info;
  cpus_.assign(static_cast<size_t>(std::max(info.cpus, 1)), {});
  stacked_.assign(cpus_.size(), {});
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
    forget_stacks_before_pages(static_cast<size_t>(cpu));
  } else {
    q.emplace_back(page.begin(), page.end());
  }
  return Ok{};
}

Status LivePages::on_event(const Event &event) {
  if (event.cpu < 0 || static_cast<size_t>(event.cpu) >= stacked_.size()) return Ok{};
  if (std::none_of(event.stack.begin(), event.stack.end(), [](const StackFrame &f) { return f.user; })) return Ok{};
  Event kept;
  kept.time_ns = event.time_ns;
  kept.cpu = event.cpu;
  kept.pid = event.pid;
  kept.stack = event.stack;
  stacked_[static_cast<size_t>(event.cpu)].push_back(std::move(kept));
  forget_stacks_before_pages(static_cast<size_t>(event.cpu));
  return Ok{};
}

// A page starts with the time stamp its events' times count from: an event
// older than a CPU's oldest page kept is in no page the file will hold.
// (Its stack may also come before its page: events wait for their stacks,
// pages do not; so only what is older than the oldest page goes.)
void LivePages::forget_stacks_before_pages(size_t cpu) {
  const auto &pages = cpus_[cpu];
  auto &stacked = stacked_[cpu];
  if (pages.size() < per_cpu_ || pages.front().size() < sizeof(uint64_t)) return;  // nothing dropped yet
  uint64_t oldest = 0;
  std::memcpy(&oldest, pages.front().data(), sizeof oldest);
  while (!stacked.empty() && stacked.front().time_ns < oldest) stacked.pop_front();
}

uint64_t LivePages::pages() const {
  uint64_t n = 0;
  for (const auto &q : cpus_) n += q.size();
  return n;
}

Result<uint64_t> LivePages::write(const std::string &path) const {
  if (pages() == 0) return Error("no events buffered yet");
  TraceDatOptions file;
  file.user_stacks = dwarf_user_stacks_;
  auto writer = TraceDatWriter::create(path, file);
  if (!writer) return std::move(writer).error();
  if (Status st = (*writer)->on_start(info_); !st) return std::move(st).error();
  for (size_t cpu = 0; cpu < cpus_.size(); ++cpu) {
    for (const auto &page : cpus_[cpu])
      if (Status st = (*writer)->on_page(static_cast<int>(cpu), page); !st) return std::move(st).error();
    for (const Event &event : stacked_[cpu])
      if (Status st = (*writer)->on_event(event); !st) return std::move(st).error();
  }
  if (Status st = (*writer)->finish(); !st) return std::move(st).error();
  return pages();
}

}  // namespace kpp
